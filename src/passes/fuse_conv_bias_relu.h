// Fusion: Conv (with its bias) followed by Relu becomes one vx.FusedConv with relu = 1; every other
// Conv becomes vx.FusedConv with relu = 0, so later passes and the kernels see one conv op.
// The Relu is folded only when the conv output is read by that Relu alone and is not a graph output.
#pragma once
#include "core/graph.h"

namespace vx {

Graph fuse_conv_bias_relu(Graph graph);

}  // namespace vx

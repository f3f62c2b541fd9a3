// Fusion: vx.FusedConv whose output is read only by a 2x2, stride-2, unpadded MaxPool (floor mode,
// no Indices output) gets pool = 1 and writes the pooled result directly.
#pragma once
#include "core/graph.h"

namespace vx {

Graph fuse_conv_relu_pool(Graph graph);

}  // namespace vx

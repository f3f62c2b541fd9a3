// Conv + elementwise chain -> one vx.FusedConv with post-ops (ops/post_ops.h): the unary steps that
// alone read a vx.FusedConv's (or vx.FusedConvResidual's) output, one after another — Relu,
// LeakyRelu, Clip with constant bounds, HardSigmoid, HardSwish, Sigmoid, Tanh, and Mul / Div / Add /
// Sub by a one-element f32 constant — move into the conv's post_ops, consecutive scale-and-shifts
// merged into one. Convolutions with a fused 2x2 pool are left alone (the steps would run before
// the pool). The CPU path's pass: oneDNN runs the steps inside the convolution; the Vulkan conv
// kernels have no post-ops and would decline the node.
#pragma once
#include "core/graph.h"

namespace vx {

Graph fuse_conv_post_ops(Graph graph);

}  // namespace vx

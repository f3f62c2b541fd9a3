// The excitation of a squeeze-and-excitation block -> vx.Excite (ops/fused_ops.h): on Vulkan its
// two 1x1 convolutions, their activations and the scaling of the block's input run as one or two
// dispatches instead of three, each ~5 us on the H200 however small (MobileNetV3 has 8 such
// blocks, PaddleOCR's models 5-13). Matched, after the conv fusions (fuse_conv_bias_relu,
// fuse_conv_post_ops): Mul(X, S) in either order, S = vx.FusedConv(H, W2, B2) and H =
// vx.FusedConv(P, W1, B1), both 1x1 with group 1, unit strides and dilations, no pads, pool or
// upsample_concat, H's conv without post-ops; P = GlobalAveragePool(X); H and S read by nothing
// else; X of known shape [N, C, ...] (rank >= 3), S [N, C, 1...], all f32. An Add reading only the
// Mul's output, whose other operand has X's shape, joins as the residual (PaddleOCR's RSE layers).
// The GlobalAveragePool stays a node.
#pragma once
#include "core/graph.h"

namespace vx {

Graph fuse_squeeze_excite(Graph graph);

}  // namespace vx

// vx.LayerNorm(vx.FusedMatMul(A, B[, Bias][, Residual]), Scale[, LnBias]) -> vx.FusedMatMul(A, B,
// Bias, Residual, Scale, LnBias) with layer_norm_epsilon (ops/fused_ops.h: the norm over the last
// axis after the epilogue). A transformer's out-projection and second feed-forward product are split
// over K on the GPU and their reduce pass applies the epilogue; a post-norm encoder's LayerNorm after
// them (LN(x + attn(x)), LN(x + FFN(x)), the residual already in the epilogue) then normalises whole
// rows in that pass: one dispatch instead of two per LayerNorm (12 of a 6-layer encoder's 60). The
// product may reach the LayerNorm through a chain of Reshapes (PyTorch's out-projection, [T, E] ->
// [T, 1, E]), each of known output shape keeping the product's last extent N: they stay, after the
// fused node, and the last of them writes the LayerNorm's output. Only when the product (f32, of
// known shape) and every value of the chain are read by the next node alone and are no graph
// outputs, the FusedMatMul has no norm yet, and the norm's Scale and Bias (if any) are known [N]
// vectors. For the Vulkan path (optimize_for_vulkan, last of its fusions: after fuse_matmul_residual
// and matmul_column_panels, whose patterns end at the product).
#pragma once
#include "core/graph.h"

namespace vx {

Graph fuse_matmul_layer_norm(Graph graph);

}  // namespace vx

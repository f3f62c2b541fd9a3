// The graph passes of the Vulkan backend: dead nodes, constant folding, dilated Conv kernels cropped
// to the taps that reach the input, Conv+BatchNormalization folding, fuse_conv_bias_relu (Conv +
// Relu -> vx.FusedConv), fuse_gelu, fuse_layer_norm, fuse_attention, untranspose_attention_keys,
// fold_attention_transposes, fuse_matmul_bias_act, gemm_as_fused_matmul and fuse_matmul_residual
// (only when vulkan_runs_fused_matmul()), dead nodes again.
#pragma once
#include "core/graph.h"

namespace vx::vk {

void optimize_for_vulkan(Graph& graph);
// Whether a Vulkan kernel is registered for vx.FusedMatMul (else optimize_for_vulkan leaves
// MatMul + bias + activation unfused, so that they stay on the GPU).
bool vulkan_runs_fused_matmul();

}  // namespace vx::vk

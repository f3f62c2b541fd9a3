// The graph passes of the Vulkan backend (optimize_for_vulkan.cpp lists them in order, each with
// why): constant folding, the convolution fusions (BatchNormalization folding, bias and
// activation, residual, post-ops, squeeze-and-excitation, the denoiser's upsample-concat and pool),
// the transformer fusions (Gelu, LayerNorm, attention and its Transposes), elementwise chains, and,
// only when vulkan_runs_fused_matmul(), the vx.FusedMatMul ones (bias and activation, Gemm,
// residual, the packed QKV's column panels, a LayerNorm after the product); dead nodes before and
// after.
#pragma once
#include "core/graph.h"

namespace vx::vk {

void optimize_for_vulkan(Graph& graph);
// Whether a Vulkan kernel is registered for vx.FusedMatMul (else optimize_for_vulkan leaves
// MatMul + bias + activation unfused, so that they stay on the GPU).
bool vulkan_runs_fused_matmul();

}  // namespace vx::vk

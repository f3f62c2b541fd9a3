// Gemm(A, B, C) -> vx.FusedMatMul(A, B', C) with activation "none" (ops/fused_ops.h), so that the
// fusions after it see a Gemm as the MatMul it is: fuse_matmul_residual then takes the residual
// Add after a transformer's out-projection (PyTorch exports nn.Linear on a 2-D input as Gemm).
// Matched: transA = 0, alpha = 1, A f32 of rank 2, B a rank-2 f32 constant (with transB = 1, B'
// is a new constant holding its transpose [K, N]), and C absent or, with beta = 1, an f32
// constant [N]. Any other Gemm stays. For the Vulkan path only (optimize_for_vulkan, before
// fuse_matmul_residual).
#pragma once
#include "core/graph.h"

namespace vx {

Graph gemm_as_fused_matmul(Graph graph);

}  // namespace vx

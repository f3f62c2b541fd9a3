// Add(vx.FusedMatMul(A, B[, Bias]) with activation "none", R) -> vx.FusedMatMul(A, B, Bias, R): the
// residual joins the GEMM epilogue (ops/fused_ops.h: Y = act(MatMul + Bias + Residual)), so a
// transformer's residual Adds cost no dispatch of their own. Only when the product is read by the
// Add alone and R's shape (known) broadcasts onto the product's without enlarging it. The product
// may also reach the Add through a chain of Reshapes, each value read by the next node alone (a
// transformer's out-projection, [T, E] -> [T, 1, E]), when R has exactly the Add's shape and the
// product's element count: then Reshape(R) joins the epilogue and one Reshape to the Add's shape
// follows. For the Vulkan path (optimize_for_vulkan, after fuse_matmul_bias_act and
// gemm_as_fused_matmul); the CPU's oneDNN kernel declines such nodes (the reference kernel runs
// them).
#pragma once
#include "core/graph.h"

namespace vx {

Graph fuse_matmul_residual(Graph graph);

}  // namespace vx

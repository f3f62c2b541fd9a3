// A product whose columns are cut into P equal panels right after it is computed as a batch of P
// panel products, so that each panel is a contiguous run of the output and the cut costs nothing:
//   vx.FusedMatMul(A, B [K, P*E], Bias) -> Split(last axis, P equal parts)              (PyTorch 1.x's
//       packed QKV: chunk(3, -1))
//   vx.FusedMatMul(A, B, Bias) -> Reshape/Unsqueeze/Squeeze... -> Transpose moving the panel axis
//       to the front                                                                     (PyTorch 2.x:
//       unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2))
// become vx.FusedMatMul(Reshape(A, [R, K]), B' [P, K, E], -, Residual [P, 1, E]) = Y' [P, R, E]
// (R the product's rows; the bias rides as a broadcast residual, which adds in the same place of
// the epilogue), and each Split output a Gather of panel p by a constant index plus a Reshape, the
// Transpose a Reshape. On Vulkan those are aliases: a transformer layer loses the copy that split
// its Q, K and V (one dependent dispatch and its barrier). B must be a constant f32 matrix, the
// Bias absent or a constant vector, the product read by the cut alone, every shape known; at most
// 8 panels of at least 4 columns.
// Vulkan path only (optimize_for_vulkan, after fuse_matmul_residual and merge_sibling_slices):
// the CPU's oneDNN kernel declines a FusedMatMul with a residual.
#pragma once
#include "core/graph.h"

namespace vx {

Graph matmul_column_panels(Graph graph);

}  // namespace vx

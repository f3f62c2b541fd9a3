// Weight-only int8 for matrix products -> vx.MatMulInt8W (ops/fused_ops.h).
//
// quantize_weights_int8 (opt-in, lossy): every MatMul, vx.FusedMatMul, and Gemm (transA 0, alpha 1,
// beta 1, C absent or a constant [N] vector) whose B is a constant float matrix [K, N] of at least
// `min_elements` values gets B replaced by round(B / s) in int8 with one scale per output column,
// s[n] = max_k |B[k, n]| / 127 (so each weight's error is at most s[n] / 2); bias and activation carry over.
//
// fuse_dequantize_matmul (exact): DequantizeLinear(Wq, scale[, zero_point]) feeding only input B of
// MatMuls, with Wq a constant int8 matrix, the scale a constant scalar or per-column vector (axis 1
// or -1) and the zero point absent or all zero, becomes vx.MatMulInt8W reading Wq directly.
#pragma once
#include <cstdint>

#include "core/graph.h"

namespace vx {

Graph quantize_weights_int8(Graph graph, int64_t min_elements = 4096);
Graph fuse_dequantize_matmul(Graph graph);

}  // namespace vx

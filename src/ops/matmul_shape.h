// numpy.matmul's shapes, as ONNX MatMul, MatMulInteger, QLinearMatMul and vx.FusedMatMul define
// them: a 1-D A is read as [1, K] and a 1-D B as [K, 1], and that axis is dropped from the
// output; the batch axes (all but the last two) broadcast right-aligned. The shape function and
// the kernels read it, so that they agree on shapes, messages and which matrices pair up.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/attribute.h"
#include "core/shape.h"

namespace vx {

struct MatMulShape {
  int64_t m = 1, k = 1, n = 1;
  Shape a_batch, b_batch;  // each operand's batch extents, 1-padded on the left to batch's rank
  Shape batch;             // the broadcast batch extents
  Shape out;               // batch, then M unless A is 1-D, then N unless B is 1-D
};

// Throws InvalidArgument, its message prefixed by `what`, for a scalar operand, inner extents
// that differ or batch extents that do not broadcast.
MatMulShape matmul_shape(const Shape& a, const Shape& b, const std::string& what);

// ONNX Gemm's shapes: A is [M, K] ([K, M] with transA), B is [K, N] ([N, K] with transB), Y [M, N].
struct GemmShape {
  int64_t m = 1, k = 1, n = 1;
  bool trans_a = false, trans_b = false;
};

// Reads transA / transB from `attrs`. Throws InvalidArgument, its message prefixed by `what`, when
// A or B is not a matrix or their inner extents differ.
GemmShape gemm_shape(const Shape& a, const Shape& b, const Attributes& attrs, const std::string& what);

// Per batch, row-major over `s.batch`: the element offsets of its A and B matrices in the
// row-major operands (a broadcast axis reuses the same matrix). Empty when a batch extent is 0.
std::vector<std::array<int64_t, 2>> matmul_batch_offsets(const MatMulShape& s);

}  // namespace vx

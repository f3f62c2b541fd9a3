// The ops layer's shared shape logic (src/ops/): what the CPU reference, the Vulkan kernels and the
// shape functions all read, so a mistake here would agree with itself across backends.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "ops/einsum_equation.h"
#include "ops/matmul_shape.h"
#include "ops/shape_rules.h"

namespace vx {
namespace {

// The message of the InvalidArgument that `fn` throws ("" and a test failure when it does not).
std::string ops_test_invalid_argument(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error thrown";
  return "";
}

TEST(EinsumEquation, MatrixProductLabelsExtentsAndStrides) {
  const EinsumEquation eq = parse_einsum_equation("ij, jk -> ik", {Shape{2, 3}, Shape{3, 4}}, "Einsum 'e'");
  EXPECT_EQ(eq.labels, (std::vector<int>{'i', 'k', 'j'}));  // output labels, then the summed one
  EXPECT_EQ(eq.output_rank, 2u);
  EXPECT_EQ(eq.extents, (std::vector<int64_t>{2, 4, 3}));
  EXPECT_EQ(eq.strides[0], (std::vector<int64_t>{3, 0, 1}));  // A [2, 3]: i, (no k), j
  EXPECT_EQ(eq.strides[1], (std::vector<int64_t>{0, 1, 4}));  // B [3, 4]: (no i), k, j
  EXPECT_EQ(eq.output_shape(), (Shape{2, 4}));
  EXPECT_EQ(eq.summed_count(), 3);
}

TEST(EinsumEquation, ImplicitOutputIsTheLettersSeenOnceSorted) {
  const EinsumEquation eq = parse_einsum_equation("kj,ji", {Shape{4, 3}, Shape{3, 2}}, "Einsum 'e'");
  EXPECT_EQ(eq.output_rank, 2u);
  EXPECT_EQ(eq.output_shape(), (Shape{2, 4}));  // "ik"
}

TEST(EinsumEquation, RepeatedLabelWalksTheDiagonal) {
  const EinsumEquation trace = parse_einsum_equation("ii", {Shape{3, 3}}, "Einsum 'e'");
  EXPECT_EQ(trace.output_rank, 0u);
  EXPECT_EQ(trace.output_shape(), Shape{});
  EXPECT_EQ(trace.strides[0], (std::vector<int64_t>{4}));  // row + column stride
  const EinsumEquation diag = parse_einsum_equation("ii->i", {Shape{3, 3}}, "Einsum 'e'");
  EXPECT_EQ(diag.output_shape(), (Shape{3}));
  EXPECT_EQ(diag.summed_count(), 1);
}

TEST(EinsumEquation, EllipsisAxesBroadcastRightAligned) {
  const EinsumEquation eq =
      parse_einsum_equation("...ij,...jk->...ik", {Shape{2, 1, 2, 3}, Shape{5, 3, 4}}, "Einsum 'e'");
  EXPECT_EQ(eq.output_shape(), (Shape{2, 5, 2, 4}));
  EXPECT_EQ(eq.labels[0], kEinsumEllipsis);
  EXPECT_EQ(eq.labels[1], kEinsumEllipsis + 1);
  EXPECT_EQ(eq.strides[0][0], 6);  // A's first batch axis
  EXPECT_EQ(eq.strides[0][1], 0);  // A broadcasts its extent 1 against B's 5
  EXPECT_EQ(eq.strides[1][0], 0);  // B lacks the first batch axis
  EXPECT_EQ(eq.strides[1][1], 12);
}

TEST(EinsumEquation, MalformedEquationsNameTheNodeAndTheProblem) {
  auto message = [](const std::string& equation, std::vector<Shape> shapes) {
    return ops_test_invalid_argument([&] { parse_einsum_equation(equation, shapes, "Einsum 'e'"); });
  };
  EXPECT_EQ(message("i1,jk", {Shape{2, 2}, Shape{2, 2}}), "Einsum 'e': bad label '1' in the equation");
  EXPECT_EQ(message("..i", {Shape{2}}), "Einsum 'e': malformed ellipsis in '..i'");
  EXPECT_EQ(message("ij,jk->ik", {Shape{2, 3}}),
            "Einsum 'e': the equation 'ij,jk->ik' names 2 operands but the node has 1 inputs");
  EXPECT_EQ(message("ij->i", {Shape{2, 3, 4}}),
            "Einsum 'e': operand 0 has rank 3, which does not fit the equation 'ij->i'");
  EXPECT_EQ(message("ij,jk->ik", {Shape{2, 3}, Shape{4, 5}}), "Einsum 'e': label extents disagree (3 vs 4)");
  EXPECT_EQ(message("ij->ik", {Shape{2, 3}}), "Einsum 'e': output label 'k' is in no operand");
  // Only ellipsis axes broadcast: a letter of extent 1 does not stretch.
  EXPECT_EQ(message("ij,ij->ij", {Shape{1, 3}, Shape{2, 3}}), "Einsum 'e': label extents disagree (1 vs 2)");
}

TEST(MatMulShape, BatchAxesBroadcastRightAligned) {
  const MatMulShape s = matmul_shape(Shape{2, 1, 3, 4}, Shape{5, 4, 6}, "MatMul 'm'");
  EXPECT_EQ(s.m, 3);
  EXPECT_EQ(s.k, 4);
  EXPECT_EQ(s.n, 6);
  EXPECT_EQ(s.a_batch, (Shape{2, 1}));
  EXPECT_EQ(s.b_batch, (Shape{1, 5}));  // padded on the left
  EXPECT_EQ(s.batch, (Shape{2, 5}));
  EXPECT_EQ(s.out, (Shape{2, 5, 3, 6}));
}

TEST(MatMulShape, VectorOperandsLoseTheirPromotedAxis) {
  EXPECT_EQ(matmul_shape(Shape{4}, Shape{4, 6}, "m").out, (Shape{6}));
  EXPECT_EQ(matmul_shape(Shape{3, 4}, Shape{4}, "m").out, (Shape{3}));
  EXPECT_EQ(matmul_shape(Shape{4}, Shape{4}, "m").out, Shape{});
  EXPECT_EQ(matmul_shape(Shape{7, 3, 4}, Shape{4}, "m").out, (Shape{7, 3}));
  const MatMulShape s = matmul_shape(Shape{4}, Shape{2, 4, 6}, "m");
  EXPECT_EQ(s.m, 1);
  EXPECT_EQ(s.out, (Shape{2, 6}));
}

TEST(MatMulShape, ZeroBatchExtentBroadcastsToZero) {
  // 1 against 0 is 0, as in numpy (max() would say 1).
  const MatMulShape s = matmul_shape(Shape{0, 2, 3}, Shape{1, 3, 4}, "m");
  EXPECT_EQ(s.out, (Shape{0, 2, 4}));
  EXPECT_TRUE(matmul_batch_offsets(s).empty());
}

TEST(MatMulShape, BatchOffsetsReuseBroadcastMatrices) {
  // A [2, 1, 3, 4] (matrices of 12), B [3, 4, 5] (matrices of 20): batch [2, 3], row-major.
  const MatMulShape s = matmul_shape(Shape{2, 1, 3, 4}, Shape{3, 4, 5}, "m");
  const std::vector<std::array<int64_t, 2>> expected = {{0, 0},  {0, 20},  {0, 40},
                                                        {12, 0}, {12, 20}, {12, 40}};
  EXPECT_EQ(matmul_batch_offsets(s), expected);
  // No batch axes: one product at offset 0.
  EXPECT_EQ(matmul_batch_offsets(matmul_shape(Shape{3, 4}, Shape{4, 5}, "m")),
            (std::vector<std::array<int64_t, 2>>{{0, 0}}));
}

TEST(MatMulShape, InconsistentOperandsNameTheNodeAndTheShapes) {
  auto message = [](const Shape& a, const Shape& b) {
    return ops_test_invalid_argument([&] { matmul_shape(a, b, "MatMul 'm'"); });
  };
  EXPECT_EQ(message(Shape{}, Shape{3}), "MatMul 'm': operands must have rank >= 1, got [] and [3]");
  EXPECT_EQ(message(Shape{2, 3}, Shape{4, 5}), "MatMul 'm': inner extents differ in [2, 3] x [4, 5]");
  EXPECT_EQ(message(Shape{2, 3, 4}, Shape{3, 4, 5}),
            "MatMul 'm': batch extents of [2, 3, 4] and [3, 4, 5] do not broadcast");
}

TEST(GemmShape, TransposesReadTheOtherAxis) {
  Attributes plain, both;
  both.set("transA", int64_t(1));
  both.set("transB", int64_t(1));
  const GemmShape s = gemm_shape(Shape{5, 3}, Shape{3, 7}, plain, "Gemm 'g'");
  EXPECT_EQ(std::vector<int64_t>({s.m, s.k, s.n}), std::vector<int64_t>({5, 3, 7}));
  const GemmShape t = gemm_shape(Shape{3, 5}, Shape{7, 3}, both, "Gemm 'g'");
  EXPECT_EQ(std::vector<int64_t>({t.m, t.k, t.n}), std::vector<int64_t>({5, 3, 7}));
  EXPECT_TRUE(t.trans_a && t.trans_b);
  EXPECT_EQ(ops_test_invalid_argument([&] { gemm_shape(Shape{5, 3}, Shape{4, 7}, plain, "Gemm 'g'"); }),
            "Gemm 'g': inner extents of A [5, 3] and B [4, 7] differ (3 vs 4)");
  EXPECT_EQ(ops_test_invalid_argument([&] { gemm_shape(Shape{5}, Shape{5, 7}, plain, "Gemm 'g'"); }),
            "Gemm 'g': operands must be matrices, got [5] and [5, 7]");
}

TEST(ShapeRules, BroadcastingAlignsTrailingAxes) {
  EXPECT_EQ(broadcast_shapes(Shape{4, 1, 3}, Shape{5, 1}), Shape({4, 5, 3}));
  EXPECT_EQ(broadcast_shapes({Shape{}, Shape{2, 1}, Shape{3}}), Shape({2, 3}));
  EXPECT_EQ(broadcast_shapes(Shape{0, 1}, Shape{1, 4}), Shape({0, 4}));
  EXPECT_EQ(ops_test_invalid_argument([] { broadcast_shapes(Shape{2, 3}, Shape{4}, "Add 'a'"); }),
            "Add 'a': shapes [2, 3] and [4] cannot be broadcast together");
  EXPECT_EQ(broadcast_strides(Shape{3, 1}, Shape{2, 3, 4}), std::vector<int64_t>({0, 1, 0}));
  EXPECT_EQ(broadcast_strides(Shape{2, 3, 4}, Shape{2, 3, 4}), std::vector<int64_t>({12, 4, 1}));
  EXPECT_EQ(ops_test_invalid_argument([] { broadcast_strides(Shape{2, 3}, Shape{3}); }),
            "shape [2, 3] cannot be broadcast to [3]");
  EXPECT_EQ(row_major_strides(Shape{2, 3, 4}), std::vector<int64_t>({12, 4, 1}));
  EXPECT_TRUE(row_major_strides(Shape{}).empty());
}

TEST(ShapeRules, NegativeAxesCountFromTheEnd) {
  EXPECT_EQ(normalize_axis(-1, 3), 2);
  EXPECT_EQ(normalize_axis(0, 3), 0);
  EXPECT_EQ(normalize_axis(-3, 3), 0);
  EXPECT_EQ(ops_test_invalid_argument([] { normalize_axis(3, 3, "Softmax 's'"); }),
            "Softmax 's': axis 3 is out of range for rank 3");
  EXPECT_EQ(ops_test_invalid_argument([] { normalize_axis(0, 0); }), "axis 0 is out of range for rank 0");
}

}  // namespace
}  // namespace vx

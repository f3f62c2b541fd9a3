// The Vulkan MatMulInteger and QLinearMatMul against the CPU reference kernels on lavapipe with
// validation on: uint8 and int8, scalar / per-row / per-column zero points, broadcast batches,
// vector operands. Integer outputs are compared exactly (the requantisation's fp32 multiplier is
// formed as on the CPU).
#include <gtest/gtest.h>

#include <cmath>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx::test {
namespace {

using vk::Precision;

class VulkanQMatMul : public VulkanOpTest {};

TEST_F(VulkanQMatMul, MatMulIntegerShapesAndZeroPoints) {
  uint64_t seed = 1;
  const std::vector<std::pair<Shape, Shape>> shapes = {{Shape{3, 5}, Shape{5, 4}},       {Shape{2, 1, 3, 5}, Shape{3, 5, 2}},
                                                       {Shape{5}, Shape{5, 3}},          {Shape{4, 5}, Shape{5}},
                                                       {Shape{1, 7}, Shape{7, 1}}};
  for (const auto& [sa, sb] : shapes)
    for (DType t : {DType::u8, DType::i8}) {
      const int lo = t == DType::u8 ? 0 : -128, hi = t == DType::u8 ? 255 : 127;
      Tensor a = test::random_int_tensor(sa, seed++, lo, hi, t), b = test::random_int_tensor(sb, seed++, lo, hi, t);
      expect_matches_cpu(single_node("MatMulInteger", {input(a), input(b)}, 1, {}, 10), Precision::fp32, {-1, -1},
                         false, cat("MatMulInteger ", sa.str(), " x ", sb.str(), " no zero points"));
      expect_matches_cpu(single_node("MatMulInteger", {input(a), input(b), input(test::random_int_tensor(Shape{}, seed++, lo, hi, t)),
                                                       input(test::random_int_tensor(Shape{}, seed++, lo, hi, t))},
                                     1, {}, 10),
                         Precision::fp32, {-1, -1}, false, cat("MatMulInteger ", sa.str(), " x ", sb.str(), " scalar zero points"));
      if (sa.rank() == 2 && sb.rank() == 2)
        expect_matches_cpu(single_node("MatMulInteger", {input(a), input(b), input(test::random_int_tensor(Shape{sa[0]}, seed++, lo, hi, t)),
                                                         input(test::random_int_tensor(Shape{sb[1]}, seed++, lo, hi, t))},
                                       1, {}, 10),
                           Precision::fp32, {-1, -1}, false, cat("MatMulInteger ", sa.str(), " per-row/column zero points"));
    }
}

TEST_F(VulkanQMatMul, QLinearMatMulRequantises) {
  uint64_t seed = 100;
  for (DType t : {DType::u8, DType::i8})
    for (Precision p : {Precision::fp32, Precision::fp16}) {
      const int lo = t == DType::u8 ? 0 : -128, hi = t == DType::u8 ? 255 : 127;
      auto c = single_node("QLinearMatMul",
                           {input(test::random_int_tensor(Shape{2, 3, 6}, seed++, lo, hi, t)), input(Tensor::from<float>({}, {0.0625f})),
                            input(test::random_int_tensor(Shape{}, seed++, lo, hi, t)), input(test::random_int_tensor(Shape{6, 5}, seed++, lo, hi, t)),
                            input(Tensor::from<float>({}, {0.03125f})), input(test::random_int_tensor(Shape{}, seed++, lo, hi, t)),
                            input(Tensor::from<float>({}, {0.5f})), input(test::random_int_tensor(Shape{}, seed++, lo, hi, t))},
                           1, {}, 10);
      expect_matches_cpu(c, p, {-1, -1}, false, cat("QLinearMatMul ", dtype_name(t)));
    }
}

}  // namespace
}  // namespace vx::test

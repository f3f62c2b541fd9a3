// The Vulkan QuantizeLinear / DequantizeLinear / DynamicQuantizeLinear against the CPU reference
// kernels on lavapipe with validation on: uint8 / int8 / int32 targets, scalar and per-axis
// parameters, ties (round half to even), saturation. Quantized values are compared exactly; floats
// with fp32 |d| <= 1e-6 + 1e-5 |ref| and fp16 storage |d| <= 1e-3 + 1e-2 |ref|.
#include <gtest/gtest.h>

#include <cmath>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx::test {
namespace {

using vk::Precision;

class VulkanQuantize : public VulkanOpTest {};

// Values with exact halves after dividing by 2 (ties), beyond both saturation ends, and random.
Tensor quantize_input(Shape shape, uint64_t seed) {
  Tensor x = random_tensor(shape, seed, -400, 400);
  const float special[] = {3.0f, 5.0f, -3.0f, -5.0f, 1.0f, 1000.0f, -1000.0f, 0.0f};
  for (int64_t i = 0; i < std::min<int64_t>(8, x.numel()); ++i) x.data<float>()[i] = special[i];
  return x;
}

TEST_F(VulkanQuantize, QuantizeScalarAndPerAxis) {
  Tensor x = quantize_input(Shape{2, 3, 5}, 1);
  for (DType t : {DType::u8, DType::i8, DType::i32}) {
    const int lo = t == DType::u8 ? 0 : -20, hi = t == DType::u8 ? 40 : 20;
    for (Precision p : {Precision::fp32, Precision::fp16}) {
      auto scalar = single_node("QuantizeLinear", {input(x), input(Tensor::from<float>({}, {2.0f})),
                                                   input(test::random_int_tensor(Shape{}, 2, lo, hi, t))},
                                1, {}, 13);
      expect_matches_cpu(scalar, p, {-1, -1}, false, cat("QuantizeLinear scalar to ", dtype_name(t)));
      Attributes a;
      a.set("axis", int64_t(1));
      auto per_axis = single_node("QuantizeLinear", {input(x), input(Tensor::from<float>({3}, {2.0f, 0.5f, 4.0f})),
                                                     input(test::random_int_tensor(Shape{3}, 3, lo, hi, t))},
                                  1, a, 13);
      expect_matches_cpu(per_axis, p, {-1, -1}, false, cat("QuantizeLinear per-axis to ", dtype_name(t)));
    }
  }
  expect_matches_cpu(single_node("QuantizeLinear", {input(x), input(Tensor::from<float>({}, {3.0f}))}, 1, {}, 13),
                     Precision::fp32, {-1, -1}, false, "QuantizeLinear without zero point (uint8)");
}

TEST_F(VulkanQuantize, DequantizeScalarAndPerAxis) {
  for (DType t : {DType::u8, DType::i8, DType::i32}) {
    const int lo = t == DType::u8 ? 0 : -128, hi = t == DType::u8 ? 255 : 127;
    Tensor q = test::random_int_tensor(Shape{3, 4, 2}, 10, lo, hi, t);
    for (Precision p : {Precision::fp32, Precision::fp16}) {
      expect_matches_cpu(single_node("DequantizeLinear", {input(q), input(Tensor::from<float>({}, {0.25f})),
                                                          input(test::random_int_tensor(Shape{}, 11, lo / 4, hi / 4, t))},
                                     1, {}, 13),
                         p, {-1, -1}, false, cat("DequantizeLinear scalar from ", dtype_name(t)));
      Attributes a;
      a.set("axis", int64_t(-2));
      expect_matches_cpu(single_node("DequantizeLinear", {input(q), input(random_tensor(Shape{4}, 12, 0.01f, 2)),
                                                          input(test::random_int_tensor(Shape{4}, 13, lo / 4, hi / 4, t))},
                                     1, a, 13),
                         p, {-1, -1}, false, cat("DequantizeLinear per-axis from ", dtype_name(t)));
    }
  }
}

TEST_F(VulkanQuantize, DynamicQuantize) {
  const std::vector<std::pair<float, float>> ranges = {{-3, 7}, {0.5f, 9}, {-6, -1}, {-1e-3f, 2e-3f}};
  uint64_t seed = 20;
  for (auto [lo, hi] : ranges)
    for (Shape s : {Shape{7}, Shape{3, 301}}) {
      auto c = single_node("DynamicQuantizeLinear", {input(random_tensor(s, seed++, lo, hi))}, 3, {}, 11);
      expect_matches_cpu(c, Precision::fp32, {-1, -1}, false, cat("DynamicQuantizeLinear [", lo, ", ", hi, "] ", s.str()));
    }
  // All zeros: scale 0, zero point 0.
  expect_matches_cpu(single_node("DynamicQuantizeLinear", {input(Tensor(DType::f32, Shape{5}))}, 3, {}, 11),
                     Precision::fp32, {-1, -1}, false, "DynamicQuantizeLinear zeros");
}

}  // namespace
}  // namespace vx::test

// The Vulkan generators (ConstantOfShape, Range, Hann/Hamming/Blackman windows) and selectors
// (OneHot, Trilu) against the CPU reference kernels on lavapipe with
// validation on, at odd shapes, fp32 and fp16 storage, integer types.
//
// Tolerances: fp32 |d| <= 1e-6 + 1e-5 |ref| (windows: cos in f32 against the CPU's double,
// |d| <= 1e-6 absolute); fp16 storage |d| <= 1e-3 + 1e-2 |ref|; integers exact.
#include <gtest/gtest.h>

#include <cmath>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx::test {
namespace {

using vk::Precision;

class VulkanGenerate : public VulkanOpTest {};

TEST_F(VulkanGenerate, ConstantOfShapeFloatAndInt) {
  Attributes a;
  a.set("value", Tensor::from<float>({1}, {2.5f}));
  for (Precision p : {Precision::fp32, Precision::fp16})
    expect_matches_cpu(single_node("ConstantOfShape", {constant(Tensor::from<int64_t>({3}, {2, 3, 5}))}, 1, a), p);
  expect_matches_cpu(single_node("ConstantOfShape", {constant(Tensor::from<int64_t>({2}, {7, 1}))}), Precision::fp32,
                     {-1, -1}, false, "ConstantOfShape default");
  Attributes ai;
  ai.set("value", Tensor::from<int32_t>({1}, {-7}));
  expect_matches_cpu(single_node("ConstantOfShape", {constant(Tensor::from<int64_t>({2}, {3, 4}))}, 1, ai),
                     Precision::fp32, {-1, -1}, false, "ConstantOfShape int32");
}

TEST_F(VulkanGenerate, RangeFloatAndInt32) {
  for (Precision p : {Precision::fp32, Precision::fp16}) {
    // Values exact in fp16: the length must not change with the rounding.
    expect_matches_cpu(single_node("Range", {input(Tensor::from<float>({}, {1.5f})), input(Tensor::from<float>({}, {9.25f})),
                                             input(Tensor::from<float>({}, {0.75f}))}),
                       p, {-1, -1}, false, "Range up");
    expect_matches_cpu(single_node("Range", {input(Tensor::from<float>({}, {3.0f})), input(Tensor::from<float>({}, {-4.0f})),
                                             input(Tensor::from<float>({}, {-1.25f}))}),
                       p, {-1, -1}, false, "Range down");
  }
  expect_matches_cpu(single_node("Range", {input(Tensor::from<int32_t>({}, {-5})), input(Tensor::from<int32_t>({}, {30})),
                                           input(Tensor::from<int32_t>({}, {3}))}),
                     Precision::fp32, {-1, -1}, false, "Range int32");
}

TEST_F(VulkanGenerate, Windows) {
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"})
    for (int64_t periodic : {0, 1})
      for (int64_t n : {1, 10, 33}) {
        Attributes a;
        a.set("periodic", periodic);
        auto c = single_node(op, {constant(Tensor::from<int64_t>({}, {n}))}, 1, a, 17);
        expect_matches_cpu(c, Precision::fp32, {1e-5, 1e-6}, false, cat(op, " n=", n, " periodic=", periodic));
        expect_matches_cpu(c, Precision::fp16, {-1, -1}, false, cat(op, " n=", n, " periodic=", periodic));
      }
}

TEST_F(VulkanGenerate, OneHotAxesIndexTypesAndNegativeIndices) {
  Tensor idx = test::random_int_tensor(Shape{2, 3}, 2, -5, 6);
  Tensor fidx = random_tensor(Shape{4}, 3, -3.9f, 7.9f);
  for (int64_t axis : {-1, 0, 1, 2}) {
    Attributes a;
    a.set("axis", axis);
    for (Precision p : {Precision::fp32, Precision::fp16}) {
      expect_matches_cpu(single_node("OneHot", {input(idx), constant(Tensor::from<int64_t>({}, {5})),
                                                input(Tensor::from<float>({2}, {-1.5f, 3.0f}))},
                                     1, a, 11),
                         p, {-1, -1}, false, cat("OneHot int indices axis ", axis));
      if (axis <= 1)
        expect_matches_cpu(single_node("OneHot", {input(fidx), constant(Tensor::from<float>({}, {6.0f})),
                                                  input(Tensor::from<int64_t>({2}, {0, 9}))},
                                       1, a, 11),
                           p, {-1, -1}, false, cat("OneHot float indices, int values, axis ", axis));
    }
  }
}

TEST_F(VulkanGenerate, TriluUpperLowerWithK) {
  Tensor x = random_tensor(Shape{2, 3, 5, 4}, 4);
  for (int64_t upper : {0, 1})
    for (int64_t k : {-7, -1, 0, 2, 9}) {
      Attributes a;
      a.set("upper", upper);
      for (Precision p : {Precision::fp32, Precision::fp16})
        expect_matches_cpu(single_node("Trilu", {input(x), input(Tensor::from<int64_t>({}, {k}))}, 1, a, 14), p,
                           {-1, -1}, false, cat("Trilu upper=", upper, " k=", k));
    }
  expect_matches_cpu(single_node("Trilu", {input(test::random_int_tensor(Shape{4, 6}, 5, -9, 9, DType::i32))}, 1, {}, 14),
                     Precision::fp32, {-1, -1}, false, "Trilu int32 without k");
}

}  // namespace
}  // namespace vx::test

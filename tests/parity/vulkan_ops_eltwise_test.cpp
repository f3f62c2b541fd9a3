// What the op table (tests/ops/) does not state for the Vulkan element-wise ops: Gelu in both
// forms, Erf over a dense sweep of its range with a tighter tolerance, and the shapes that select
// the fast paths of the binary float ops (eltwise_fast.comp). On lavapipe with the validation layer
// (any message fails). Tolerances: vulkan_op_test_util.h unless stated.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/vulkan/vk_common.h"
#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "ops/fused_ops.h"

namespace vx::test {
namespace {

class VulkanEltwise : public VulkanOpTest {};

TEST_F(VulkanEltwise, GeluBothForms) {
  for (const char* form : {"none", "tanh"}) {
    Attributes a;
    a.set("approximate", std::string(form));
    auto c = single_node(kGelu, {input(test::random_tensor({7, 33}, 9, -6.0f, 6.0f))}, 1, a);
    expect_matches_cpu(c, Precision::fp32, {-1, -1}, false, form);
    expect_matches_cpu(c, Precision::fp16, {-1, -1}, false, form);
  }
}

TEST_F(VulkanEltwise, ErfAcrossItsRange) {
  // erf's two approximation intervals meet at 0.9277; large arguments saturate to +-1.
  std::vector<float> x;
  for (int i = -3000; i <= 3000; ++i) x.push_back(float(i) * 0.003f);
  for (float big : {5.0f, 9.0f, 1e10f, -1e10f, 1e-30f, -1e-20f, 0.0f}) x.push_back(big);
  Tensor t = Tensor(DType::f32, Shape{int64_t(x.size())});
  std::copy(x.begin(), x.end(), t.data<float>());
  expect_matches_cpu(single_node("Erf", {input(t)}), Precision::fp32, {2e-6, 2e-7});
}

TEST_F(VulkanEltwise, BinaryFastPaths) {
  struct Case {
    const char* op;
    Shape a, b;
  };
  const Case cases[] = {
      {"Add", {5, 7, 3}, {5, 7, 3}},     // same shape, 105 elements (a partial group of 4)
      {"Add", {128, 24}, {24}},          // bias row, vector loads
      {"Sub", {6, 7}, {7}},              // bias row of odd length
      {"Mul", {3}, {4, 5, 3}},           // the row on the left
      {"Div", {4, 5, 9}, {4, 5, 1}},     // a column
      {"Div", {4, 5, 8}, {4, 5, 1}},     // a column of rows of 8 (one value per group)
      {"Mul", {2, 3, 4, 5}, {3, 1, 1}},  // a middle axis
      {"Add", {2, 3, 4, 5}, {}},         // a scalar
      {"Sub", {1}, {2, 9}},              // a scalar on the left
      {"Max", {2, 1, 4}, {2, 3, 4}},     // two broadcast blocks: the generic kernel
      {"Min", {9, 11}, {11}},
      {"Add", {1, 1}, {1, 1}},
  };
  for (const Case& c : cases) {
    auto node = single_node(c.op, {input(test::random_tensor(c.a, 31, -2.0f, 2.0f)),
                                   input(test::random_tensor(c.b, 32, 0.5f, 2.0f))});
    const std::string what = cat(c.op, " ", c.a.str(), " ", c.b.str());
    expect_matches_cpu(node, Precision::fp32, {-1, -1}, false, what);
    expect_matches_cpu(node, Precision::fp16, {-1, -1}, false, what);
  }
  // NaN propagation of Min / Max and PRelu's slope row.
  Tensor a = test::random_tensor({3, 8}, 40);
  a.data<float>()[5] = std::numeric_limits<float>::quiet_NaN();
  expect_matches_cpu(single_node("Max", {input(a), input(test::random_tensor({8}, 41))}), Precision::fp32);
  expect_matches_cpu(single_node("PRelu", {input(test::random_tensor({4, 6, 10}, 42)), input(test::random_tensor({10}, 43))}),
                     Precision::fp32);
}

}  // namespace
}  // namespace vx::test

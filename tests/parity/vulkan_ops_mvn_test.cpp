// The Vulkan MeanVarianceNormalization against the CPU reference kernel on lavapipe with
// validation on, at odd shapes. Tolerances: fp32 |d| <= 1e-5 + 1e-5 |ref| (f32 sums against
// the CPU's double); fp16 storage |d| <= 1e-3 + 1e-2 |ref|.
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx::test {
namespace {

using vk::Precision;

class VulkanMvn : public VulkanOpTest {};

TEST_F(VulkanMvn, MeanVarianceNormalizationAxes) {
  uint64_t seed = 10;
  const std::vector<std::pair<Shape, std::vector<int64_t>>> cases = {
      {Shape{2, 3, 4, 5}, {0, 2, 3}}, {Shape{2, 3, 4, 5}, {1}}, {Shape{3, 5, 7}, {-1}}, {Shape{3, 5, 7}, {0, 1, 2}}};
  for (const auto& [s, axes] : cases) {
    Attributes a;
    a.set("axes", axes);
    auto c = single_node("MeanVarianceNormalization", {input(random_tensor(s, seed++, -2, 5))}, 1, a, 13);
    expect_matches_cpu(c, Precision::fp32, {1e-4, 1e-5}, false, cat("MVN ", s.str()));
    expect_matches_cpu(c, Precision::fp16, {-1, -1}, false, cat("MVN ", s.str()));
  }
  auto d = single_node("MeanVarianceNormalization", {input(random_tensor(Shape{2, 3, 2, 3}, 20))}, 1, {}, 13);
  expect_matches_cpu(d, Precision::fp32, {1e-4, 1e-5}, false, "MVN default axes");
}

}  // namespace
}  // namespace vx::test

// The Vulkan Det against the CPU reference kernel on lavapipe with validation on: batches of
// matrices from 1x1 to 6x6, a singular one, pivoting. Tolerances: fp32 |d| <= 1e-5 + 1e-4 |ref|
// (fp32 LU against the CPU's double); fp16 storage |d| <= 1e-2 + 1e-2 |ref|.
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx::test {
namespace {

using vk::Precision;

class VulkanDet : public VulkanOpTest {};

TEST_F(VulkanDet, BatchesAndSizes) {
  uint64_t seed = 1;
  for (Shape s : {Shape{1, 1}, Shape{3, 3}, Shape{2, 3, 4, 4}, Shape{5, 6, 6}}) {
    Tensor x = random_tensor(s, seed++);
    auto c = single_node("Det", {input(x)}, 1, {}, 11);
    expect_matches_cpu(c, Precision::fp32, {1e-4, 1e-5}, false, cat("Det ", s.str()));
    expect_matches_cpu(c, Precision::fp16, {1e-2, 1e-2}, false, cat("Det ", s.str()));
  }
  // A singular matrix (two equal rows) and one that needs pivoting (zero leading entry).
  Tensor special = Tensor::from<float>({2, 3, 3}, {1, 2, 3, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 0, 1, 2, 1, 0});
  expect_matches_cpu(single_node("Det", {input(special)}, 1, {}, 11), Precision::fp32, {1e-4, 1e-5}, false,
                     "Det singular / pivoting");
}

}  // namespace
}  // namespace vx::test

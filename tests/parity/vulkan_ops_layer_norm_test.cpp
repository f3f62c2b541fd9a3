// The Vulkan vx.LayerNorm kernel (src/backends/vulkan/kernels/layer_norm.cpp) against the CPU
// reference kernel at odd widths, with and without bias, fp32 and fp16 storage, at the default
// tolerances of tests/common/vulkan_op_test_util.h (fp32 1e-5 / 1e-6, fp16 1e-2 / 1e-3).
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "ops/fused_ops.h"

namespace vx {
namespace {

using test::constant;
using test::input;
using test::single_node;

class VulkanLayerNorm : public test::VulkanOpTest {};

TEST_F(VulkanLayerNorm, LayerNorm) {
  Attributes eps;
  eps.set("epsilon", 1e-3f);
  for (const Shape& s : {Shape{3, 5, 37}, Shape{2, 768}, Shape{1, 1300}, Shape{4, 1}}) {
    const int64_t c = s[s.rank() - 1];
    auto with_bias = single_node(kLayerNorm,
                                 {input(test::random_tensor(s, 1, -3.0f, 5.0f)), constant(test::random_tensor({c}, 2)),
                                  constant(test::random_tensor({c}, 3))},
                                 1, eps);
    expect_matches_cpu(with_bias, Precision::fp32, {-1, -1}, false, s.str());
    expect_matches_cpu(with_bias, Precision::fp16, {-1, -1}, false, s.str());
    auto runtime_scale = single_node(kLayerNorm, {input(test::random_tensor(s, 4)), input(test::random_tensor({c}, 5))});
    expect_matches_cpu(runtime_scale, Precision::fp32, {-1, -1}, false, s.str() + " no bias");
  }
}

}  // namespace
}  // namespace vx

// The Vulkan plans of the normalisations (src/backends/vulkan/kernels/norm.cpp) against the CPU
// reference kernels, one node at a time, on lavapipe with the validation layer on.
// Each case is a one-node graph run by the Vulkan executable (make_executable, through
// tests/common/vulkan_precision_test.h) and by the CPU reference; the node must be placed on the GPU.
// fp16 cases round the inputs to fp16 first, so that the reference sees the same values.
//
// Tolerances: fp32 storage: max |gpu - ref| <= 1e-4 * max(1, max |ref|).
//             fp16 storage (fp32 accumulation, one rounding of the output and of repacked weights):
//             <= 1e-2 * max(1, max |ref|).
#include <gtest/gtest.h>

#include <string>

#include "common/test_util.h"
#include "common/vulkan_precision_test.h"

namespace vx::vk {
namespace {

class VulkanNorm : public test::VulkanPrecisionTest {};

TEST_P(VulkanNorm, BatchNormalization) {
  uint64_t seed = 600;
  for (bool constant : {true, false})
    for (Shape s : {Shape{2, 3, 5, 7}, Shape{3, 4}, Shape{1, 5, 3, 2, 3}}) {
      const int64_t c = s[1];
      Attributes a;
      a.set("epsilon", 1e-3f);
      OneNode n{"BatchNormalization", a,
                {{test::random_tensor(s, seed++)}, {test::random_tensor(Shape{c}, seed++, 0.5f, 1.5f), constant}, {test::random_tensor(Shape{c}, seed++), constant},
                 {test::random_tensor(Shape{c}, seed++), constant}, {test::random_tensor(Shape{c}, seed++, 0.2f, 2.0f), constant}}};
      check(n, cat("BatchNormalization ", s.str(), constant ? " constant" : " inputs"), constant ? "folded" : "direct");
    }
}

TEST_P(VulkanNorm, InstanceNormalization) {
  uint64_t seed = 700;
  for (bool constant : {true, false})
    for (Shape s : {Shape{2, 3, 5, 7}, Shape{1, 4, 600}, Shape{1, 2, 3, 2, 3}}) {
      OneNode n{"InstanceNormalization", {},
                {{test::random_tensor(s, seed++, -2.0f, 3.0f)}, {test::random_tensor(Shape{s[1]}, seed++), constant}, {test::random_tensor(Shape{s[1]}, seed++), constant}}};
      check(n, cat("InstanceNormalization ", s.str(), constant ? " constant" : " inputs"));
    }
}

TEST_P(VulkanNorm, LayerNormalization) {
  struct Case {
    Shape x;
    int64_t axis;
    Shape scale, bias;  // rank 0 bias: absent
    bool constant, stats;
  };
  const Case cases[] = {
      {{2, 3, 17}, -1, {17}, {17}, true, false},  {{2, 3, 17}, 1, {3, 17}, {3, 17}, false, false},
      {{5, 700}, -1, {700}, {}, true, true},      {{2, 3, 4, 5}, 2, {1, 5}, {4, 1}, true, true},
      {{3, 7}, 0, {3, 7}, {3, 7}, false, true},
  };
  uint64_t seed = 800;
  for (const Case& c : cases) {
    Attributes a;
    a.set("axis", c.axis);
    a.set("epsilon", 1e-4f);
    OneNode n{"LayerNormalization", a, {{test::random_tensor(c.x, seed++, -3.0f, 5.0f)}, {test::random_tensor(c.scale, seed++), c.constant}}, c.stats ? 3u : 1u};
    if (c.bias.rank() > 0) n.inputs.push_back({test::random_tensor(c.bias, seed++), c.constant});
    if (c.stats) {  // Mean and InvStdDev: the input's shape with the normalised axes 1
      std::vector<int64_t> stats = c.x.dims();
      const size_t axis = size_t(c.axis < 0 ? c.axis + int64_t(c.x.rank()) : c.axis);
      for (size_t d = axis; d < stats.size(); ++d) stats[d] = 1;
      n.declared = {c.x, Shape(stats), Shape(stats)};
    }
    check(n, cat("LayerNormalization ", c.x.str(), " axis ", c.axis, c.stats ? " with statistics" : ""));
  }
}

TEST_P(VulkanNorm, LRN) {
  uint64_t seed = 850;
  for (int64_t size : {1, 2, 3, 5})
    for (Shape s : {Shape{2, 7, 3, 4}, Shape{1, 4, 5}}) {
      Attributes a;
      a.set("size", size);
      a.set("alpha", 0.3f);
      a.set("beta", 0.6f);
      a.set("bias", 1.5f);
      check(OneNode{"LRN", a, {{test::random_tensor(s, seed++, -2.0f, 2.0f)}}}, cat("LRN ", s.str(), " size ", size));
    }
}

INSTANTIATE_TEST_SUITE_P(All, VulkanNorm, ::testing::Values(Precision::fp32, Precision::fp16),
                         [](const auto& info) { return std::string(precision_name(info.param)); });

}  // namespace
}  // namespace vx::vk

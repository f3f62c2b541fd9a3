// The Vulkan plans of the pooling ops (src/backends/vulkan/kernels/pool.cpp) against the CPU
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

class VulkanPool : public test::VulkanPrecisionTest {};

TEST_P(VulkanPool, Pooling) {
  struct Case {
    std::string op;
    Shape x;
    std::vector<int64_t> kernel, strides, pads, dilations;
    int64_t ceil_mode, include_pad;
    std::string auto_pad;
  };
  const Case cases[] = {
      {"MaxPool", {1, 3, 7, 9}, {3, 3}, {2, 2}, {1, 0, 1, 1}, {}, 0, 0, ""},
      {"MaxPool", {2, 2, 7, 9}, {3, 2}, {2, 2}, {1, 1, 1, 1}, {2, 1}, 1, 0, ""},
      {"MaxPool", {1, 2, 7, 9}, {2, 2}, {2, 2}, {}, {}, 0, 0, "SAME_UPPER"},
      {"MaxPool", {1, 2, 11}, {3}, {2}, {1, 1}, {}, 1, 0, ""},
      {"MaxPool", {1, 2, 4, 5, 6}, {2, 2, 3}, {2, 1, 2}, {}, {}, 0, 0, ""},
      {"AveragePool", {1, 3, 7, 9}, {3, 3}, {2, 2}, {1, 0, 1, 1}, {}, 0, 0, ""},
      {"AveragePool", {1, 3, 7, 9}, {3, 3}, {2, 2}, {1, 0, 1, 1}, {}, 0, 1, ""},
      {"AveragePool", {1, 3, 7, 9}, {3, 2}, {2, 2}, {1, 1, 0, 1}, {}, 1, 1, ""},
      {"AveragePool", {1, 3, 7, 9}, {3, 2}, {2, 2}, {1, 1, 0, 1}, {}, 1, 0, ""},
      {"AveragePool", {1, 2, 7, 9}, {2, 3}, {2, 2}, {}, {}, 0, 1, "SAME_LOWER"},
      {"LpPool", {1, 3, 7, 9}, {3, 3}, {2, 2}, {1, 0, 1, 1}, {}, 0, 0, ""},
  };
  uint64_t seed = 500;
  for (const Case& c : cases) {
    Attributes a;
    a.set("kernel_shape", c.kernel);
    if (!c.strides.empty()) a.set("strides", c.strides);
    if (!c.pads.empty()) a.set("pads", c.pads);
    if (!c.dilations.empty()) a.set("dilations", c.dilations);
    if (c.ceil_mode) a.set("ceil_mode", c.ceil_mode);
    if (c.include_pad) a.set("count_include_pad", c.include_pad);
    if (!c.auto_pad.empty()) a.set("auto_pad", c.auto_pad);
    check(OneNode{c.op, a, {{test::random_tensor(c.x, seed++)}}, 1, 19},
          cat(c.op, " ", c.x.str(), " kernel ", Shape(c.kernel).str(), c.ceil_mode ? " ceil" : "",
              c.include_pad ? " include_pad" : "", " ", c.auto_pad));
  }
  for (int64_t order : {0, 1})
    for (Shape s : {Shape{1, 3, 7, 9}, Shape{2, 2, 11}, Shape{1, 2, 4, 5, 6}}) {
      Attributes a;
      const size_t nd = s.rank() - 2;
      a.set("kernel_shape", std::vector<int64_t>(nd, 3));
      a.set("strides", std::vector<int64_t>(nd, 2));
      a.set("pads", std::vector<int64_t>(2 * nd, 1));
      a.set("storage_order", order);
      check(OneNode{"MaxPool", a, {{test::random_tensor(s, seed++)}}, 2}, cat("MaxPool with Indices ", s.str(), " storage_order ", order));
    }
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"})
    for (Shape s : {Shape{2, 3, 7, 9}, Shape{1, 5, 300}, Shape{1, 2, 3, 4, 5}})
      check(OneNode{op, {}, {{test::random_tensor(s, seed++)}}}, cat(op, " ", s.str()));
}

INSTANTIATE_TEST_SUITE_P(All, VulkanPool, ::testing::Values(Precision::fp32, Precision::fp16),
                         [](const auto& info) { return std::string(precision_name(info.param)); });

}  // namespace
}  // namespace vx::vk

// The Vulkan plans of MatMul and Gemm (src/backends/vulkan/kernels/matmul.cpp) against the CPU
// reference kernels (double accumulation), one node at a time, on lavapipe with the validation layer
// on: odd shapes (1x17 by 17x5, batches that broadcast), 16-byte staging loads, and split K for
// every GEMM user.
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
#include "ops/fused_ops.h"

namespace vx::vk {
namespace {

using test::ScopedEnv;

class VulkanMatMul : public test::VulkanPrecisionTest {};

TEST_P(VulkanMatMul, MatMul) {
  struct Case {
    Shape a, b;
    bool b_constant;
  };
  const Case cases[] = {
      {{1, 17}, {17, 5}, false},          {{1, 17}, {17, 5}, true},          {{70, 33}, {33, 65}, false},
      {{3, 1, 7, 9}, {9, 11}, true},      {{3, 1, 7, 9}, {4, 9, 11}, false}, {{17}, {17, 5}, false},
      {{2, 3, 17}, {17}, false},          {{5}, {5}, false},                 {{2, 1, 3, 4, 6}, {1, 5, 1, 6, 7}, false},
      {{129, 40}, {40, 3}, true},         {{1, 600}, {600, 70}, true},       {{2, 3, 300}, {300, 20}, false},
  };
  uint64_t seed = 1;
  for (const Case& c : cases) {
    OneNode n{"MatMul", {}, {{test::random_tensor(c.a, seed++)}, {test::random_tensor(c.b, seed++), c.b_constant}}};
    check(n, cat("MatMul ", c.a.str(), " x ", c.b.str(), c.b_constant ? " (constant B)" : ""));
  }
}

TEST_P(VulkanMatMul, Gemm) {
  struct Case {
    int64_t m, k, n;
    bool ta, tb;
    float alpha, beta;
    Shape c;  // empty rank 0 with c_present false: no C
    bool c_present, b_constant, c_constant;
  };
  const Case cases[] = {
      {1, 17, 5, false, false, 1.0f, 1.0f, {5}, true, true, true},
      {7, 9, 11, true, false, 0.5f, 2.0f, {7, 1}, true, false, false},
      {7, 9, 11, false, true, 1.5f, 1.0f, {7, 11}, true, false, true},
      {7, 9, 11, true, true, 1.0f, -1.0f, {}, true, true, false},
      {65, 70, 66, false, true, 1.0f, 1.0f, {66}, true, true, true},
      {3, 4, 5, false, false, 1.0f, 1.0f, {}, false, false, false},
  };
  uint64_t seed = 100;
  for (const Case& c : cases) {
    Attributes a;
    a.set("transA", int64_t(c.ta));
    a.set("transB", int64_t(c.tb));
    a.set("alpha", c.alpha);
    a.set("beta", c.beta);
    Shape as = c.ta ? Shape{c.k, c.m} : Shape{c.m, c.k}, bs = c.tb ? Shape{c.n, c.k} : Shape{c.k, c.n};
    OneNode n{"Gemm", a, {{test::random_tensor(as, seed++)}, {test::random_tensor(bs, seed++), c.b_constant}}};
    if (c.c_present) n.inputs.push_back({test::random_tensor(c.c, seed++), c.c_constant});
    check(n, cat("Gemm ", c.m, "x", c.k, "x", c.n, c.ta ? " transA" : "", c.tb ? " transB" : "", " C ",
                 c.c_present ? c.c.str() : "none"));
  }
}

// Shapes whose rows allow 16-byte staging loads of A and / or B (8 fp16 or 4 fp32 values).
TEST_P(VulkanMatMul, VectorLoads) {
  uint64_t seed = 170;
  check(OneNode{"MatMul", {}, {{test::random_tensor(Shape{70, 32}, seed++)}, {test::random_tensor(Shape{32, 72}, seed++)}}}, "MatMul aligned",
        "tiled+vecA+vecB");
  check(OneNode{"MatMul", {}, {{test::random_tensor(Shape{3, 1, 9, 16}, seed++)}, {test::random_tensor(Shape{4, 16, 24}, seed++), true}}},
        "MatMul aligned batches", "tiled+vecA+vecB");
  check(OneNode{"MatMul", {}, {{test::random_tensor(Shape{5, 48}, seed++)}, {test::random_tensor(Shape{48, 13}, seed++)}}}, "MatMul aligned A", "tiled+vecA");
  check(OneNode{"MatMul", {}, {{test::random_tensor(Shape{5, 13}, seed++)}, {test::random_tensor(Shape{13, 40}, seed++), true}}}, "MatMul aligned B",
        "tiled+vecB");
  ScopedEnv conv("VOLVOX_VK_CONV", "gemm");
  check(OneNode{"Conv", {}, {{test::random_tensor(Shape{1, 16, 4, 6}, seed++)}, {test::random_tensor(Shape{9, 16, 1, 1}, seed++), true}, {test::random_tensor(Shape{9}, seed++), true}}},
        "pointwise Conv aligned", "gemm1x1_tiled+vecA+vecB");
  Attributes a;
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  check(OneNode{"Conv", a, {{test::random_tensor(Shape{2, 8, 5, 7}, seed++)}, {test::random_tensor(Shape{11, 8, 3, 3}, seed++), true}}}, "3x3 Conv aligned",
        "gemm_tiled+vecA");
  ScopedEnv split("VOLVOX_VK_SPLITK", "3");
  check(OneNode{"MatMul", {}, {{test::random_tensor(Shape{5, 256}, seed++)}, {test::random_tensor(Shape{256, 24}, seed++), true}}}, "MatMul aligned split K",
        "tiled_splitk3+vecA+vecB");
}

// Every GEMM user with K forced into 3 chunks (partial sums, then the reduce pass).
TEST_P(VulkanMatMul, SplitK) {
  ScopedEnv env("VOLVOX_VK_SPLITK", "3");
  uint64_t seed = 150;
  check(OneNode{"MatMul", {}, {{test::random_tensor(Shape{3, 1, 7, 90}, seed++)}, {test::random_tensor(Shape{4, 90, 11}, seed++)}}}, "MatMul split K",
        "tiled_splitk3");
  Attributes a;
  a.set("transB", int64_t(1));
  a.set("alpha", 0.5f);
  check(OneNode{"Gemm", a, {{test::random_tensor(Shape{5, 200}, seed++)}, {test::random_tensor(Shape{9, 200}, seed++), true}, {test::random_tensor(Shape{9}, seed++), true}}},
        "Gemm split K", "tiled_splitk3");
  ScopedEnv conv("VOLVOX_VK_CONV", "gemm");
  Attributes c;
  c.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  c.set("relu", int64_t(1));
  check(OneNode{kFusedConv, c, {{test::random_tensor(Shape{2, 24, 5, 6}, seed++)}, {test::random_tensor(Shape{7, 24, 3, 3}, seed++), true}, {test::random_tensor(Shape{7}, seed++), true}}},
        "vx.FusedConv split K", "gemm_tiled_splitk3");
  c.set("pool", int64_t(1));  // two scratch buffers: the conv output before the pool, the partial sums
  check(OneNode{kFusedConv, c, {{test::random_tensor(Shape{1, 24, 6, 7}, seed++)}, {test::random_tensor(Shape{5, 24, 3, 3}, seed++), true}, {test::random_tensor(Shape{5}, seed++), true}}},
        "vx.FusedConv pool split K", "gemm_tiled_splitk3");
}

INSTANTIATE_TEST_SUITE_P(All, VulkanMatMul, ::testing::Values(Precision::fp32, Precision::fp16),
                         [](const auto& info) { return std::string(precision_name(info.param)); });

}  // namespace
}  // namespace vx::vk

// The Vulkan plans of Conv, vx.FusedConv and ConvTranspose (src/backends/vulkan/kernels/conv.cpp)
// against the CPU reference kernels (double accumulation), one node at a time, on lavapipe in CI
// with the Khronos validation layer on when installed (any warning or error fails the test), at
// odd shapes (7x9 images with 5 outputs, groups 3, stride 2, dilation 2, asymmetric pads), small
// because lavapipe is slow; and the cooperative-matrix GEMM through every GEMM user, which runs only
// where the device has fp16 cooperative matrices (the H200; skipped on lavapipe).
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

class VulkanConv : public test::VulkanPrecisionTest {};

struct ConvCase {
  Shape x, w;
  std::vector<int64_t> strides, dilations, pads;
  int64_t group;
  std::string auto_pad;
  bool bias;
};

Attributes conv_attrs(const ConvCase& c) {
  Attributes a;
  if (!c.strides.empty()) a.set("strides", c.strides);
  if (!c.dilations.empty()) a.set("dilations", c.dilations);
  if (!c.pads.empty()) a.set("pads", c.pads);
  if (c.group != 1) a.set("group", c.group);
  if (!c.auto_pad.empty()) a.set("auto_pad", c.auto_pad);
  return a;
}

const ConvCase kConvCases[] = {
    // 2-D: 5 outputs, stride 2, dilation 2, asymmetric pads, groups 3
    {{1, 3, 7, 9}, {5, 3, 3, 3}, {2, 2}, {2, 2}, {1, 0, 2, 1}, 1, "", true},
    {{2, 6, 7, 9}, {9, 2, 3, 3}, {2, 1}, {1, 2}, {0, 1, 2, 1}, 3, "", true},
    {{1, 6, 7, 9}, {6, 1, 3, 3}, {1, 1}, {}, {1, 1, 1, 1}, 6, "", true},           // depthwise
    {{1, 4, 7, 9}, {8, 1, 5, 3}, {2, 2}, {}, {}, 4, "SAME_UPPER", false},         // depthwise x2
    {{1, 5, 7, 9}, {7, 5, 4, 2}, {3, 2}, {}, {}, 1, "SAME_LOWER", true},
    {{1, 5, 7, 9}, {7, 5, 3, 3}, {}, {}, {}, 1, "VALID", false},
    {{2, 17, 5, 6}, {19, 17, 1, 1}, {}, {}, {}, 1, "", true},                     // pointwise
    {{1, 33, 9, 10}, {70, 33, 3, 3}, {}, {}, {1, 1, 1, 1}, 1, "", true},          // several tiles
    {{1, 4, 17}, {6, 2, 3}, {2}, {2}, {1, 2}, 2, "", true},                       // 1-D
    {{1, 3, 4, 5, 6}, {4, 3, 2, 3, 2}, {1, 2, 1}, {}, {1, 0, 1, 0, 1, 1}, 1, "", true},  // 3-D
};

TEST_P(VulkanConv, Conv) {
  uint64_t seed = 200;
  for (const char* mode : {"auto", "direct", "gemm"}) {
    ScopedEnv env("VOLVOX_VK_CONV", mode);
    for (const ConvCase& c : kConvCases)
      for (bool constant_w : {true, false}) {
        OneNode n{"Conv", conv_attrs(c), {{test::random_tensor(c.x, seed++)}, {test::random_tensor(c.w, seed++, -0.5f, 0.5f), constant_w}}};
        if (c.bias) n.inputs.push_back({test::random_tensor(Shape{c.w[0]}, seed++), constant_w});
        std::string expect = std::string(mode) == "auto" ? "" : mode;
        check(n, cat("Conv ", mode, " x ", c.x.str(), " w ", c.w.str(), " group ", c.group, " ", c.auto_pad,
                     constant_w ? " constant W" : " W input"), expect);
      }
  }
}

TEST_P(VulkanConv, FusedConvReluPool) {
  uint64_t seed = 300;
  for (bool pool : {false, true}) {
    Attributes a;
    a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    a.set("relu", int64_t(1));
    a.set("pool", int64_t(pool));
    OneNode n{kFusedConv, a, {{test::random_tensor(Shape{1, 5, 9, 11}, seed++)}, {test::random_tensor(Shape{6, 5, 3, 3}, seed++), true},
                              {test::random_tensor(Shape{6}, seed++), true}}};
    check(n, cat("vx.FusedConv relu", pool ? " pool" : ""));
  }
}

TEST_P(VulkanConv, ConvTranspose) {
  struct Case {
    Shape x, w;
    Attributes a;
    bool bias;
  };
  auto attrs = [](std::vector<std::pair<std::string, std::vector<int64_t>>> ints, int64_t group = 1,
                  std::string auto_pad = "") {
    Attributes a;
    for (auto& [k, v] : ints) a.set(k, v);
    if (group != 1) a.set("group", group);
    if (!auto_pad.empty()) a.set("auto_pad", auto_pad);
    return a;
  };
  const Case cases[] = {
      {{1, 3, 4, 5}, {3, 2, 3, 3}, attrs({{"strides", {2, 2}}}), true},
      {{1, 6, 4, 5}, {6, 2, 3, 2}, attrs({{"strides", {2, 3}}, {"pads", {1, 0, 0, 1}}, {"output_padding", {1, 1}}}, 3), true},
      {{2, 4, 3, 5}, {4, 3, 3, 3}, attrs({{"strides", {2, 1}}, {"dilations", {2, 2}}, {"pads", {1, 2, 0, 1}}}), false},
      {{1, 2, 3, 4}, {2, 3, 3, 3}, attrs({{"strides", {2, 2}}, {"output_shape", {7, 9}}}), true},
      {{1, 2, 3, 4}, {2, 3, 3, 3}, attrs({{"strides", {2, 2}}}, 1, "SAME_UPPER"), true},
      {{1, 2, 3, 4}, {2, 3, 4, 3}, attrs({{"strides", {2, 2}}}, 1, "SAME_LOWER"), false},
      {{1, 4, 7}, {4, 1, 3}, attrs({{"strides", {3}}}, 2), true},
      {{1, 2, 2, 3, 2}, {2, 2, 2, 2, 3}, attrs({{"strides", {2, 1, 2}}}), true},
  };
  uint64_t seed = 400;
  for (const Case& c : cases)
    for (bool constant_w : {true, false}) {
      OneNode n{"ConvTranspose", c.a, {{test::random_tensor(c.x, seed++)}, {test::random_tensor(c.w, seed++), constant_w}}};
      if (c.bias) n.inputs.push_back({test::random_tensor(Shape{c.w[1] * c.a.get_int("group", 1)}, seed++), constant_w});
      check(n, cat("ConvTranspose x ", c.x.str(), " w ", c.w.str(), constant_w ? " constant W" : " W input"));
    }
}

// The tensor-core kernel (fp16 storage on devices with VK_NV_cooperative_matrix; skipped elsewhere,
// e.g. on lavapipe): every GEMM user at odd sizes, strided / transposed / vector-loaded operands,
// im2col, split K.
TEST_P(VulkanConv, CooperativeMatrix) {
  if (GetParam() != Precision::fp16 || !ctx().coopmat_enabled())
    GTEST_SKIP() << "needs fp16 storage and fp16 cooperative matrices (" << ctx().info().name << ")";
  for (const std::string kernel : {"coopmat", "coopmat128"}) {
    ScopedEnv gemm("VOLVOX_VK_GEMM", kernel.c_str());
    uint64_t seed = 190;
    check(OneNode{"MatMul", {}, {{test::random_tensor(Shape{1, 17}, seed++)}, {test::random_tensor(Shape{17, 5}, seed++)}}}, kernel + " MatMul tiny", kernel);
    check(OneNode{"MatMul", {}, {{test::random_tensor(Shape{70, 33}, seed++)}, {test::random_tensor(Shape{33, 65}, seed++)}}}, kernel + " MatMul odd", kernel);
    check(OneNode{"MatMul", {}, {{test::random_tensor(Shape{3, 1, 150, 40}, seed++)}, {test::random_tensor(Shape{4, 40, 136}, seed++), true}}},
          kernel + " MatMul batched, vector loads", kernel + "+vecA+vecB");
    check(OneNode{"MatMul", {}, {{test::random_tensor(Shape{1, 1000}, seed++)}, {test::random_tensor(Shape{1000, 200}, seed++), true}}},
          kernel + " MatMul split K", kernel + "_splitk");
    Attributes ta;
    ta.set("transA", int64_t(1));
    ta.set("transB", int64_t(1));
    ta.set("alpha", 0.5f);
    ta.set("beta", 2.0f);
    check(OneNode{"Gemm", ta, {{test::random_tensor(Shape{45, 130}, seed++)}, {test::random_tensor(Shape{99, 45}, seed++)}, {test::random_tensor(Shape{130, 1}, seed++)}}},
          kernel + " Gemm transposed", kernel);
    ScopedEnv conv("VOLVOX_VK_CONV", "gemm");
    for (const ConvCase& c : kConvCases) {
      OneNode n{"Conv", conv_attrs(c), {{test::random_tensor(c.x, seed++)}, {test::random_tensor(c.w, seed++, -0.5f, 0.5f), true}}};
      if (c.bias) n.inputs.push_back({test::random_tensor(Shape{c.w[0]}, seed++), true});
      check(n, cat(kernel, " Conv x ", c.x.str(), " w ", c.w.str(), " group ", c.group));
    }
    Attributes a;
    a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    a.set("strides", std::vector<int64_t>{2, 2});
    a.set("relu", int64_t(1));
    check(OneNode{kFusedConv, a, {{test::random_tensor(Shape{2, 64, 31, 29}, seed++)}, {test::random_tensor(Shape{136, 64, 3, 3}, seed++, -0.1f, 0.1f), true},
                                  {test::random_tensor(Shape{136}, seed++), true}}},
          kernel + " FusedConv 64 -> 136 stride 2", "gemm_" + kernel);
  }
}

INSTANTIATE_TEST_SUITE_P(All, VulkanConv, ::testing::Values(Precision::fp32, Precision::fp16),
                         [](const auto& info) { return std::string(precision_name(info.param)); });

}  // namespace
}  // namespace vx::vk

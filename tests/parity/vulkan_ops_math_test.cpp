// The Vulkan plans of ONNX's math ops (src/backends/vulkan/kernels/{matmul,conv,pool,norm}.cpp) against
// the CPU reference kernels (double accumulation), one node at a time, on lavapipe in CI with the
// Khronos validation layer on when installed (any warning or error fails the test). Shapes are odd
// on purpose (1x17 by 17x5, batches that broadcast, 7x9 images with 5 outputs, groups 3, stride 2,
// dilation 2, asymmetric pads) and small because lavapipe is slow.
//
// Each case is a one-node graph run by the Vulkan executable (make_executable on the Vulkan device, through
// tests/common/vulkan_op_test_util.h) and by the CPU reference; the node must be placed on the GPU.
// fp16 cases round the inputs to fp16 first, so that the reference sees the same values.
//
// Also: ONNX's own node tests of these ops (libonnx-testdata, against their stored outputs), small
// ResNet / decoder blocks through the Vulkan runner, and a cooperative-matrix suite that runs only
// where the device has fp16 cooperative matrices (the H200; skipped on lavapipe).
//
// Tolerances: fp32 storage: max |gpu - ref| <= 1e-4 * max(1, max |ref|).
//             fp16 storage (fp32 accumulation, one rounding of the output and of repacked weights):
//             <= 1e-2 * max(1, max |ref|); 2e-2 for the multi-layer blocks (rounding per layer).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "backends/vulkan/context.h"
#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "formats/onnx_import.h"
#include "ops/fused_ops.h"
#include "passes/fuse_conv_bias_relu.h"
#include "backends/vulkan/optimize_for_vulkan.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "session/device_model_runner.h"

namespace vx::vk {
namespace {

// ---------------- one-node cases ----------------

struct Input {
  Tensor value;  // undefined: an omitted optional input
  bool constant = false;
};

struct OneNode {
  std::string op;
  Attributes attrs;
  std::vector<Input> inputs;
  size_t outputs = 1;
  int64_t opset = 17;
  std::vector<Shape> declared;  // output shapes declared in the graph (else left to shape inference)
};

class VulkanMathOps : public test::VulkanOpTest, public ::testing::WithParamInterface<Precision> {
 protected:
  void SetUp() override {
    test::VulkanOpTest::SetUp();
    if (IsSkipped()) return;
    if (GetParam() == Precision::fp16 && !ctx().fp16_enabled()) GTEST_SKIP() << "the device has no fp16 storage";
  }

  // Runs `c` through the executor (every node must be planned on the GPU, with a variant starting
  // with `variant` when given) and compares every output with the CPU reference.
  void check(const OneNode& c, const std::string& what, const std::string& variant = "") {
    const Precision precision = GetParam();
    std::vector<test::NodeInput> inputs;
    for (const Input& in : c.inputs) {
      Tensor v = in.value;
      if (v.defined() && precision == Precision::fp16) v = v.to(DType::f16).to(DType::f32);
      inputs.push_back({v, in.constant});
    }
    test::SingleNodeCase sc = test::single_node(c.op, inputs, c.outputs, c.attrs, c.opset);
    for (size_t i = 0; i < c.declared.size(); ++i) sc.graph.value(sc.graph.outputs[i]).shape = c.declared[i];
    const std::vector<Tensor> expected = test::run_cpu_reference(sc.graph, sc.inputs);
    const test::VulkanRun run = test::run_on_vulkan(ctx(), sc.graph, sc.inputs, precision);
    std::string placement;
    for (const runtime::NodePlacement& p : run.placements)
      if (p.op == c.op) placement = p.on_host ? "cpu: " + p.reason : p.variant;
    ASSERT_TRUE(run.all_on_gpu) << what << ": " << placement;
    if (!variant.empty()) {
      // On devices with fp16 cooperative matrices, large enough fp16 products take that kernel.
      std::string alt = variant;
      if (const size_t at = alt.find("tiled"); at != std::string::npos) alt.replace(at, 5, "coopmat");
      EXPECT_TRUE(placement.rfind(variant, 0) == 0 || placement.rfind(alt, 0) == 0)
          << what << ": variant " << placement << ", expected " << variant;
    }
    ASSERT_EQ(run.outputs.size(), expected.size()) << what;
    for (size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(run.outputs[i].shape(), expected[i].shape()) << what << " output " << i;
      double peak = 1.0;
      for (int64_t j = 0; j < expected[i].numel(); ++j) peak = std::max(peak, std::abs(expected[i].get(j)));
      const bool exact = expected[i].dtype() != DType::f32 && expected[i].dtype() != DType::f16;  // indices
      const double tol = exact ? 0.0 : (precision == Precision::fp16 ? 1e-2 : 1e-4) * peak;
      const double err = test::max_abs_diff(run.outputs[i].to(DType::f32), expected[i].to(DType::f32));
      EXPECT_LE(err, tol) << what << " (" << precision_name(precision) << ", " << placement << ") output " << i
                          << ": max abs error " << err;
    }
  }
};


using test::ScopedEnv;

// ---------------- MatMul, Gemm ----------------

TEST_P(VulkanMathOps, MatMul) {
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

TEST_P(VulkanMathOps, Gemm) {
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
TEST_P(VulkanMathOps, VectorLoads) {
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
TEST_P(VulkanMathOps, SplitK) {
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

// ---------------- Conv, vx.FusedConv, ConvTranspose ----------------

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

TEST_P(VulkanMathOps, Conv) {
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

TEST_P(VulkanMathOps, FusedConvReluPool) {
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

TEST_P(VulkanMathOps, ConvTranspose) {
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
TEST_P(VulkanMathOps, CooperativeMatrix) {
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

// ---------------- pooling ----------------

TEST_P(VulkanMathOps, Pooling) {
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

// ---------------- normalisations ----------------

TEST_P(VulkanMathOps, BatchNormalization) {
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

TEST_P(VulkanMathOps, InstanceNormalization) {
  uint64_t seed = 700;
  for (bool constant : {true, false})
    for (Shape s : {Shape{2, 3, 5, 7}, Shape{1, 4, 600}, Shape{1, 2, 3, 2, 3}}) {
      OneNode n{"InstanceNormalization", {},
                {{test::random_tensor(s, seed++, -2.0f, 3.0f)}, {test::random_tensor(Shape{s[1]}, seed++), constant}, {test::random_tensor(Shape{s[1]}, seed++), constant}}};
      check(n, cat("InstanceNormalization ", s.str(), constant ? " constant" : " inputs"));
    }
}

TEST_P(VulkanMathOps, LayerNormalization) {
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

TEST_P(VulkanMathOps, LRN) {
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

// ---------------- ONNX's own node tests (libonnx-testdata) ----------------

// The ONNX backend suite's node cases of these ops, run by the executor against the expected
// outputs stored with them (float inputs rounded to fp16 for the fp16 run are not re-derived: the
// fp16 run compares with the stored fp32 outputs at the fp16 tolerance). The math node must be
// placed on the GPU, except where a case needs an output the GPU does not compute (training-mode
// BatchNormalization, MaxPool's Indices): then it must fall back to the CPU and still match.
TEST_P(VulkanMathOps, OnnxNodeSuite) {
  const char* env = std::getenv("VOLVOX_ONNX_TESTDATA");
  const std::filesystem::path root = std::filesystem::path(env ? env : "/usr/share/libonnx-testdata/data") / "node";
  if (!std::filesystem::exists(root)) GTEST_SKIP() << root << " is absent: install libonnx-testdata";
  const std::vector<std::string> prefixes = {
      "test_matmul_", "test_gemm_", "test_conv_", "test_basic_conv_", "test_convtranspose", "test_maxpool_",
      "test_averagepool_", "test_lppool", "test_globalaveragepool", "test_globalmaxpool", "test_batchnorm_",
      "test_instancenorm_", "test_layer_normalization_", "test_lrn"};
  const std::vector<std::string> cpu_expected = {"training_mode", "uint8"};
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    bool wanted = false;
    for (const std::string& p : prefixes) wanted = wanted || name.rfind(p, 0) == 0;
    if (!wanted || name.find("_expanded") != std::string::npos) continue;
    bool on_cpu = false;
    for (const std::string& c : cpu_expected) on_cpu = on_cpu || name.find(c) != std::string::npos;
    if (name.find("uint8") != std::string::npos) continue;  // integer pooling: not a float op
    SCOPED_TRACE(name);
    Graph graph = import_onnx(entry.path() / "model.onnx");
    std::vector<Tensor> inputs, expected;
    std::map<std::string, Shape> shapes;
    const std::filesystem::path set = entry.path() / "test_data_set_0";
    for (size_t i = 0; std::filesystem::exists(set / cat("input_", i, ".pb")); ++i) {
      inputs.push_back(read_onnx_tensor_file(set / cat("input_", i, ".pb")));
      if (GetParam() == Precision::fp16 && inputs.back().dtype() == DType::f32)
        inputs.back() = inputs.back().to(DType::f16).to(DType::f32);
    }
    for (size_t i = 0; std::filesystem::exists(set / cat("output_", i, ".pb")); ++i)
      expected.push_back(read_onnx_tensor_file(set / cat("output_", i, ".pb")));
    ASSERT_EQ(inputs.size(), graph.inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) shapes[graph.value(graph.inputs[i]).name] = inputs[i].shape();
    runtime::ExecutableOptions options;
    options.fp16 = GetParam() == Precision::fp16;
    std::vector<Tensor> got;
    std::string placement;
    try {
      auto exe = make_executable(vk::compute_device(ctx()), graph, shapes, options, &inputs);
      placement = exe->placement_report();
      if (on_cpu) {
        EXPECT_FALSE(exe->floats_all_preferred()) << name << ": expected a CPU fallback\n" << placement;
      } else {
        EXPECT_TRUE(exe->floats_all_preferred()) << name << "\n" << placement;
      }
      got = exe->run(inputs);
    } catch (const Error& e) {
      ADD_FAILURE() << name << ": " << e.what();
      continue;
    }
    ++cases;
    ASSERT_EQ(got.size(), expected.size()) << name;
    for (size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(got[i].shape(), expected[i].shape()) << name << " output " << i;
      double peak = 1.0;
      for (int64_t j = 0; j < expected[i].numel(); ++j) peak = std::max(peak, std::abs(expected[i].get(j)));
      const bool exact = expected[i].dtype() != DType::f32;  // MaxPool's indices
      const double tol = exact ? 0.0 : (GetParam() == Precision::fp16 ? 1e-2 : 1e-4) * peak;
      EXPECT_LE(test::max_abs_diff(got[i].to(DType::f32), expected[i]), tol) << name << " output " << i << "\n" << placement;
    }
  }
  EXPECT_GT(cases, 80) << "fewer ONNX node cases than expected under " << root;
}

// ---------------- small networks (the shapes of ResNet-50 and GPT-2 blocks, scaled down) ----------------

// Builds graphs node by node with random weights.
struct NetBuilder {
  Graph g;
  uint64_t seed = 900;
  int count = 0;
  ValueId value() { return g.add_value(cat("v", count++), DType::f32, Shape()); }
  ValueId constant(Shape s, float scale = 0.5f) { return g.add_constant(cat("w", count++), test::random_tensor(std::move(s), seed++, -scale, scale)); }
  ValueId node(const std::string& op, std::vector<ValueId> inputs, Attributes a = {}) {
    ValueId y = value();
    g.add_node(op, cat(op, count), std::move(inputs), {y}, std::move(a));
    return y;
  }
  ValueId conv_bn(ValueId x, int64_t cin, int64_t cout, int64_t k, int64_t stride, bool relu) {
    Attributes a;
    a.set("kernel_shape", std::vector<int64_t>{k, k});
    a.set("strides", std::vector<int64_t>{stride, stride});
    a.set("pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
    ValueId y = node("Conv", {x, constant(Shape{cout, cin, k, k}, 1.0f / float(k * std::sqrt(double(cin))))}, a);
    Attributes bn;
    bn.set("epsilon", 1e-5f);
    y = node("BatchNormalization", {y, g.add_constant(cat("s", count++), test::random_tensor(Shape{cout}, seed++, 0.5f, 1.5f)),
                                    constant(Shape{cout}, 0.1f), constant(Shape{cout}, 0.1f),
                                    g.add_constant(cat("var", count++), test::random_tensor(Shape{cout}, seed++, 0.5f, 1.5f))},
             bn);
    return relu ? node("Relu", {y}) : y;
  }
};

// Runs `g` on the CPU reference and through the Vulkan runner (its optimisation passes, then
// optionally Conv(+Relu) -> vx.FusedConv as the CPU path fuses); every MatMul / Gemm / Conv /
// vx.FusedConv / pooling / normalisation node must run on the GPU.
void check_network(const vk::VulkanContext& ctx, Graph g, const std::vector<Tensor>& inputs, Precision precision,
                   bool fuse_conv_relu, const std::string& what) {
  std::vector<Tensor> feeds = inputs;
  if (precision == Precision::fp16) {
    for (Tensor& t : feeds) t = t.to(DType::f16).to(DType::f32);
  }
  const std::vector<Tensor> expected = test::run_cpu_reference(g, feeds);
  vk::optimize_for_vulkan(g);
  if (fuse_conv_relu) g = fuse_conv_bias_relu(std::move(g));
  DeviceRunnerOptions o;
  o.fp16 = precision == Precision::fp16;
  o.optimize = false;
  DeviceModelRunner runner(vk::compute_device(ctx), g, o);
  const std::vector<Tensor> got = runner.run(feeds);
  const std::set<std::string> mine = {"MatMul", "Gemm", "Conv", kFusedConv, "MaxPool", "GlobalAveragePool",
                                      "BatchNormalization", "LayerNormalization"};
  for (const runtime::NodePlacement& p : runner.last_executable()->placements()) {
    if (mine.count(p.op)) {
      EXPECT_FALSE(p.on_host) << what << ": " << p.node << " (" << p.op << ") on the CPU: " << p.reason;
    }
  }
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    double peak = 1.0;
    for (int64_t j = 0; j < expected[i].numel(); ++j) peak = std::max(peak, std::abs(expected[i].get(j)));
    const double tol = (precision == Precision::fp16 ? 2e-2 : 1e-4) * peak;
    EXPECT_LE(test::max_abs_diff(got[i].to(DType::f32), expected[i]), tol)
        << what << " (" << precision_name(precision) << ")\n" << runner.last_executable()->placement_report();
  }
}

// Stem (7x7 stride 2 conv, BN, ReLU, 3x3 stride 2 max pool), one bottleneck with a projection
// shortcut (1x1, 3x3 stride 2, 1x1; BN after each), global average pool, flatten, Gemm.
TEST_P(VulkanMathOps, ResNetBlock) {
  NetBuilder b;
  ValueId x = b.g.add_value("image", DType::f32, Shape{1, 3, 32, 32});
  b.g.inputs = {x};
  ValueId y = b.conv_bn(x, 3, 16, 7, 2, true);
  Attributes mp;
  mp.set("kernel_shape", std::vector<int64_t>{3, 3});
  mp.set("strides", std::vector<int64_t>{2, 2});
  mp.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  y = b.node("MaxPool", {y}, mp);
  ValueId r = b.conv_bn(y, 16, 8, 1, 1, true);
  r = b.conv_bn(r, 8, 8, 3, 2, true);
  r = b.conv_bn(r, 8, 64, 1, 1, false);
  ValueId s = b.conv_bn(y, 16, 64, 1, 2, false);
  y = b.node("Relu", {b.node("Add", {r, s})});
  y = b.node("GlobalAveragePool", {y});
  y = b.node("Flatten", {y});
  Attributes gm;
  gm.set("transB", int64_t(1));
  y = b.node("Gemm", {y, b.constant(Shape{10, 64}), b.constant(Shape{10})}, gm);
  b.g.outputs = {y};
  const Tensor image = test::random_tensor(Shape{1, 3, 32, 32}, 42);
  for (bool fuse : {false, true}) check_network(ctx(), b.g, {image}, GetParam(), fuse, fuse ? "ResNet block, fused" : "ResNet block");
}

// Pre-LayerNorm transformer pieces at GPT-2's layout: LayerNorm, the QKV projection (MatMul by a
// constant + bias), attention scores of 4 heads (batched MatMul of two activations), the MLP
// (MatMul up, Relu, MatMul down) and the residual, at 7 tokens of width 64.
TEST_P(VulkanMathOps, DecoderBlock) {
  const int64_t t = 7, d = 64, heads = 4;
  NetBuilder b;
  ValueId x = b.g.add_value("tokens", DType::f32, Shape{1, t, d});
  ValueId q = b.g.add_value("q", DType::f32, Shape{1, heads, t, d / heads});
  ValueId k = b.g.add_value("k_t", DType::f32, Shape{1, heads, d / heads, t});
  b.g.inputs = {x, q, k};
  ValueId ln = b.node("LayerNormalization", {x, b.constant(Shape{d}), b.constant(Shape{d})});
  ValueId qkv = b.node("Add", {b.node("MatMul", {ln, b.constant(Shape{d, 3 * d}, 0.2f)}), b.constant(Shape{3 * d})});
  ValueId scores = b.node("MatMul", {q, k});
  ValueId up = b.node("Relu", {b.node("MatMul", {ln, b.constant(Shape{d, 4 * d}, 0.2f)})});
  ValueId down = b.node("MatMul", {up, b.constant(Shape{4 * d, d}, 0.1f)});
  ValueId out = b.node("Add", {x, down});
  b.g.outputs = {qkv, scores, out};
  check_network(ctx(), b.g, {test::random_tensor(Shape{1, t, d}, 43), test::random_tensor(Shape{1, heads, t, d / heads}, 44), test::random_tensor(Shape{1, heads, d / heads, t}, 45)},
                GetParam(), false, "decoder block");
}

INSTANTIATE_TEST_SUITE_P(All, VulkanMathOps, ::testing::Values(Precision::fp32, Precision::fp16),
                         [](const auto& info) { return std::string(precision_name(info.param)); });

}  // namespace
}  // namespace vx::vk

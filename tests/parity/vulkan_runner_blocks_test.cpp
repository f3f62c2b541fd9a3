// Small networks through the Vulkan runner (its optimisation passes, then optionally the Conv + Relu
// fusion of the CPU path): the shapes of ResNet-50 and GPT-2 blocks, scaled down; every MatMul,
// Gemm, Conv, pooling and normalisation node must run on the GPU and match the CPU reference.
//
// Tolerances: max |gpu - ref| <= 1e-4 * max(1, max |ref|) at fp32, 2e-2 at fp16 (rounding per
// layer).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "common/graph_builder.h"
#include "common/test_util.h"
#include "common/vulkan_precision_test.h"
#include "ops/fused_ops.h"
#include "passes/fuse_conv_bias_relu.h"
#include "backends/vulkan/optimize_for_vulkan.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "session/device_model_runner.h"

namespace vx::vk {
namespace {

class VulkanRunnerBlocks : public test::VulkanPrecisionTest {};

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
  o.precision = precision;
  o.optimize = false;
  DeviceModelRunner runner(vk::compute_device(ctx), g, o);
  const std::vector<Tensor> got = runner.run(feeds);
  const std::set<std::string> mine = {"MatMul", "Gemm", kFusedMatMul, "Conv", kFusedConv, kFusedConvResidual,
                                      "MaxPool", "GlobalAveragePool", "BatchNormalization", "LayerNormalization",
                                      "Split", "Slice"};
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
TEST_P(VulkanRunnerBlocks, ResNetBlock) {
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
  // The block's Add and Relu join the epilogue of one of the two convolutions they add.
  Graph optimized = b.g;
  vk::optimize_for_vulkan(optimized);
  int residual_convs = 0;
  for (const Node& n : optimized.nodes) {
    EXPECT_NE(n.op, "Add") << n.name;
    residual_convs += n.op == kFusedConvResidual && n.attrs.get_int("relu", 0) == 1;
  }
  EXPECT_EQ(residual_convs, 1);
  const Tensor image = test::random_tensor(Shape{1, 3, 32, 32}, 42);
  for (bool fuse : {false, true}) check_network(ctx(), b.g, {image}, GetParam(), fuse, fuse ? "ResNet block, fused" : "ResNet block");
}

// Pre-LayerNorm transformer pieces at GPT-2's layout: LayerNorm, the QKV projection (MatMul by a
// constant + bias), attention scores of 4 heads (batched MatMul of two activations), the MLP
// (MatMul up, Relu, MatMul down) and the residual, at 7 tokens of width 64.
TEST_P(VulkanRunnerBlocks, DecoderBlock) {
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

// A packed QKV projection cut into Q, K and V by three Slices of its last axis (as older PyTorch
// exports an encoder layer's attention): one Split dispatch (passes/merge_sibling_slices.h).
TEST_P(VulkanRunnerBlocks, PackedQkvCutByOneSplit) {
  const int64_t t = 5, d = 24;
  NetBuilder b;
  ValueId x = b.g.add_value("tokens", DType::f32, Shape{t, 1, d});
  b.g.inputs = {x};
  ValueId qkv = b.node("Add", {b.node("MatMul", {x, b.constant(Shape{d, 3 * d}, 0.2f)}), b.constant(Shape{3 * d})});
  auto cut = [&](int64_t start) {
    return b.node("Slice", {qkv, b.g.add_constant(cat("start", start), Tensor::from<int64_t>(Shape{1}, {start})),
                            b.g.add_constant(cat("end", start), Tensor::from<int64_t>(Shape{1}, {start + d})),
                            b.g.add_constant(cat("axis", start), Tensor::from<int64_t>(Shape{1}, {2}))});
  };
  const ValueId q = cut(0), k = cut(d), v = cut(2 * d);
  b.g.outputs = {b.node("Add", {q, k}), b.node("Mul", {v, q})};
  Graph optimized = b.g;
  vk::optimize_for_vulkan(optimized);
  EXPECT_EQ(test::count_ops(optimized, "Slice"), 0);
  EXPECT_EQ(test::count_ops(optimized, "Split"), 1);
  check_network(ctx(), b.g, {test::random_tensor(Shape{t, 1, d}, 46)}, GetParam(), false, "packed QKV");
}

INSTANTIATE_TEST_SUITE_P(All, VulkanRunnerBlocks, ::testing::Values(Precision::fp32, Precision::fp16),
                         [](const auto& info) { return std::string(precision_name(info.param)); });

}  // namespace
}  // namespace vx::vk

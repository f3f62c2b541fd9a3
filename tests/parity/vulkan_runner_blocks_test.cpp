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
#include "backends/vulkan/segment_executable.h"
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

struct DispatchCountsAndResults {
  SegmentExecutable::DispatchCounts counts;
  std::vector<Tensor> expected, got;
};

// Runs `g` on the CPU reference and through the Vulkan runner (its optimisation passes, then
// optionally Conv(+Relu) -> vx.FusedConv as the CPU path fuses); every MatMul / Gemm / Conv /
// vx.FusedConv / pooling / normalisation node must run on the GPU. For each of `required`, some
// node of its op must run a kernel variant that contains its part.
struct RequiredVariant {
  std::string op, part;
};
void check_network(const vk::VulkanContext& ctx, Graph g, const std::vector<Tensor>& inputs, Precision precision,
                   bool fuse_conv_relu, const std::string& what, const std::vector<RequiredVariant>& required = {}) {
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
  const std::set<std::string> mine = {"MatMul", "Gemm", kFusedMatMul, "Conv", kFusedConv, kFusedConvResidual, kConvPair,
                                      "MaxPool", "GlobalAveragePool", "BatchNormalization", "LayerNormalization",
                                      "Split", "Slice", kExcite, kElementwiseChain};
  for (const runtime::NodePlacement& p : runner.last_executable()->placements()) {
    if (mine.count(p.op)) {
      EXPECT_FALSE(p.on_host) << what << ": " << p.node << " (" << p.op << ") on the CPU: " << p.reason;
    }
  }
  for (const RequiredVariant& r : required) {
    bool seen = false;
    for (const runtime::NodePlacement& p : runner.last_executable()->placements())
      seen = seen || (p.op == r.op && p.variant.find(r.part) != std::string::npos);
    EXPECT_TRUE(seen) << what << ": no " << r.op << " ran " << r.part << "\n" << runner.last_executable()->placement_report();
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

// Stem (7x7 stride 2 conv, BN, ReLU, 3x3 stride 2 max pool), a bottleneck with a projection
// shortcut (1x1, 3x3 stride 2, 1x1; BN after each), one with the identity, global average pool,
// flatten, Gemm.
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
  // A second bottleneck whose 1x1 reduction has K 64: enough to split in two.
  y = b.node("Relu", {b.node("Add", {r, s})});
  r = b.conv_bn(y, 64, 16, 1, 1, true);
  r = b.conv_bn(r, 16, 16, 3, 1, true);
  r = b.conv_bn(r, 16, 64, 1, 1, false);
  y = b.node("Relu", {b.node("Add", {r, y})});
  y = b.node("GlobalAveragePool", {y});
  y = b.node("Flatten", {y});
  Attributes gm;
  gm.set("transB", int64_t(1));
  y = b.node("Gemm", {y, b.constant(Shape{10, 64}), b.constant(Shape{10})}, gm);
  b.g.outputs = {y};
  // Each block's Add and Relu join the epilogue of a convolution they add; each 1x1 reduction and
  // the 3x3 layer reading it become one vx.ConvPair.
  Graph optimized = b.g;
  vk::optimize_for_vulkan(optimized);
  int residual_convs = 0, pairs = 0;
  for (const Node& n : optimized.nodes) {
    EXPECT_NE(n.op, "Add") << n.name;
    residual_convs += n.op == kFusedConvResidual && n.attrs.get_int("relu", 0) == 1;
    pairs += n.op == kConvPair && n.attrs.get_int("first_relu", 0) == 1 && n.attrs.get_int("relu", 0) == 1;
  }
  EXPECT_EQ(residual_convs, 2);
  EXPECT_EQ(pairs, 2);
  const Tensor image = test::random_tensor(Shape{1, 3, 32, 32}, 42);
  // The global average pool joins the last convolution (fuse_conv_global_mean); its K of 16 is
  // not split, so a pool dispatch reads the convolution's output.
  for (bool fuse : {false, true})
    check_network(ctx(), b.g, {image}, GetParam(), fuse, fuse ? "ResNet block, fused" : "ResNet block",
                  {{kFusedConvResidual, "+global_pool"}});
  // The im2col matrices materialised and K split: the pair's first reduce pass writes the second
  // convolution's matrix (kernels/conv.cpp), as ResNet-50's bottlenecks run on tensor cores.
  test::ScopedEnv im2col("VOLVOX_VK_IM2COL_MIN_MACS", "0"), split("VOLVOX_VK_SPLITK", "2"), gemm("VOLVOX_VK_CONV", "gemm");
  check_network(ctx(), b.g, {image}, GetParam(), false, "ResNet block, split K into im2col",
                {{kConvPair, "|gemm_reduce_im2col_"}});
}

// A GlobalAveragePool after a residual block's end and after a plain strided 3x3 convolution, two
// images: both fold into their convolution (fuse_conv_global_mean). With K split (2, or 3 in uneven
// chunks) the reduce pass adds the partial sums, applies the epilogue (bias, residual, ReLU) and
// averages each plane (shaders/gemm_reduce_mean.comp; 99 pixels: more than its 64 invocations);
// unsplit, a pool dispatch reads the convolution's output.
TEST_P(VulkanRunnerBlocks, GlobalMeanInTheLastConvolution) {
  NetBuilder b;
  ValueId x = b.g.add_value("image", DType::f32, Shape{2, 72, 9, 11});
  b.g.inputs = {x};
  ValueId y = b.node("Relu", {b.node("Add", {b.conv_bn(x, 72, 72, 1, 1, false), x})});
  y = b.node("Flatten", {b.node("GlobalAveragePool", {y})});
  Attributes gm;
  gm.set("transB", int64_t(1));
  const ValueId classes = b.node("Gemm", {y, b.constant(Shape{10, 72}), b.constant(Shape{10})}, gm);
  const ValueId plain = b.node("GlobalAveragePool", {b.conv_bn(x, 72, 20, 3, 2, true)});
  b.g.outputs = {classes, plain};
  Graph optimized = b.g;
  vk::optimize_for_vulkan(optimized);
  int means = 0;
  for (const Node& n : optimized.nodes) {
    EXPECT_NE(n.op, "GlobalAveragePool") << n.name;
    means += n.attrs.get_int("global_mean", 0);
  }
  EXPECT_EQ(means, 2);
  const Tensor image = test::random_tensor(Shape{2, 72, 9, 11}, 50);
  check_network(ctx(), b.g, {image}, GetParam(), false, "global mean");
  test::ScopedEnv gemm("VOLVOX_VK_CONV", "gemm");
  for (const char* splits : {"2", "3"}) {
    test::ScopedEnv split("VOLVOX_VK_SPLITK", splits);
    check_network(ctx(), b.g, {image}, GetParam(), false, cat("global mean, K in ", splits),
                  {{kFusedConvResidual, "+reduce_mean"}, {kFusedConv, "+reduce_mean"}});
  }
  test::ScopedEnv split("VOLVOX_VK_SPLITK", "1");
  check_network(ctx(), b.g, {image}, GetParam(), false, "global mean, K whole",
                {{kFusedConvResidual, "+global_pool"}, {kFusedConv, "+global_pool"}});
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
// exports an encoder layer's attention): one Split (passes/merge_sibling_slices.h), which the
// product then absorbs as three column panels (passes/matmul_column_panels.h): no copy at all.
TEST_P(VulkanRunnerBlocks, PackedQkvCutBySlicesCostsNoCopy) {
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
  EXPECT_EQ(test::count_ops(optimized, "Split"), 0);
  EXPECT_EQ(test::count_ops(optimized, "Gather"), 3);
  check_network(ctx(), b.g, {test::random_tensor(Shape{t, 1, d}, 46)}, GetParam(), false, "packed QKV");
}

// Squeeze-and-excitation blocks as MobileNetV3 and PaddleOCR export them: GlobalAveragePool, 1x1
// Conv + Relu, 1x1 Conv + HardSigmoid (or Sigmoid), Mul with the block's input (either operand
// order), PaddleOCR's residual Add after it. Each becomes one vx.Excite (passes/fuse_squeeze_excite.h):
// a small one computing the squeeze in every workgroup (20 x 6 products), a large one in two
// passes (136 x 40), at odd pixel counts.
TEST_P(VulkanRunnerBlocks, SqueezeExciteBlocksAsExcite) {
  NetBuilder b;
  ValueId x = b.g.add_value("image", DType::f32, Shape{2, 20, 9, 7});
  b.g.inputs = {x};
  Attributes hard_sigmoid;
  hard_sigmoid.set("alpha", 0.2f);
  hard_sigmoid.set("beta", 0.5f);
  auto conv1x1 = [&](ValueId in, int64_t cin, int64_t cout) {
    Attributes a;
    a.set("kernel_shape", std::vector<int64_t>{1, 1});
    return b.node("Conv", {in, b.constant(Shape{cout, cin, 1, 1}, 1.5f / std::sqrt(float(cin))), b.constant(Shape{cout})}, a);
  };
  auto se = [&](ValueId in, int64_t c, int64_t r, bool sigmoid, bool gate_first) {
    const ValueId h = b.node("Relu", {conv1x1(b.node("GlobalAveragePool", {in}), c, r)});
    const ValueId e = sigmoid ? b.node("Sigmoid", {conv1x1(h, r, c)}) : b.node("HardSigmoid", {conv1x1(h, r, c)}, hard_sigmoid);
    return gate_first ? b.node("Mul", {e, in}) : b.node("Mul", {in, e});
  };
  ValueId y = b.node("Relu", {conv1x1(x, 20, 20)});
  y = b.node("Add", {y, se(y, 20, 6, false, true)});  // PaddleOCR's RSE layer: X + X * E
  y = b.node("Relu", {conv1x1(y, 20, 136)});
  Attributes stride2;
  stride2.set("kernel_shape", std::vector<int64_t>{3, 3});
  stride2.set("strides", std::vector<int64_t>{2, 2});
  stride2.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  stride2.set("group", int64_t(136));
  y = b.node("Conv", {y, b.constant(Shape{136, 1, 3, 3}, 0.3f)}, stride2);  // 5 x 4 pixels
  y = se(y, 136, 40, true, false);
  b.g.outputs = {conv1x1(y, 136, 8)};
  Graph optimized = b.g;
  vk::optimize_for_vulkan(optimized);
  EXPECT_EQ(test::count_ops(optimized, kExcite), 2);
  EXPECT_EQ(test::count_ops(optimized, "Mul"), 0);
  EXPECT_EQ(test::count_ops(optimized, "Add"), 0);
  EXPECT_EQ(test::count_ops(optimized, "GlobalAveragePool"), 2);
  check_network(ctx(), b.g, {test::random_tensor(Shape{2, 20, 9, 7}, 47)}, GetParam(), false, "SE blocks");
}

// One SE block without biases, E a ReLU, on X of `shape` squeezed to `squeezed` channels.
void check_plain_squeeze_excite(const vk::VulkanContext& ctx, const Shape& shape, int64_t squeezed, Precision precision,
                                const std::string& what) {
  NetBuilder b;
  ValueId x = b.g.add_value("image", DType::f32, shape);
  b.g.inputs = {x};
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{1, 1});
  const float scale = 1.5f / std::sqrt(float(shape[1]));
  const ValueId h = b.node("Conv", {b.node("GlobalAveragePool", {x}), b.constant(Shape{squeezed, shape[1], 1, 1}, scale)}, a);
  const ValueId e = b.node("Relu", {b.node("Conv", {b.node("Relu", {h}), b.constant(Shape{shape[1], squeezed, 1, 1})}, a)});
  b.g.outputs = {b.node("Mul", {x, e})};
  Graph optimized = b.g;
  vk::optimize_for_vulkan(optimized);
  EXPECT_EQ(test::count_ops(optimized, kExcite), 1) << what;
  check_network(ctx, b.g, {test::random_tensor(shape, 48)}, precision, false, what);
}

// A larger map (40 x 33 pixels: a workgroup scales at most 1024 values, so each channel takes two
// workgroups, the second one partly filled); more channels than a workgroup's threads load at
// once for a row of W1 (16 x 256: the rest in a loop).
TEST_P(VulkanRunnerBlocks, SqueezeExciteOverManyPixelsOrChannels) {
  check_plain_squeeze_excite(ctx(), Shape{1, 12, 40, 33}, 5, GetParam(), "SE block, many pixels");
  check_plain_squeeze_excite(ctx(), Shape{1, 4100, 1, 3}, 3, GetParam(), "SE block, many channels");
}

// A mel-spectrogram's tail (openWakeWord's): the power spectrum's MatMul, then Clip, Log, Mul,
// Div, Sub by constants: one vx.ElementwiseChain after the MatMul (passes/fuse_elementwise_chains.h).
TEST_P(VulkanRunnerBlocks, ElementwiseTailAsOneChain) {
  NetBuilder b;
  ValueId x = b.g.add_value("spectrum", DType::f32, Shape{1, 1, 97, 40});
  b.g.inputs = {x};
  auto scalar = [&](float v) { return b.g.add_constant(cat("k", b.count++), Tensor::from<float>(Shape{}, {v})); };
  // Positive mel weights: the power stays well above the clip, where Log is well conditioned at fp16.
  const ValueId mel = b.g.add_constant("mel", test::random_tensor(Shape{40, 32}, b.seed++, 0.1f, 1.0f));
  ValueId y = b.node("MatMul", {b.node("Mul", {x, x}), mel});
  y = b.node("Clip", {y, scalar(1e-10f), kNoValue});
  y = b.node("Log", {y});
  y = b.node("Mul", {y, scalar(10.0f)});
  y = b.node("Div", {y, scalar(2.302585f)});
  b.g.outputs = {b.node("Sub", {y, scalar(-3.0f)})};
  Graph optimized = b.g;
  vk::optimize_for_vulkan(optimized);
  EXPECT_EQ(test::count_ops(optimized, kElementwiseChain), 1);
  EXPECT_EQ(test::count_ops(optimized, "Log"), 0);
  check_network(ctx(), b.g, {test::random_tensor(Shape{1, 1, 97, 40}, 49)}, GetParam(), false, "elementwise tail");
}

// Barriers only between dependent dispatches (backends/vulkan/dispatch_hazards.h): three depthwise
// convolutions (one dispatch each, on the direct kernel), all graph outputs: the first and the third
// of the input, the second of the input too (it runs beside the first) or of the first's output (it
// waits for it). The third keeps the input alive: no output reuses its bytes. The shared test context
// runs the validation layer's synchronization checks: a missing barrier is a message there, and the
// fixture fails the test on it.
DispatchCountsAndResults run_branches(const vk::VulkanContext& ctx, bool chained, Precision precision) {
  NetBuilder b;
  const Shape shape{1, 6, 11, 9};
  ValueId x = b.g.add_value("x", DType::f32, shape);
  b.g.inputs = {x};
  Attributes depthwise;
  depthwise.set("kernel_shape", std::vector<int64_t>{3, 3});
  depthwise.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  depthwise.set("group", int64_t(6));
  const ValueId left = b.node("Conv", {x, b.constant(Shape{6, 1, 3, 3})}, depthwise);
  const ValueId right = b.node("Conv", {chained ? left : x, b.constant(Shape{6, 1, 3, 3})}, depthwise);
  b.g.outputs = {left, right, b.node("Conv", {x, b.constant(Shape{6, 1, 3, 3})}, depthwise)};
  const std::vector<Tensor> feeds = {test::random_tensor(shape, 77).to(DType::f16).to(DType::f32)};
  DispatchCountsAndResults r;
  r.expected = test::run_cpu_reference(b.g, feeds);
  DeviceRunnerOptions o;
  o.precision = precision;
  DeviceModelRunner runner(vk::compute_device(ctx), b.g, o);
  r.got = runner.run(feeds);
  const auto* segments = dynamic_cast<const SegmentExecutable*>(runner.last_executable()->compiled(0));
  if (segments) r.counts = segments->dispatch_counts();
  return r;
}

TEST_P(VulkanRunnerBlocks, IndependentDispatchesShareABarrier) {
  for (bool chained : {false, true}) {
    SCOPED_TRACE(chained ? "chained convolutions" : "independent convolutions");
    const DispatchCountsAndResults r = run_branches(ctx(), chained, GetParam());
    EXPECT_EQ(r.counts.dispatches, 3u);
    EXPECT_EQ(r.counts.barriers, chained ? 2u : 1u);
    ASSERT_EQ(r.got.size(), 3u);
    for (size_t i = 0; i < 3; ++i)
      EXPECT_LE(test::max_abs_diff(r.got[i].to(DType::f32), r.expected[i]), GetParam() == Precision::fp16 ? 2e-2 : 1e-5);
  }
}

// ResNet's first block of a stage with its products split over K (VOLVOX_VK_SPLITK=2: a GEMM
// dispatch and a reduce pass each (VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS=0), writing split-K
// scratch; the last conv's K of 8 stays whole):
// the block's last conv takes the downsample conv's output as its residual (fuse_conv_residual), so
// the downsample conv depends on the block's input only, is recorded beside the first conv, and
// its scratch is placed apart from that conv's. Its dispatches are interleaved with the first
// conv's (recording_order.h): the two GEMMs run together, then the two reduce passes (5 barriers
// for 7 dispatches). Without the interleaving (VOLVOX_VK_INTERLEAVE=0) its GEMM follows the first
// conv's reduce pass without a barrier (6); with all four convs chained it would be 7. The
// synchronization checks of the shared context fail the test on any missing barrier.
TEST_P(VulkanRunnerBlocks, DownsampleConvRunsBesideTheBlocksFirstConv) {
  test::ScopedEnv split("VOLVOX_VK_SPLITK", "2"), as_pass("VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS", "0");
  test::ScopedEnv gemm("VOLVOX_VK_CONV", "gemm");
  NetBuilder b;
  ValueId x = b.g.add_value("x", DType::f32, Shape{1, 64, 9, 11});
  b.g.inputs = {x};
  ValueId r = b.conv_bn(x, 64, 8, 1, 1, true);
  r = b.conv_bn(r, 8, 8, 3, 1, true);
  r = b.conv_bn(r, 8, 32, 1, 1, false);
  const ValueId s = b.conv_bn(x, 64, 32, 1, 1, false);
  b.g.outputs = {b.node("Relu", {b.node("Add", {r, s})})};
  std::vector<Tensor> feeds = {test::random_tensor(Shape{1, 64, 9, 11}, 43)};
  if (GetParam() == Precision::fp16) feeds[0] = feeds[0].to(DType::f16).to(DType::f32);
  const std::vector<Tensor> expected = test::run_cpu_reference(b.g, feeds);
  for (const char* interleave : {"1", "0"}) {
    SCOPED_TRACE(std::string("VOLVOX_VK_INTERLEAVE=") + interleave);
    test::ScopedEnv env("VOLVOX_VK_INTERLEAVE", interleave);
    DeviceRunnerOptions o;
    o.precision = GetParam();
    DeviceModelRunner runner(vk::compute_device(ctx()), b.g, o);
    const std::vector<Tensor> got = runner.run(feeds);
    const auto* segments = dynamic_cast<const SegmentExecutable*>(runner.last_executable()->compiled(0));
    ASSERT_NE(segments, nullptr);
    EXPECT_EQ(segments->dispatch_counts().dispatches, 7u);
    EXPECT_EQ(segments->dispatch_counts().barriers, interleave[0] == '1' ? 5u : 6u);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_LE(test::max_diff_over_peak(got[0].to(DType::f32), expected[0]), GetParam() == Precision::fp16 ? 2e-2 : 1e-4);
  }
}

INSTANTIATE_TEST_SUITE_P(All, VulkanRunnerBlocks, ::testing::Values(Precision::fp32, Precision::fp16),
                         [](const auto& info) { return std::string(precision_name(info.param)); });

}  // namespace
}  // namespace vx::vk

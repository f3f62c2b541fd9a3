// Dispatches ordered by counters instead of barriers (VOLVOX_VK_DISPATCH_CHAIN=counters,
// shaders/dispatch_chain.glsl): a ResNet-shaped block and a transformer-shaped block give the CPU
// reference's results, their chainable dispatches in runs without barriers between them.
//
// Runs on a context of its own without the validation layer: a chain leaves out barriers on
// purpose, which the synchronization checks report. Tolerances as the runner suites': max |gpu -
// ref| <= 1e-4 * max(1, max |ref|) at fp32, 2e-2 at fp16.
#include <gtest/gtest.h>

#include <string>

#include "backends/vulkan/context.h"
#include "backends/vulkan/segment_executable.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "common/graph_builder.h"
#include "common/test_util.h"
#include "session/device_model_runner.h"

namespace vx::vk {
namespace {

struct ChainRun {
  SegmentExecutable::DispatchCounts counts;
  double diff_over_peak = 0;
};

ChainRun run(const VulkanContext& ctx, const test::GraphBuilder& b, Precision precision, const char* chain) {
  test::ScopedEnv env("VOLVOX_VK_DISPATCH_CHAIN", chain);
  std::vector<Tensor> feeds = b.feeds;
  if (precision == Precision::fp16)
    for (Tensor& t : feeds) t = t.to(DType::f16).to(DType::f32);
  const std::vector<Tensor> expected = test::run_cpu_reference(b.g, feeds);
  DeviceRunnerOptions o;
  o.precision = precision;
  DeviceModelRunner runner(compute_device(ctx), b.g, o);
  const std::vector<Tensor> got = runner.run(feeds);
  ChainRun r;
  const auto* segments = dynamic_cast<const SegmentExecutable*>(runner.last_executable()->compiled(0));
  if (segments) r.counts = segments->dispatch_counts();
  EXPECT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size() && i < expected.size(); ++i)
    r.diff_over_peak = std::max(r.diff_over_peak, test::max_diff_over_peak(got[i].to(DType::f32), expected[i]));
  return r;
}

Attributes conv_attrs(int64_t k, int64_t stride) {
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{k, k});
  a.set("strides", std::vector<int64_t>{stride, stride});
  a.set("pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
  return a;
}

// A bottleneck with its residual, max pool, global average pool and a classifier, at odd sizes.
test::GraphBuilder resnet_block() {
  test::GraphBuilder b;
  const ValueId x = b.input("x", Shape{1, 24, 13, 11});
  auto conv = [&](ValueId in, int64_t cin, int64_t cout, int64_t k) {
    const ValueId w = b.constant(test::random_tensor(Shape{cout, cin, k, k}, b.seed++, -0.3f, 0.3f));
    return b.node("Relu", {b.node("Conv", {in, w, b.constant(test::random_tensor(Shape{cout}, b.seed++, -0.1f, 0.1f))},
                                  conv_attrs(k, 1))});
  };
  ValueId y = conv(x, 24, 12, 1);
  y = conv(y, 12, 12, 3);
  y = b.node("Add", {conv(y, 12, 24, 1), x});
  Attributes pool = conv_attrs(3, 2);
  y = b.node("MaxPool", {y}, pool);
  y = b.node("Flatten", {b.node("GlobalAveragePool", {y})});
  Attributes gemm;
  gemm.set("transB", int64_t(1));
  b.g.outputs = {b.node("Gemm", {y, b.constant(test::random_tensor(Shape{10, 24}, b.seed++, -0.5f, 0.5f)),
                                 b.constant(test::random_tensor(Shape{10}, b.seed++, -0.1f, 0.1f))},
                        gemm)};
  return b;
}

// Projections, softmax attention, a residual and a layer norm over 37 tokens.
test::GraphBuilder transformer_block() {
  test::GraphBuilder b;
  const int64_t tokens = 37, d = 40;
  const ValueId x = b.input("x", Shape{1, tokens, d});
  auto project = [&](ValueId in, int64_t n) {
    return b.node("Add", {b.node("MatMul", {in, b.constant(test::random_tensor(Shape{d, n}, b.seed++, -0.3f, 0.3f))}),
                          b.constant(test::random_tensor(Shape{n}, b.seed++, -0.1f, 0.1f))});
  };
  const ValueId q = project(x, d), k = project(x, d), v = project(x, d);
  Attributes perm;
  perm.set("perm", std::vector<int64_t>{0, 2, 1});
  ValueId scores = b.node("MatMul", {q, b.node("Transpose", {k}, perm)});
  Attributes last;
  last.set("axis", int64_t(-1));
  ValueId y = b.node("MatMul", {b.node("Softmax", {scores}, last), v});
  y = b.node("Add", {project(y, d), x});
  b.g.outputs = {b.node("LayerNormalization",
                        {y, b.constant(test::random_tensor(Shape{d}, b.seed++, 0.5f, 1.5f)),
                         b.constant(test::random_tensor(Shape{d}, b.seed++, -0.1f, 0.1f))},
                        last)};
  return b;
}

TEST(VulkanDispatchChain, BlocksMatchTheReferenceWithFewerBarriers) {
  std::unique_ptr<VulkanContext> ctx;
  try {
    ctx = std::make_unique<VulkanContext>();
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no Vulkan device: " << e.what();
  }
  if (!ctx->info().vulkan_memory_model) GTEST_SKIP() << "the device lacks vulkanMemoryModel, which the chain's atomics need";
  for (Precision precision : {Precision::fp32, Precision::fp16}) {
    if (precision == Precision::fp16 && !ctx->fp16_enabled()) continue;
    for (const auto& [what, block] : {std::pair{"ResNet block", resnet_block()}, std::pair{"transformer block", transformer_block()}}) {
      SCOPED_TRACE(std::string(what) + (precision == Precision::fp16 ? " fp16" : " fp32"));
      const ChainRun barriers = run(*ctx, block, precision, "none");
      const ChainRun chained = run(*ctx, block, precision, "counters");
      const double tolerance = precision == Precision::fp16 ? 2e-2 : 1e-4;
      EXPECT_LE(barriers.diff_over_peak, tolerance);
      EXPECT_LE(chained.diff_over_peak, tolerance);
      EXPECT_EQ(chained.counts.dispatches, barriers.counts.dispatches);
      EXPECT_GE(barriers.counts.dispatches, 5u);
      // Every GEMM, reduce, pooling, attention and normalisation shader has a .chain build: a few
      // barriers remain where another kernel (an elementwise one, a conversion) breaks the run.
      EXPECT_LE(chained.counts.barriers * 2, barriers.counts.barriers)
          << chained.counts.barriers << " barriers chained, " << barriers.counts.barriers << " without";
    }
  }
}

}  // namespace
}  // namespace vx::vk

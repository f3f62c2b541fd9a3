// The Vulkan path's Conv fusions (optimize_for_vulkan): a Conv + BatchNormalization + Relu chain
// and a strided 1x1 Conv without activation run as vx.FusedConv nodes on the GPU (no Relu or
// BatchNormalization node left); a U-Net as PyTorch exports it (Conv + Relu, MaxPool, Resize
// nearest x2, Concat) becomes a network of 3x3 vx.FusedConv layers that runs whole on the
// denoiser's executable and kernels, and at batch 2 (which that executable does not take) on the
// per-op kernels; a residual Add behind an input of open H and W fuses once the input's shape is
// given. Each gives the CPU reference's result of the unfused graph (fp32 1e-4, fp16 3e-2
// relative + absolute).
#include <gtest/gtest.h>

#include "api/model_session.h"
#include "common/graph_builder.h"
#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "ops/fused_ops.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "denoise_vulkan/vulkan_device.h"
#include "session/device_model_runner.h"

namespace vx {
namespace {

class VulkanConvFusion : public test::VulkanOpTest {};

// Relu(BatchNormalization(Conv 3x3, pads 1)) from c_in to c_out channels, its constants drawn from
// seeds `seed` .. `seed` + 5.
ValueId conv_bn_relu(test::GraphBuilder& b, ValueId x, int64_t c_in, int64_t c_out, uint64_t seed) {
  Attributes pads;
  pads.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const ValueId conv = b.node("Conv", {x, b.constant(test::random_tensor({c_out, c_in, 3, 3}, seed, -0.4f, 0.4f)),
                                       b.constant(test::random_tensor({c_out}, seed + 1))},
                              pads);
  return b.node("Relu", {b.node("BatchNormalization",
                                {conv, b.constant(test::random_tensor({c_out}, seed + 2, 0.5f, 1.5f)),
                                 b.constant(test::random_tensor({c_out}, seed + 3)),
                                 b.constant(test::random_tensor({c_out}, seed + 4)),
                                 b.constant(test::random_tensor({c_out}, seed + 5, 0.5f, 2.0f))})});
}

TEST_F(VulkanConvFusion, ConvBatchNormReluRunAsFusedConvs) {
  test::GraphBuilder b;
  const ValueId x = b.input("x", Shape{1, 5, 11, 9});
  const ValueId r = conv_bn_relu(b, x, 5, 7, 11);
  Attributes strided;
  strided.set("strides", std::vector<int64_t>{2, 2});
  const ValueId y = b.node("Conv", {r, b.constant(test::random_tensor({3, 7, 1, 1}, 17))}, strided);
  b.g.outputs = {y};
  const std::vector<Tensor> want = test::run_cpu_reference(b.g, b.feeds);

  for (Precision precision : {Precision::fp32, Precision::fp16}) {
    DeviceRunnerOptions o;
    o.precision = precision;
    DeviceModelRunner runner(vk::compute_device(ctx()), b.g, o);
    const std::vector<Tensor> feeds = precision == Precision::fp16 ? test::round_to_fp16(b.feeds) : b.feeds;
    const std::vector<Tensor> expected = precision == Precision::fp16 ? test::run_cpu_reference(b.g, feeds) : want;
    const test::Tolerance tol = precision == Precision::fp32 ? test::Tolerance{1e-4, 1e-4} : test::Tolerance{3e-2, 3e-2};
    EXPECT_TRUE(test::outputs_match(expected, runner.run(feeds), tol));
    EXPECT_EQ(test::count_ops(runner.graph(), kFusedConv), 2);
    EXPECT_EQ(test::count_ops(runner.graph(), "Relu") + test::count_ops(runner.graph(), "BatchNormalization") +
                  test::count_ops(runner.graph(), "Conv"),
              0);
    int relu_fused = 0;
    for (const Node& n : runner.graph().nodes) relu_fused += n.op == kFusedConv && n.attrs.get_int("relu", 0) == 1;
    EXPECT_EQ(relu_fused, 1);
    for (const runtime::NodePlacement& p : runner.last_executable()->placements()) {
      EXPECT_FALSE(p.on_host) << p.node << " (" << p.op << ") on the CPU: " << p.reason;
    }
  }
}

// OIDN's U-Net in small: in -> conv(6) relu -> conv(6) relu -> maxpool = p1 -> conv(8) relu ->
// maxpool -> conv(8) relu -> resize x2 -> concat(up, p1) -> conv(3).
test::GraphBuilder exported_unet(int64_t batch) {
  test::GraphBuilder b;
  const ValueId x = b.input("x", Shape{batch, 5, 12, 20});
  Attributes conv;
  conv.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  conv.set("kernel_shape", std::vector<int64_t>{3, 3});
  auto conv_relu = [&](ValueId in, int64_t cin, int64_t cout, uint64_t seed, bool relu) {
    const ValueId c = b.node("Conv", {in, b.constant(test::random_tensor({cout, cin, 3, 3}, seed, -0.4f, 0.4f)),
                                      b.constant(test::random_tensor({cout}, seed + 1))},
                             conv);
    return relu ? b.node("Relu", {c}) : c;
  };
  Attributes pool;
  pool.set("kernel_shape", std::vector<int64_t>{2, 2});
  pool.set("strides", std::vector<int64_t>{2, 2});
  const ValueId p1 = b.node("MaxPool", {conv_relu(conv_relu(x, 5, 6, 21, true), 6, 6, 23, true)}, pool);
  const ValueId p2 = b.node("MaxPool", {conv_relu(p1, 6, 8, 25, true)}, pool);
  Attributes nearest;
  nearest.set("mode", std::string("nearest"));
  nearest.set("coordinate_transformation_mode", std::string("asymmetric"));
  nearest.set("nearest_mode", std::string("floor"));
  const ValueId up = b.node("Resize", {conv_relu(p2, 8, 8, 27, true), b.constant(Tensor(DType::f32, Shape{0})),
                                       b.constant(Tensor::from<float>(Shape{4}, {1, 1, 2, 2}))},
                            nearest);
  Attributes channels;
  channels.set("axis", int64_t(1));
  b.g.outputs = {conv_relu(b.node("Concat", {up, p1}, channels), 14, 3, 29, false)};
  return b;
}

// Relu(x + Conv 1x1(conv_bn_relu(x))) on an input [1, 8, ?, ?] fed 9 x 7 (constants from seeds
// `seed` .. `seed` + 6). Its BatchNormalization folds into the weights at load time and again per
// shape: each fold must leave the imported constants as they were.
test::GraphBuilder open_shape_residual_block(uint64_t seed) {
  test::GraphBuilder b;
  const ValueId x = b.input("x", Shape{1, 8, 9, 7});
  const ValueId a = conv_bn_relu(b, x, 8, 8, seed);
  const ValueId conv = b.node("Conv", {a, b.constant(test::random_tensor({8, 8, 1, 1}, seed + 6, -0.3f, 0.3f))});
  b.g.outputs = {b.node("Relu", {b.node("Add", {conv, x})})};
  b.g.value(x).shape = Shape{1, 8, -1, -1};
  return b;
}

// A model whose input leaves H and W open (as PaddleOCR's do): the passes cannot tell at load time
// that the residual Add's operands have one shape, so the runner's generic graph keeps the Add; the
// executable for the given shape runs the passes again with it declared, and the Add joins the
// convolution (vx.FusedConvResidual).
TEST_F(VulkanConvFusion, ResidualFusesOnceTheInputShapeIsKnown) {
  const test::GraphBuilder b = open_shape_residual_block(21);
  const std::vector<Tensor> want = test::run_cpu_reference(b.g, b.feeds);
  const std::vector<Tensor> want_fp16 = test::run_cpu_reference(b.g, test::round_to_fp16(b.feeds));
  for (Precision precision : {Precision::fp32, Precision::fp16}) {
    SCOPED_TRACE(precision_name(precision));
    DeviceRunnerOptions o;
    o.precision = precision;
    DeviceModelRunner runner(vk::compute_device(ctx()), b.g, o);
    const std::vector<Tensor> feeds = precision == Precision::fp16 ? test::round_to_fp16(b.feeds) : b.feeds;
    const std::vector<Tensor> expected = precision == Precision::fp16 ? want_fp16 : want;
    const test::Tolerance tol = precision == Precision::fp32 ? test::Tolerance{1e-4, 1e-4} : test::Tolerance{3e-2, 3e-2};
    EXPECT_TRUE(test::outputs_match(expected, runner.run(feeds), tol));
    EXPECT_EQ(test::count_ops(runner.graph(), "Add"), 1);
    const Graph& bound = runner.last_executable()->bound_graph();
    EXPECT_EQ(test::count_ops(bound, "Add"), 0);
    EXPECT_EQ(test::count_ops(bound, kFusedConvResidual), 1);
    for (const runtime::NodePlacement& p : runner.last_executable()->placements())
      EXPECT_FALSE(p.on_host) << p.node << " (" << p.op << ") on the CPU: " << p.reason;
  }
}

// The same through the model session of the C API and Python: each input shape gets its own
// passes there too (the profile lists the nodes that ran), while graph() keeps the generic graph.
TEST_F(VulkanConvFusion, ModelSessionFusesOnceTheInputShapeIsKnown) {
  const test::GraphBuilder b = open_shape_residual_block(31);
  const std::vector<Tensor> want = test::run_cpu_reference(b.g, b.feeds);
  denoise::VulkanDeviceOptions options;
  options.validation = true;
  std::unique_ptr<api::ModelSession> session = api::make_model_session(denoise::make_vulkan_device("vulkan", options), b.g);
  session->set_profiling(true);
  Profile profile;
  EXPECT_TRUE(test::outputs_match(want, session->run(b.feeds, {}, &profile), test::Tolerance{1e-4, 1e-4}));
  EXPECT_EQ(test::count_ops(session->graph(), "Add"), 1);
  int adds = 0, residuals = 0;
  for (const ProfileEntry& e : profile.entries) {
    adds += e.op == "Add";
    residuals += e.op == kFusedConvResidual;
    EXPECT_EQ(e.variant.rfind("vulkan:", 0), 0u) << e.node << " (" << e.op << ") ran on " << e.variant;
  }
  EXPECT_EQ(adds, 0);
  EXPECT_EQ(residuals, 1);
}

TEST_F(VulkanConvFusion, ExportedUNetRunsOnTheFusedConvKernels) {
  for (int64_t batch : {1, 2}) {
    test::GraphBuilder b = exported_unet(batch);
    for (Precision precision : {Precision::fp32, Precision::fp16}) {
      SCOPED_TRACE(cat("batch ", batch, ", ", precision_name(precision)));
      DeviceRunnerOptions o;
      o.precision = precision;
      DeviceModelRunner runner(vk::compute_device(ctx()), b.g, o);
      const std::vector<Tensor> feeds = precision == Precision::fp16 ? test::round_to_fp16(b.feeds) : b.feeds;
      const test::Tolerance tol = precision == Precision::fp32 ? test::Tolerance{1e-4, 1e-4} : test::Tolerance{3e-2, 3e-2};
      EXPECT_TRUE(test::outputs_match(test::run_cpu_reference(b.g, feeds), runner.run(feeds), tol));
      EXPECT_EQ(runner.graph().nodes.size(), 5u) << "Resize, Concat and MaxPool fused into the convolutions";
      EXPECT_EQ(test::count_ops(runner.graph(), kFusedConv), 5);
      for (const runtime::NodePlacement& p : runner.last_executable()->placements()) {
        EXPECT_FALSE(p.on_host) << p.node << " (" << p.op << ") on the CPU: " << p.reason;
        // Batch 1: the denoiser's conv kernels (variant names of conv3x3.h); batch 2: the general
        // ones, the GEMM or (the deepest level's few outputs) the dot kernel.
        if (batch == 1) EXPECT_EQ(p.variant.rfind("gemm", 0), std::string::npos) << p.node << ": " << p.variant;
        else
          EXPECT_TRUE(p.variant.find("gemm") != std::string::npos || p.variant.find("dot") != std::string::npos)
              << p.node << ": " << p.variant;
      }
    }
  }
}

}  // namespace
}  // namespace vx

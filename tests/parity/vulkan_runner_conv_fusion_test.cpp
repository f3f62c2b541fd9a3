// The Vulkan path's Conv fusion (optimize_for_vulkan: fold_conv_affine, fuse_conv_bias_relu):
// a Conv + BatchNormalization + Relu chain and a strided 1x1 Conv without activation run as
// vx.FusedConv nodes on the GPU (no Relu or BatchNormalization node left) and give the CPU
// reference's result of the unfused graph (fp32 1e-4, fp16 3e-2 relative + absolute).
#include <gtest/gtest.h>

#include "common/graph_builder.h"
#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "ops/fused_ops.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "session/device_model_runner.h"

namespace vx {
namespace {

class VulkanConvFusion : public test::VulkanOpTest {};

TEST_F(VulkanConvFusion, ConvBatchNormReluRunAsFusedConvs) {
  test::GraphBuilder b;
  const ValueId x = b.input("x", Shape{1, 5, 11, 9});
  Attributes conv;
  conv.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const ValueId c1 = b.node("Conv", {x, b.constant(test::random_tensor({7, 5, 3, 3}, 11, -0.4f, 0.4f)),
                                     b.constant(test::random_tensor({7}, 12))},
                            conv);
  const ValueId bn = b.node("BatchNormalization",
                            {c1, b.constant(test::random_tensor({7}, 13, 0.5f, 1.5f)),
                             b.constant(test::random_tensor({7}, 14)), b.constant(test::random_tensor({7}, 15)),
                             b.constant(test::random_tensor({7}, 16, 0.5f, 2.0f))});
  const ValueId r = b.node("Relu", {bn});
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

}  // namespace
}  // namespace vx

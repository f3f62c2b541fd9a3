// IO binding on Vulkan (runtime::ScheduledExecutable::run with device values): graph inputs read
// from, and outputs written to, VkBuffers of the device instead of host tensors, on the per-op
// executor (values converted to fp16 on the GPU at fp16) and on the fused conv network executor
// (the NCHW <-> NHWC4 conversion reading and writing the caller's buffers). Each output read back
// from its buffer matches the CPU reference (fp32 1e-4, fp16 3e-2 relative + absolute); a second
// run with new values in the input buffer gives their result; an input that a CPU node reads
// cannot be bound, and a refused binding changes nothing. Under the validation layer.
#include <gtest/gtest.h>

#include <cstring>

#include "backends/vulkan/memory.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "common/graph_builder.h"
#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "session/device_model_runner.h"

namespace vx {
namespace {

using NamedDeviceValue = runtime::ScheduledExecutable::NamedDeviceValue;

class VulkanIoBinding : public test::VulkanOpTest {
 protected:
  // A host-visible buffer of the test's device holding `bytes` from `offset` on.
  vk::DeviceBuffer buffer(uint64_t bytes) { return vk::DeviceBuffer(ctx(), bytes, vk::MemoryUse::Staging, "io binding test"); }
  static uint64_t handle(const vk::DeviceBuffer& b) { return uint64_t(reinterpret_cast<uintptr_t>(b.buffer())); }
  static void write(const vk::DeviceBuffer& b, uint64_t offset, const Tensor& t) {
    std::memcpy(b.mapped() + offset, t.raw(), t.nbytes());
    b.flush();
  }
  static Tensor read(const vk::DeviceBuffer& b, uint64_t offset, const Shape& shape) {
    b.invalidate();
    Tensor t(DType::f32, shape);
    std::memcpy(t.raw(), b.mapped() + offset, t.nbytes());
    return t;
  }

  // Runs `g` with its one input and one output bound (at `offset` in their buffers), twice with
  // different input values, against the CPU reference; then with the output unbound.
  // `network`: the graph runs on the fused conv network executable (conv3x3.h's tiled or coopmat
  // variants), else on the per-op kernels (the direct convolution or the GEMM).
  void check(const test::GraphBuilder& b, uint64_t offset, size_t expected_nodes, bool network) {
    const Graph& g = b.g;
    const Shape in_shape = g.value(g.inputs[0]).shape;
    for (Precision precision : {Precision::fp32, Precision::fp16}) {
      SCOPED_TRACE(precision_name(precision));
      DeviceRunnerOptions o;
      o.precision = precision;
      DeviceModelRunner runner(vk::compute_device(ctx()), g, o);
      const test::Tolerance tol = precision == Precision::fp32 ? test::Tolerance{1e-4, 1e-4} : test::Tolerance{3e-2, 3e-2};
      const std::vector<Tensor> first = runner.run(b.feeds);  // unbound: the output's shape, and a warm cache
      const Shape out_shape = first[0].shape();
      vk::DeviceBuffer in = buffer(offset + in_shape.numel() * 4), out = buffer(offset + out_shape.numel() * 4);
      const std::vector<NamedDeviceValue> bound = {{g.value(g.inputs[0]).name, handle(in), offset},
                                                   {g.value(g.outputs[0]).name, handle(out), offset}};
      const Tensor placeholder = Tensor::wrap(DType::f32, in_shape, nullptr);
      for (uint64_t seed : {11, 12}) {
        std::vector<Tensor> feeds = {test::random_tensor(in_shape, seed, -1.0f, 1.0f)};
        if (precision == Precision::fp16) feeds = test::round_to_fp16(feeds);
        write(in, offset, feeds[0]);
        const std::vector<Tensor> outputs = runner.run({placeholder}, nullptr, bound);
        ASSERT_EQ(outputs.size(), 1u);
        EXPECT_EQ(outputs[0].raw(), nullptr) << "a bound output comes back as a placeholder";
        EXPECT_EQ(outputs[0].shape(), out_shape);
        EXPECT_TRUE(test::outputs_match(test::run_cpu_reference(g, feeds), {read(out, offset, out_shape)}, tol))
            << "seed " << seed;
      }
      // The input stays bound, the output goes back to the host.
      const std::vector<Tensor> host = runner.run({placeholder}, nullptr, {bound[0]});
      ASSERT_NE(host[0].raw(), nullptr);
      EXPECT_TRUE(test::outputs_match({read(out, offset, out_shape)}, host, {1e-6, 1e-6}));
      EXPECT_EQ(runner.graph().nodes.size(), expected_nodes);
      for (const runtime::NodePlacement& p : runner.last_executable()->placements()) {
        EXPECT_FALSE(p.on_host) << p.node << " (" << p.op << ") on the CPU: " << p.reason;
        const bool network_variant = p.variant == "tiled" || p.variant.rfind("coopmat", 0) == 0;
        if (p.op == "vx.FusedConv") {
          EXPECT_EQ(network_variant, network) << p.variant;
        }
      }
    }
  }
};

Attributes conv3x3() {
  Attributes a;
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  a.set("kernel_shape", std::vector<int64_t>{3, 3});
  return a;
}

TEST_F(VulkanIoBinding, PerOpExecutorReadsAndWritesTheCallersBuffers) {
  // Conv + Sigmoid: one vx.FusedConv with a logistic post-op, which the fused conv network does not
  // take, so the per-op executor runs it. Odd sizes; an offset that is a multiple of the
  // storage-buffer alignment (the fp16 conversion binds it as a descriptor).
  test::GraphBuilder b;
  const ValueId x = b.input("x", Shape{1, 3, 9, 7});
  const ValueId c = b.node("Conv", {x, b.constant(test::random_tensor({5, 3, 3, 3}, 3, -0.5f, 0.5f)),
                                    b.constant(test::random_tensor({5}, 4))},
                           conv3x3());
  b.g.outputs = {b.node("Sigmoid", {c})};
  b.feeds = {test::random_tensor({1, 3, 9, 7}, 5)};
  check(b, 256, 1, false);
}

TEST_F(VulkanIoBinding, FusedConvNetworkReadsAndWritesTheCallersBuffers) {
  // Two 3x3 convolutions: the denoiser's executable, whose layout conversions read and write the buffers.
  test::GraphBuilder b;
  const ValueId x = b.input("x", Shape{1, 5, 8, 12});
  const ValueId c1 = b.node("Relu", {b.node("Conv", {x, b.constant(test::random_tensor({6, 5, 3, 3}, 6, -0.4f, 0.4f)),
                                                     b.constant(test::random_tensor({6}, 7))},
                                            conv3x3())});
  b.g.outputs = {b.node("Conv", {c1, b.constant(test::random_tensor({3, 6, 3, 3}, 8, -0.4f, 0.4f)),
                                 b.constant(test::random_tensor({3}, 9))},
                        conv3x3())};
  b.feeds = {test::random_tensor({1, 5, 8, 12}, 10)};
  check(b, 512, 2, true);
}

TEST_F(VulkanIoBinding, ARefusedBindingLeavesTheExecutableAsItWas) {
  // At fp16 a bound input is read through a descriptor: an offset off the device's alignment is
  // refused, with the output bound beside it; the next unbound run reads and writes the host as before.
  const uint64_t alignment = ctx().properties().limits.minStorageBufferOffsetAlignment;
  if (alignment <= 4) GTEST_SKIP() << "the device aligns storage buffers to " << alignment << " bytes: every offset is valid";
  test::GraphBuilder b;
  const ValueId x = b.input("x", Shape{3, 5});
  b.g.outputs = {b.node("Sigmoid", {x})};
  const std::vector<Tensor> feeds = test::round_to_fp16({test::random_tensor({3, 5}, 21)});
  DeviceRunnerOptions o;
  o.precision = Precision::fp16;
  DeviceModelRunner runner(vk::compute_device(ctx()), b.g, o);
  runner.run(feeds);
  vk::DeviceBuffer in = buffer(256), out = buffer(256);
  const std::string y = b.g.value(b.g.outputs[0]).name;
  try {  // the output's binding is fine, the input's is not: neither may stay
    runner.run({Tensor::wrap(DType::f32, Shape{3, 5}, nullptr)}, nullptr, {{y, handle(out), 0}, {"x", handle(in), 4}});
    FAIL() << "an offset of 4 was accepted with an alignment of " << alignment;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("minStorageBufferOffsetAlignment"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(test::outputs_match(test::run_cpu_reference(b.g, feeds), runner.run(feeds), {3e-2, 3e-2}));
}

TEST_F(VulkanIoBinding, AnInputReadOnTheCpuCannotBeBound) {
  // NonZero (a data-dependent shape) runs on the CPU and reads x.
  test::GraphBuilder b;
  const ValueId x = b.input("x", Shape{2, 3});
  b.g.outputs = {b.node("Sigmoid", {x}), b.node("NonZero", {x})};
  DeviceModelRunner runner(vk::compute_device(ctx()), b.g);
  vk::DeviceBuffer in = buffer(256);
  try {
    runner.run({Tensor::wrap(DType::f32, Shape{2, 3}, nullptr)}, nullptr, {{"x", handle(in), 0}});
    FAIL() << "bound an input that a CPU node reads";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("'x' cannot be bound to a device buffer"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vx

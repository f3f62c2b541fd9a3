// A backend that registers only its compute device (runtime/device.h) denoises through the filter:
// Device::create finds the kind and runs the U-Net through the scheduler tile by tile. The stand-in
// backend here is the CPU's reference kernels under another name, so its output must equal the cpu
// device's (oneDNN) output up to summation order.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/host_buffer.h"
#include "common/test_util.h"
#include "denoise/denoise_helpers.h"
#include "denoise/filter.h"
#include "passes/optimize_onnx.h"
#include "runtime/device.h"

namespace vx {
namespace {

class ReferenceComputeDevice final : public runtime::ComputeDevice {
 public:
  std::string name() const override { return "reference"; }
  bool on_host() const override { return true; }
  bool fp16_available() const override { return false; }
  void optimize(Graph& graph) const override { optimize_onnx(graph); }
  std::unique_ptr<runtime::Backend> make_backend(const runtime::ExecutableOptions& options) const override {
    VX_CHECK(options.precision == Precision::fp32, Unsupported, "the reference device computes in fp32");
    cpu::CpuBackendOptions o;
    o.reference_only = true;
    o.max_memory_mb = options.max_memory_mb;
    o.needs = options.needs;
    return std::make_unique<cpu::CpuBackend>(o);
  }
  std::shared_ptr<runtime::Buffer> make_buffer(uint64_t bytes, runtime::BufferStorage storage) const override {
    return cpu::make_host_buffer(bytes, storage);
  }
};

[[maybe_unused]] const bool registered = runtime::register_compute_device_kind(
    {"reference", [](const std::string&) { return std::make_shared<const ReferenceComputeDevice>(); }});

TEST(ComputeFilterDevice, ARegisteredComputeDeviceDenoisesLikeTheCpu) {
  auto device = denoise::Device::create("reference");
  EXPECT_EQ(device->name(), "reference");
  EXPECT_EQ(device->compute_device()->name(), "reference");
  test::DenoiseInputs in;
  in.color = Image(37, 29, 3);
  for (size_t i = 0; i < in.color.pixels.size(); ++i) in.color.pixels[i] = 0.5f + 0.4f * std::sin(0.37f * float(i));
  const auto weights = test::random_weights_blob(UNetVariant::small, 3, 6);
  Image out(37, 29, 3);
  denoise::Filter f(device);
  f.set_image("color", test::view_of(in.color));
  f.set_image("output", test::view_of(out));
  f.params().hdr = true;
  f.set_weights_blob(weights);
  f.execute();
  EXPECT_NE(f.describe().find("reference, fp32"), std::string::npos) << f.describe();
  EXPECT_LE(test::max_rel_diff(test::denoise_cpu(in, weights, true), out), test::kFp32Tolerance);

  // fp16 where the device has none is refused when the network is built; unknown kinds list it.
  denoise::Filter half(device);
  half.set_image("color", test::view_of(in.color));
  half.set_image("output", test::view_of(out));
  half.params().precision = Precision::fp16;
  half.set_weights_blob(weights);
  EXPECT_THROW(half.commit(), Error);
  try {
    denoise::Device::create("nosuchdevice");
    ADD_FAILURE() << "an unknown device was made";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("reference"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vx

// Devices of the filter: the CPU always; Vulkan when a driver and device are present.
#include "backends/cpu/cpu_device.h"
#include "core/error.h"
#include "core/thread_pool.h"
#include "denoise/filter.h"
#include "denoise/vulkan_device.h"

namespace vx::denoise {

namespace {

class CpuDevice final : public Device {
 public:
  explicit CpuDevice(int threads) {
    if (threads > 0 && ThreadPool::global().size() != threads) ThreadPool::set_global_threads(threads);
  }
  std::string name() const override { return "cpu"; }
  std::unique_ptr<TileNetwork> make_network(Graph unet_graph, Precision precision,
                                            const std::string& kernels) override {
    VX_CHECK(precision != Precision::fp16, Unsupported,
             "fp16 is supported on the vulkan device only; the cpu device computes in fp32");
    VX_CHECK(kernels.empty() || kernels == "auto", Unsupported, "kernel choice '", kernels,
             "' is for the vulkan device; the cpu device picks its kernels itself (use auto)");
    return make_cpu_network(std::move(unet_graph));
  }
  std::shared_ptr<const runtime::ComputeDevice> compute_device() const override { return cpu::cpu_compute_device(); }
};

}  // namespace

std::shared_ptr<Device> Device::create(const std::string& kind, int threads) {
  if (kind == "cpu") return std::make_shared<CpuDevice>(threads);
  if (kind == "auto") {
    try {
      if (auto vk = make_vulkan_device("auto")) return vk;
    } catch (const Error&) {
      // No usable Vulkan device: the CPU it is.
    }
    return std::make_shared<CpuDevice>(threads);
  }
  if (kind == "vulkan" || kind.rfind("vulkan:", 0) == 0) {
    auto vk = make_vulkan_device(kind);
    VX_CHECK(vk != nullptr, Unsupported, "no Vulkan device available for '", kind, "'");
    return vk;
  }
  fail(ErrorCode::InvalidArgument, cat("unknown device '", kind, "' (expected cpu, vulkan, vulkan:N or auto)"));
}

}  // namespace vx::denoise

// Devices of the filter: the CPU here; Vulkan registers its own (with the whole-image path) from
// its folder; any other registered compute device gets the generic ComputeFilterDevice.
#include <algorithm>
#include <fstream>

#include "backends/cpu/cpu_device.h"
#include "core/error.h"
#include "denoise/compute_network.h"
#include "denoise/filter.h"
#include "passes/optimize.h"

namespace vx::denoise {

namespace {

class CpuDevice final : public Device {
 public:
  // threads > 0: a private pool of that many threads (OIDN's numThreads), so that two devices with
  // different counts do not resize each other's pool; 0: the global pool.
  explicit CpuDevice(int threads)
      : compute_(threads > 0 ? cpu::make_cpu_compute_device(threads) : cpu::cpu_compute_device()) {}
  std::string name() const override { return "cpu"; }
  std::unique_ptr<TileNetwork> make_network(Graph unet_graph, const NetworkOptions& options) override {
    const runtime::ExecutableOptions o = network_options(*compute_, options);
    optimize_for_inference(unet_graph);
    return std::make_unique<ComputeNetwork>(compute_, std::move(unet_graph), o, "cpu");
  }
  std::shared_ptr<const runtime::ComputeDevice> compute_device() const override { return compute_; }

 private:
  std::shared_ptr<const runtime::ComputeDevice> compute_;
};

// Any other compute device: the U-Net through its backend tile by tile, processing on the host.
class ComputeFilterDevice final : public Device {
 public:
  explicit ComputeFilterDevice(std::shared_ptr<const runtime::ComputeDevice> compute) : compute_(std::move(compute)) {}
  std::string name() const override { return compute_->name(); }
  std::unique_ptr<TileNetwork> make_network(Graph unet_graph, const NetworkOptions& options) override {
    const runtime::ExecutableOptions o = network_options(*compute_, options);
    optimize_for_inference(unet_graph);
    return std::make_unique<ComputeNetwork>(compute_, std::move(unet_graph), o, network_name(*compute_, o));
  }
  std::shared_ptr<const runtime::ComputeDevice> compute_device() const override { return compute_; }

 private:
  std::shared_ptr<const runtime::ComputeDevice> compute_;
};

// The processor's model name (/proc/cpuinfo), else "CPU".
std::string cpu_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
    }
  return "CPU";
}

std::vector<DeviceKind>& device_kinds() {
  static std::vector<DeviceKind> kinds;
  return kinds;
}

}  // namespace

bool register_device_kind(DeviceKind kind) {
  device_kinds().push_back(std::move(kind));
  return true;
}

std::vector<runtime::PhysicalDevice> list_physical_devices() {
  using Type = runtime::PhysicalDevice::Type;
  std::vector<runtime::PhysicalDevice> all;
  for (const DeviceKind& k : device_kinds())
    if (k.list)
      for (runtime::PhysicalDevice& d : k.list()) all.push_back(std::move(d));
  // Hardware GPUs first (discrete, integrated, virtual), then software renderers; stable within.
  auto rank = [](Type t) { return t == Type::discrete_gpu ? 0 : t == Type::integrated_gpu ? 1 : t == Type::virtual_gpu ? 2 : 3; };
  std::stable_sort(all.begin(), all.end(), [&](const auto& a, const auto& b) { return rank(a.type) < rank(b.type); });
  runtime::PhysicalDevice cpu;
  cpu.kind = "cpu";
  cpu.name = cpu_name();
  cpu.type = Type::cpu;
  all.push_back(std::move(cpu));
  return all;
}

std::shared_ptr<Device> Device::create(const std::string& kind, int threads) {
  if (kind == "cpu") return std::make_shared<CpuDevice>(threads);
  if (kind == "auto") {
    for (const DeviceKind& k : device_kinds()) {
      try {
        if (auto fast = k.make_fast()) return fast;
      } catch (const Error&) {
        // No usable device of this kind: the next one, or the CPU.
      }
    }
    return std::make_shared<CpuDevice>(threads);
  }
  std::string expected = "cpu";
  for (const DeviceKind& k : device_kinds()) {
    if (runtime::names_device_kind(kind, k.name)) {
      auto device = k.make(kind);
      VX_CHECK(device != nullptr, Unsupported, "no ", k.name, " device available for '", kind, "'");
      return device;
    }
    expected += cat(", ", k.name, ", ", k.name, ":N");
  }
  // A backend that registered only its compute device still denoises (tile by tile).
  if (const runtime::ComputeDeviceKind* k = runtime::find_compute_device_kind(kind)) {
    auto compute = k->make(kind);
    VX_CHECK(compute != nullptr, Unsupported, "no ", k->name, " device available for '", kind, "'");
    return std::make_shared<ComputeFilterDevice>(std::move(compute));
  }
  for (const std::string& name : runtime::compute_device_kind_names()) expected += cat(", ", name);
  fail(ErrorCode::InvalidArgument, cat("unknown device '", kind, "' (expected ", expected, " or auto)"));
}

}  // namespace vx::denoise

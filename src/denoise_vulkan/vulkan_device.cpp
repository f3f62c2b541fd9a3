// The Vulkan device of the filter. The graph is optimised (fused) once per network; each tile shape
// gets its own executable through the scheduler, which the Vulkan backend compiles whole as a
// VulkanGraphExecutable (planning, weight upload, pipelines, recorded command buffers).
#include "denoise_vulkan/vulkan_device.h"

#include <algorithm>
#include <mutex>

#include "backends/vulkan/context.h"
#include "backends/vulkan/graph_executable.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "core/error.h"
#include "denoise/compute_network.h"
#include "denoise_vulkan/vulkan_image_runner.h"
#include "denoise_vulkan/vulkan_temporal_stage.h"
#include "passes/optimize.h"

namespace vx::denoise {

namespace {

// What every network of a device shares: the context (submissions to its queue take the
// context's queue lock, shared with the ONNX models on this device). Each network serialises its
// own runs (ComputeNetwork's lock).
struct VulkanShared {
  std::unique_ptr<vk::VulkanContext> context;
  bool device_processing = true;
};

// The U-Net through the scheduler (ComputeNetwork: the Vulkan backend compiles it whole as a fused
// conv network), plus the whole-image path, which records that same compiled network into its own
// command buffer between the input and output processing.
class VulkanNetwork final : public ComputeNetwork {
 public:
  VulkanNetwork(std::shared_ptr<VulkanShared> shared, std::shared_ptr<const runtime::ComputeDevice> device,
                Graph graph, const runtime::ExecutableOptions& options)
      : ComputeNetwork(device, std::move(graph), options, network_name(*device, options)),
        shared_(std::move(shared)),
        precision_(options.precision) {}

  bool run_image(const ImageJob& job, ImageJobResult& result) override {
    if (!shared_->device_processing) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!runner_) runner_ = std::make_unique<VulkanImageRunner>(*shared_->context, precision_, device_name());
    return runner_->run(job, result, [&](int height, int width) { return network_locked(height, width); });
  }

  // The temporal stage for outputs in device buffers; its history lives as long as the network.
  bool run_temporal(const TemporalJob& job, double* ms_device) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!temporal_) temporal_ = std::make_unique<VulkanTemporalStage>(*shared_->context, device_name());
    const double ms = temporal_->run(job);
    if (ms_device) *ms_device = ms;
    return true;
  }

 private:
  // The tile's compiled network, kept alive by its executable.
  std::shared_ptr<vk::VulkanGraphExecutable> network_locked(int height, int width) {
    std::shared_ptr<runtime::ScheduledExecutable> exe = executable_locked(height, width);
    auto* network = dynamic_cast<vk::VulkanGraphExecutable*>(exe->compiled(0));
    VX_CHECK(network != nullptr, Internal, "the U-Net was not compiled as one fused conv network on ", device_name());
    return std::shared_ptr<vk::VulkanGraphExecutable>(exe, network);
  }

  std::shared_ptr<VulkanShared> shared_;
  Precision precision_;
  std::unique_ptr<VulkanImageRunner> runner_;  // the whole-image path, made on first use
  std::unique_ptr<VulkanTemporalStage> temporal_;  // the temporal stage, made on first use
};

class VulkanDevice final : public Device {
 public:
  explicit VulkanDevice(std::unique_ptr<vk::VulkanContext> context, bool device_processing = true)
      : shared_(std::make_shared<VulkanShared>()) {
    shared_->context = std::move(context);
    shared_->device_processing = device_processing;
    const vk::DeviceInfo& info = shared_->context->info();
    name_ = cat("vulkan:", info.index, " (", info.name, ")");
  }

  std::string name() const override { return name_; }

  // A discrete GPU has memory of its own: half of its largest device-local heap, at most 16 GB, so
  // that 4K frames run untiled there. Devices sharing the host's memory keep OIDN's CPU default.
  int default_max_memory_mb() const override {
    const vk::DeviceInfo& info = shared_->context->info();
    if (info.type != "discrete") return kDefaultMaxMemoryMB;
    uint64_t heap = 0;
    for (const auto& h : info.heaps)
      if (h.device_local) heap = std::max(heap, h.size);
    return int(std::clamp<uint64_t>(heap / 2 >> 20, kDefaultMaxMemoryMB, 16384));
  }

  std::unique_ptr<TileNetwork> make_network(Graph unet_graph, const NetworkOptions& options) override {
    std::shared_ptr<const runtime::ComputeDevice> device = compute_device();
    const runtime::ExecutableOptions o = network_options(*device, options);
    optimize_for_inference(unet_graph);
    return std::make_unique<VulkanNetwork>(shared_, std::move(device), std::move(unet_graph), o);
  }

  const vk::VulkanContext& context() const { return *shared_->context; }
  // Aliases the shared state: the context lives as long as the pointer.
  std::shared_ptr<const vk::VulkanContext> shared_context() const {
    return std::shared_ptr<const vk::VulkanContext>(shared_, shared_->context.get());
  }
  std::shared_ptr<const runtime::ComputeDevice> compute_device() const override {
    return vk::compute_device(shared_context());
  }

 private:
  std::shared_ptr<VulkanShared> shared_;
  std::string name_;
};

}  // namespace

// Device::create("vulkan", "vulkan:N", "auto") reaches this folder through its registration.
// The Vulkan devices as the filter's callers see them before opening one (OIDN's physical
// devices); none when no loader or driver is present.
std::vector<runtime::PhysicalDevice> list_vulkan_devices() {
  std::vector<vk::DeviceInfo> found;
  try {
    found = vk::VulkanContext::list_devices();
  } catch (const Error&) {
    return {};
  }
  std::vector<runtime::PhysicalDevice> devices;
  for (const vk::DeviceInfo& d : found) {
    using Type = runtime::PhysicalDevice::Type;
    runtime::PhysicalDevice p;
    p.kind = cat("vulkan:", d.index);
    p.name = d.name;
    p.type = d.type == "discrete" ? Type::discrete_gpu : d.type == "integrated" ? Type::integrated_gpu
           : d.type == "virtual" ? Type::virtual_gpu : d.type == "cpu" ? Type::software_gpu : Type::other;
    p.uuid = d.uuid;
    if (d.luid_valid) p.luid = d.luid, p.node_mask = d.node_mask;
    if (d.pci_valid) p.pci = runtime::PciAddress{d.pci_domain, d.pci_bus, d.pci_device, d.pci_function};
    if (d.import_opaque_fd) p.external_memory_types = runtime::kExternalMemoryOpaqueFd;
    devices.push_back(std::move(p));
  }
  return devices;
}

[[maybe_unused]] const bool registered =
    register_device_kind({"vulkan", [](const std::string& kind) { return make_vulkan_device(kind); },
                          [] { return make_vulkan_device("auto"); }, list_vulkan_devices});

std::shared_ptr<Device> make_vulkan_device(const std::string& kind) { return make_vulkan_device(kind, {}); }

std::shared_ptr<Device> make_vulkan_device(const std::string& kind, const VulkanDeviceOptions& options) {
  vk::ContextOptions co;
  co.validation = options.validation;
  if (kind == "auto") {
    // Only a discrete GPU beats the CPU engine; lavapipe ("cpu") and integrated GPUs do not count.
    int discrete = -1;
    for (const vk::DeviceInfo& d : vk::VulkanContext::list_devices())
      if (d.type == "discrete") {
        discrete = d.index;
        break;
      }
    if (discrete < 0) return nullptr;
    co.device_index = discrete;
  } else {
    co.device_index = vk::parse_vulkan_device(kind);
  }
  return std::make_shared<VulkanDevice>(std::make_unique<vk::VulkanContext>(co), options.device_processing);
}

std::shared_ptr<Device> make_vulkan_device(const VulkanExternalDevice& external) {
  vk::ExternalDevice e;
  e.instance = static_cast<VkInstance>(external.instance);
  e.physical_device = static_cast<VkPhysicalDevice>(external.physical_device);
  e.device = static_cast<VkDevice>(external.device);
  e.queue_family = external.queue_family;
  e.queue_index = external.queue_index;
  e.fp16_features_enabled = external.fp16_features_enabled;
  return std::make_shared<VulkanDevice>(std::make_unique<vk::VulkanContext>(e, vk::ContextOptions{}));
}

std::vector<std::string> vulkan_validation_messages(const Device& device) {
  if (auto* vk = dynamic_cast<const VulkanDevice*>(&device)) return vk->context().validation_messages();
  return {};
}

bool vulkan_fp16_available(const Device& device) {
  auto* vk = dynamic_cast<const VulkanDevice*>(&device);
  return vk && vk->context().fp16_enabled();
}

bool vulkan_validation_enabled(const Device& device) {
  auto* vk = dynamic_cast<const VulkanDevice*>(&device);
  return vk && vk->context().validation_enabled();
}

}  // namespace vx::denoise

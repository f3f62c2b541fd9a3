#include "backends/vulkan/vulkan_compute_device.h"

#include "backends/vulkan/optimize_for_vulkan.h"
#include "backends/vulkan/vulkan_buffer.h"
#include "backends/vulkan/vulkan_backend.h"

namespace vx::vk {
namespace {

class VulkanComputeDevice final : public runtime::ComputeDevice {
 public:
  explicit VulkanComputeDevice(std::shared_ptr<const VulkanContext> context) : context_(std::move(context)) {}
  std::string name() const override { return cat("vulkan:", context_->info().index, " (", context_->info().name, ")"); }
  bool on_host() const override { return false; }
  bool fp16_available() const override { return context_->fp16_enabled(); }
  void optimize(Graph& graph) const override { optimize_for_vulkan(graph); }
  std::unique_ptr<runtime::Backend> make_backend(const runtime::ExecutableOptions& options) const override {
    VulkanBackendOptions o;
    o.precision = options.precision;
    o.timestamps = options.timestamps;
    o.max_memory_mb = options.max_memory_mb;
    o.needs = options.needs;
    o.kernels = options.kernels.empty() ? "auto" : options.kernels;
    o.fast_math = options.fast_math;
    return std::make_unique<VulkanBackend>(*context_, o);
  }
  std::shared_ptr<runtime::Buffer> make_buffer(uint64_t bytes, runtime::BufferStorage storage) const override {
    return make_vulkan_buffer(context_, bytes, storage);
  }
  uint32_t external_memory_types() const override {
    return context_->external_memory_fd_enabled() ? uint32_t(runtime::kExternalMemoryOpaqueFd) : 0u;
  }
  std::shared_ptr<runtime::Buffer> import_buffer(runtime::ExternalMemoryType type, int fd,
                                                 uint64_t bytes) const override {
    if (type != runtime::kExternalMemoryOpaqueFd || !context_->external_memory_fd_enabled())
      return runtime::ComputeDevice::import_buffer(type, fd, bytes);  // Unsupported
    return import_vulkan_buffer(context_, fd, bytes);
  }
  std::unique_lock<std::mutex> lock_queue() const override { return context_->lock_queue(); }

 private:
  std::shared_ptr<const VulkanContext> context_;
};

}  // namespace

std::shared_ptr<const runtime::ComputeDevice> compute_device(std::shared_ptr<const VulkanContext> context) {
  return std::make_shared<const VulkanComputeDevice>(std::move(context));
}

std::shared_ptr<const runtime::ComputeDevice> compute_device(const VulkanContext& context) {
  return compute_device(std::shared_ptr<const VulkanContext>(&context, [](const VulkanContext*) {}));
}

}  // namespace vx::vk

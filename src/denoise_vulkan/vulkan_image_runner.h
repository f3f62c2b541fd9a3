// The whole-image path of the Vulkan denoiser: the user's images go to the device as they are
// (host images copied row by row into one upload; device images used in place), then on the
// device: autoexposure, and per tile input processing -> the network -> output processing, so
// that only the user's pixels cross the bus. One runner per network; not thread-safe (the
// network's lock serialises it).
#pragma once
#include <functional>
#include <map>
#include <memory>

#include "backends/vulkan/command_context.h"
#include "backends/vulkan/graph_executable.h"
#include "backends/vulkan/kernels/denoise_io.h"
#include "denoise/network.h"

namespace vx::denoise {

// Test hook: called before every queue submission of the image path with the call's name; a
// result other than VK_SUCCESS is treated as if the call had returned it (device loss, out of
// memory), so that error reporting can be tested on a driver that never fails. Empty: no hook.
using VulkanFailureHook = std::function<VkResult(const char* call)>;
void set_vulkan_failure_hook(VulkanFailureHook hook);

class VulkanImageRunner {
 public:
  using ExecutableFor = std::function<std::shared_ptr<vk::VulkanGraphExecutable>(int height, int width)>;

  VulkanImageRunner(const vk::VulkanContext& ctx, Precision precision, std::string device_name);
  ~VulkanImageRunner();
  VulkanImageRunner(const VulkanImageRunner&) = delete;
  VulkanImageRunner& operator=(const VulkanImageRunner&) = delete;

  // False when the image is better left to the host path (host images that do not fit the memory
  // limit or a device limit, or strides not aligned to the element size). Throws OutOfMemory when
  // even the smallest tile's network does not fit max_memory_mb, Unsupported for device images
  // the device path cannot address, DeviceLost when the device was lost.
  bool run(const ImageJob& job, ImageJobResult& result, const ExecutableFor& executable_for);

 private:
  struct Slot;  // an image as bound: host upload range or user buffer
  void ensure_buffer(vk::DeviceBuffer& buffer, VkDeviceSize size, vk::MemoryUse use, const char* what);
  void submit();
  void release();

  const vk::VulkanContext& ctx_;
  Precision precision_;
  std::string device_name_;
  std::unique_ptr<vk::KernelLayout> layout_;
  std::unique_ptr<vk::DenoiseIoKernels> kernels_;
  vk::DeviceBuffer params_, bins_, upload_, images_, download_;
  vk::CommandContext commands_;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  VkQueryPool device_queries_ = VK_NULL_HANDLE;  // start / end of each tile's device work (timestamps)
};

}  // namespace vx::denoise

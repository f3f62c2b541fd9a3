// The Vulkan device of the filter: one VulkanContext (kept alive as long as the device and every
// network made from it), networks that build one VulkanGraphExecutable per tile shape (LRU cache).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "denoise/filter.h"

namespace vx::denoise {

struct VulkanDeviceOptions {
  // Khronos validation layer on (when installed), with its synchronization checks; messages are recorded.
  bool validation = false;
  // Input/output processing, autoexposure and tiling on the device (only the user's images cross
  // the bus). false: the filter's host path (processing on the CPU, one tile's tensors each way),
  // for comparisons and debugging.
  bool device_processing = true;
};

// kind: "vulkan" (the first discrete GPU, else the first device), "vulkan:N", or "auto" (a discrete
// GPU only; nullptr when there is none). Throws Unsupported when no loader/driver/device is present.
std::shared_ptr<Device> make_vulkan_device(const std::string& kind);
std::shared_ptr<Device> make_vulkan_device(const std::string& kind, const VulkanDeviceOptions& options);

// A renderer's own Vulkan device (handles as void*, so that this header needs no Vulkan headers):
// VkInstance, VkPhysicalDevice, VkDevice, and the queue (family, index) we submit on. The device
// must be Vulkan 1.2; fp16 is used only when the application enabled shaderFloat16 and
// storageBuffer16BitAccess and says so. We never destroy these objects; the application keeps
// them alive longer than the device object and every filter, and does not use the queue from
// another thread while a filter executes (Vulkan queues need external synchronisation).
struct VulkanExternalDevice {
  void* instance = nullptr;
  void* physical_device = nullptr;
  void* device = nullptr;
  uint32_t queue_family = 0;
  uint32_t queue_index = 0;
  bool fp16_features_enabled = false;
};
std::shared_ptr<Device> make_vulkan_device(const VulkanExternalDevice& external);

// Validation-layer messages (warnings and errors) recorded by a Vulkan device; empty for others.
std::vector<std::string> vulkan_validation_messages(const Device& device);
// Whether a (Vulkan) device computes in fp16 (fp16 arithmetic and 16-bit storage): what automatic
// precision picks there.
bool vulkan_fp16_available(const Device& device);
// Whether the validation layer is active on this (Vulkan) device.
bool vulkan_validation_enabled(const Device& device);

}  // namespace vx::denoise

// The Vulkan device of the filter: one VulkanContext (kept alive as long as the device and every
// network made from it), networks that build one VulkanGraphExecutable per tile shape (LRU cache).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "denoise/filter.h"

namespace vx::vk {
class VulkanContext;
}

namespace vx::denoise {

struct VulkanDeviceOptions {
  bool validation = false;  // Khronos validation layer on (when installed); messages are recorded
};

// kind: "vulkan" (the first discrete GPU, else the first device), "vulkan:N", or "auto" (a discrete
// GPU only; nullptr when there is none). Throws Unsupported when no loader/driver/device is present.
std::shared_ptr<Device> make_vulkan_device(const std::string& kind);
std::shared_ptr<Device> make_vulkan_device(const std::string& kind, const VulkanDeviceOptions& options);

// Validation-layer messages (warnings and errors) recorded by a Vulkan device; empty for others.
std::vector<std::string> vulkan_validation_messages(const Device& device);
// Whether a (Vulkan) device computes in fp16 (fp16 arithmetic and 16-bit storage): what automatic
// precision picks there.
bool vulkan_fp16_available(const Device& device);
// Whether the validation layer is active on this (Vulkan) device.
bool vulkan_validation_enabled(const Device& device);

// The Vulkan context of a (Vulkan) device, kept alive by the returned pointer (ONNX models loaded
// on a filter device run on it); null for other devices.
std::shared_ptr<const vk::VulkanContext> vulkan_context_of(const std::shared_ptr<Device>& device);

}  // namespace vx::denoise

// One Vulkan GPU as a compute device (runtime/device.h): its backend is VulkanBackend, its graph
// passes optimize_for_vulkan.
#pragma once
#include <memory>

#include "backends/vulkan/context.h"
#include "runtime/device.h"

namespace vx::vk {

// Keeps `context` alive as long as the device.
std::shared_ptr<const runtime::ComputeDevice> compute_device(std::shared_ptr<const VulkanContext> context);
// Does not own `context`, which must outlive the device and every executable made on it.
std::shared_ptr<const runtime::ComputeDevice> compute_device(const VulkanContext& context);

}  // namespace vx::vk

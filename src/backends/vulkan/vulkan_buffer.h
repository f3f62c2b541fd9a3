// A Vulkan device's buffers (runtime/buffer.h): device storage is device-local memory, reached
// through a staging copy; host and managed storage are host-visible memory the GPU reads and
// writes directly (over the bus on a discrete GPU), persistently mapped.
#pragma once
#include <memory>

#include "backends/vulkan/context.h"
#include "runtime/buffer.h"

namespace vx::vk {

// Zero-filled; throws InvalidArgument for 0 bytes, OutOfMemory when the device cannot hold it. The
// buffer keeps `context` alive.
std::shared_ptr<runtime::Buffer> make_vulkan_buffer(std::shared_ptr<const VulkanContext> context, uint64_t bytes,
                                                    runtime::BufferStorage storage);

}  // namespace vx::vk

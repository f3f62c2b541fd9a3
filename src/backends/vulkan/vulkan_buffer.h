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
// Device storage over `bytes` bytes another API exported as an opaque fd (memory.h,
// DeviceBuffer::import_opaque_fd): the buffer owns fd on success.
std::shared_ptr<runtime::Buffer> import_vulkan_buffer(std::shared_ptr<const VulkanContext> context, int fd,
                                                      uint64_t bytes);

}  // namespace vx::vk

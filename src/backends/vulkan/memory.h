// Device memory: one VkBuffer bound to its own VkDeviceMemory, sub-allocated by offset. An executable
// owns three: a weights pool, one activation arena, and one host-visible staging buffer.
#pragma once
#include <cstdint>

#include "backends/vulkan/context.h"

namespace vx::vk {

enum class MemoryUse { DeviceLocal, Staging };

// A byte range inside a buffer, as bound to a descriptor.
struct BufferRange {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize size = 0;
};

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // Throws OutOfMemory (naming `what` and the size) when the device cannot hold it.
  DeviceBuffer(const VulkanContext& ctx, VkDeviceSize size, MemoryUse use, const char* what);
  // A buffer over memory another API exported as an opaque file descriptor (needs
  // ctx.external_memory_fd_enabled()); `size` is the exported allocation's size. On success fd is
  // consumed (the memory holds a duplicate of it); on failure the caller still owns it.
  static DeviceBuffer import_opaque_fd(const VulkanContext& ctx, int fd, VkDeviceSize size);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  VkBuffer buffer() const { return buffer_; }
  VkDeviceSize size() const { return size_; }
  // Host pointer of a staging buffer (persistently mapped); nullptr for device-local memory.
  uint8_t* mapped() const { return mapped_; }
  BufferRange range(VkDeviceSize offset, VkDeviceSize size) const { return {buffer_, offset, size}; }
  // Makes host writes visible to the device / device writes visible to the host (non-coherent memory).
  void flush() const;
  void invalidate() const;

 private:
  void release();
  VkDevice device_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize size_ = 0;
  uint8_t* mapped_ = nullptr;
  bool coherent_ = true;
};

// Hands out aligned offsets in a pool whose total size is known only after all requests.
class OffsetAllocator {
 public:
  explicit OffsetAllocator(VkDeviceSize alignment) : alignment_(alignment) {}
  VkDeviceSize allocate(VkDeviceSize size) {
    VkDeviceSize offset = (end_ + alignment_ - 1) / alignment_ * alignment_;
    end_ = offset + size;
    return offset;
  }
  VkDeviceSize size() const { return end_; }

 private:
  VkDeviceSize alignment_;
  VkDeviceSize end_ = 0;
};

}  // namespace vx::vk

#include "backends/vulkan/vulkan_buffer.h"

#include <cstring>

#include "backends/vulkan/command_context.h"
#include "backends/vulkan/memory.h"
#include "core/error.h"

namespace vx::vk {
namespace {

class VulkanBuffer final : public runtime::Buffer {
 public:
  VulkanBuffer(std::shared_ptr<const VulkanContext> context, uint64_t bytes, runtime::BufferStorage storage)
      : context_(std::move(context)), storage_(storage), size_(bytes) {
    VX_CHECK(bytes > 0, InvalidArgument, "a buffer needs at least one byte");
    const bool device_only = storage == runtime::BufferStorage::device;
    // Whole 32-bit words, so that vkCmdFillBuffer zeroes every byte.
    buffer_ = DeviceBuffer(*context_, (bytes + 3) / 4 * 4, device_only ? MemoryUse::DeviceLocal : MemoryUse::Staging,
                           "buffer");
    if (device_only) {
      CommandContext(*context_).run_once([&](VkCommandBuffer cmd) {
        vkCmdFillBuffer(cmd, buffer_.buffer(), 0, VK_WHOLE_SIZE, 0);
      });
    } else {
      std::memset(buffer_.mapped(), 0, size_t(buffer_.size()));
      buffer_.flush();
    }
  }
  // Memory made elsewhere (imported), kept as it is.
  VulkanBuffer(std::shared_ptr<const VulkanContext> context, DeviceBuffer buffer)
      : context_(std::move(context)), storage_(runtime::BufferStorage::device), size_(buffer.size()),
        buffer_(std::move(buffer)) {}

  uint64_t size() const override { return size_; }
  runtime::BufferStorage storage() const override { return storage_; }
  void* data() override { return buffer_.mapped(); }
  uint64_t native_handle() const override { return reinterpret_cast<uint64_t>(buffer_.buffer()); }

  void write(uint64_t offset, uint64_t bytes, const void* source) override {
    runtime::check_buffer_range(size(), offset, bytes);
    if (bytes == 0) return;
    if (buffer_.mapped()) {
      std::memcpy(buffer_.mapped() + offset, source, size_t(bytes));
      buffer_.flush();
      return;
    }
    DeviceBuffer staging(*context_, bytes, MemoryUse::Staging, "buffer upload");
    std::memcpy(staging.mapped(), source, size_t(bytes));
    staging.flush();
    CommandContext(*context_).run_once([&](VkCommandBuffer cmd) {
      const VkBufferCopy region{0, offset, bytes};
      vkCmdCopyBuffer(cmd, staging.buffer(), buffer_.buffer(), 1, &region);
    });
  }

  void read(uint64_t offset, uint64_t bytes, void* destination) const override {
    runtime::check_buffer_range(size(), offset, bytes);
    if (bytes == 0) return;
    if (buffer_.mapped()) {
      buffer_.invalidate();
      std::memcpy(destination, buffer_.mapped() + offset, size_t(bytes));
      return;
    }
    DeviceBuffer staging(*context_, bytes, MemoryUse::Staging, "buffer download");
    CommandContext(*context_).run_once([&](VkCommandBuffer cmd) {
      const VkBufferCopy region{offset, 0, bytes};
      vkCmdCopyBuffer(cmd, buffer_.buffer(), staging.buffer(), 1, &region);
      barrier(cmd, kTransferWrite, kHostRead);
    });
    staging.invalidate();
    std::memcpy(destination, staging.mapped(), size_t(bytes));
  }

 private:
  std::shared_ptr<const VulkanContext> context_;
  runtime::BufferStorage storage_;
  uint64_t size_;
  DeviceBuffer buffer_;
};

}  // namespace

std::shared_ptr<runtime::Buffer> make_vulkan_buffer(std::shared_ptr<const VulkanContext> context, uint64_t bytes,
                                                    runtime::BufferStorage storage) {
  VX_CHECK(context != nullptr, InvalidArgument, "null Vulkan context");
  return std::make_shared<VulkanBuffer>(std::move(context), bytes, storage);
}

std::shared_ptr<runtime::Buffer> import_vulkan_buffer(std::shared_ptr<const VulkanContext> context, int fd,
                                                      uint64_t bytes) {
  VX_CHECK(context != nullptr, InvalidArgument, "null Vulkan context");
  DeviceBuffer imported = DeviceBuffer::import_opaque_fd(*context, fd, bytes);
  return std::make_shared<VulkanBuffer>(std::move(context), std::move(imported));
}

}  // namespace vx::vk

#include "backends/vulkan/command_context.h"

#include <utility>

namespace vx::vk {

void begin_recording(VkCommandBuffer cmd, bool once) {
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  if (once) bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VX_VK_CHECK(vkBeginCommandBuffer(cmd, &bi));
}

void end_recording(VkCommandBuffer cmd) { VX_VK_CHECK(vkEndCommandBuffer(cmd)); }

VkQueryPool create_timestamp_pool(const VulkanContext& ctx, uint32_t count) {
  VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qci.queryCount = count;
  VkQueryPool pool = VK_NULL_HANDLE;
  VX_VK_CHECK(vkCreateQueryPool(ctx.device(), &qci, nullptr, &pool));
  track_created(ObjectKind::QueryPool);
  return pool;
}

CommandContext::CommandContext(const VulkanContext& ctx) : ctx_(&ctx) {
  try {
    VkCommandPoolCreateInfo cpci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cpci.queueFamilyIndex = ctx.queue_family();
    cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;  // buffers recorded again one by one
    VX_VK_CHECK(vkCreateCommandPool(ctx.device(), &cpci, nullptr, &pool_));
    track_created(ObjectKind::CommandPool);
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VX_VK_CHECK(vkCreateFence(ctx.device(), &fci, nullptr, &fence_));
    track_created(ObjectKind::Fence);
  } catch (...) {
    release();
    throw;
  }
}

CommandContext::~CommandContext() { release(); }

CommandContext::CommandContext(CommandContext&& other) noexcept
    : ctx_(std::exchange(other.ctx_, nullptr)),
      pool_(std::exchange(other.pool_, VK_NULL_HANDLE)),
      fence_(std::exchange(other.fence_, VK_NULL_HANDLE)) {}

CommandContext& CommandContext::operator=(CommandContext&& other) noexcept {
  if (this != &other) {
    release();
    ctx_ = std::exchange(other.ctx_, nullptr);
    pool_ = std::exchange(other.pool_, VK_NULL_HANDLE);
    fence_ = std::exchange(other.fence_, VK_NULL_HANDLE);
  }
  return *this;
}

void CommandContext::release() {
  if (!ctx_) return;
  destroy_tracked(ctx_->device(), fence_, vkDestroyFence, ObjectKind::Fence);
  destroy_tracked(ctx_->device(), pool_, vkDestroyCommandPool, ObjectKind::CommandPool);  // frees its buffers
  ctx_ = nullptr;
}

VkCommandBuffer CommandContext::allocate() {
  VX_CHECK(pool_ != VK_NULL_HANDLE, Internal, "command buffer from an empty command context");
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = pool_;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VX_VK_CHECK(vkAllocateCommandBuffers(ctx_->device(), &cbai, &cmd));
  return cmd;
}

void CommandContext::submit_and_wait(VkCommandBuffer cmd, SubmitTiming* timing) const {
  ctx_->submit_and_wait(cmd, fence_, timing);
}

void CommandContext::run_once(const std::function<void(VkCommandBuffer)>& record) {
  VkCommandBuffer cmd = allocate();
  begin_recording(cmd, true);
  record(cmd);
  end_recording(cmd);
  submit_and_wait(cmd);
  // On failure the buffer stays allocated until the pool goes (it may still be pending then).
  vkFreeCommandBuffers(ctx_->device(), pool_, 1, &cmd);
}

}  // namespace vx::vk

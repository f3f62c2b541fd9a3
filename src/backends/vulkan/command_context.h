// Command recording and submission on a context's queue: one command pool with its primary command
// buffers and one fence, the begin/end of a recording, global memory barriers, and submit-and-wait
// through VulkanContext (which holds the queue's lock for the submit). Every executor (fused graph,
// ONNX model, denoiser image path) records and runs its work through one of these.
#pragma once
#include <functional>

#include "backends/vulkan/context.h"

namespace vx::vk {

// One side of a memory barrier: the pipeline stages and the kinds of access that it orders.
struct Scope {
  VkPipelineStageFlags stages = 0;
  VkAccessFlags access = 0;
};
inline constexpr Scope kComputeRead{VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT};
inline constexpr Scope kComputeWrite{VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT};
inline constexpr Scope kComputeReadWrite{VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                         VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
inline constexpr Scope kTransferRead{VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT};
inline constexpr Scope kTransferWrite{VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT};
// Shaders and copies together (executors that interleave dispatches and buffer copies).
inline constexpr Scope kDeviceWrite{VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                                    VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
inline constexpr Scope kDeviceReadWrite{VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                                        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                            VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
inline constexpr Scope kHostRead{VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT};
// Whatever an application submits to the queue before or after us (its own buffers we work on).
inline constexpr Scope kAnyWrite{VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT};
inline constexpr Scope kAnyReadWrite{VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                                     VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT};

// A global memory barrier: `src`'s accesses happen before, and are visible to, `dst`'s.
inline void barrier(VkCommandBuffer cmd, Scope src, Scope dst) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = src.access;
  mb.dstAccessMask = dst.access;
  vkCmdPipelineBarrier(cmd, src.stages, dst.stages, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

// Starts a recording (a command buffer recorded before is reset first: the pool allows it);
// `once`: the recording is submitted once, then recorded again or freed.
void begin_recording(VkCommandBuffer cmd, bool once = false);
void end_recording(VkCommandBuffer cmd);
// A pool of `count` timestamp queries (tracked: free it with destroy_tracked(..., vkDestroyQueryPool,
// ObjectKind::QueryPool)).
VkQueryPool create_timestamp_pool(const VulkanContext& ctx, uint32_t count);

class CommandContext {
 public:
  CommandContext() = default;  // empty: owns nothing
  explicit CommandContext(const VulkanContext& ctx);
  ~CommandContext();
  CommandContext(CommandContext&& other) noexcept;
  CommandContext& operator=(CommandContext&& other) noexcept;
  CommandContext(const CommandContext&) = delete;
  CommandContext& operator=(const CommandContext&) = delete;

  // A primary command buffer of the pool, freed with it.
  VkCommandBuffer allocate();
  // Submits `cmd` (recorded from this pool) and waits for it on the fence; maps errors to vx::Error.
  // One submission at a time: the fence is the context's only one.
  void submit_and_wait(VkCommandBuffer cmd, SubmitTiming* timing = nullptr) const;
  // Records `record` into a temporary command buffer, runs it and frees it (one-off uploads).
  void run_once(const std::function<void(VkCommandBuffer)>& record);

 private:
  void release();
  const VulkanContext* ctx_ = nullptr;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
};

}  // namespace vx::vk

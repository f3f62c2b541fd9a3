// The filter's temporal stage on a Vulkan device, for outputs in device buffers (TemporalJob in
// network.h): TemporalStabilizer's method (temporal_stabilizer.h and reprojection.h, the reference)
// in two compute passes of shaders/temporal_stabilize.comp, so that only the output's pixels move.
//   1. stabilize: reads the output (3x3 neighbourhoods), motion, depth, normal and the previous
//      frame's history and guides; writes the next history (the stabilised output in the reference's
//      compressed range, fp32, and whether the blend changed the pixel) and the next guides (this
//      frame's depth and normal). Nothing the pass reads is written by it: the output is read by
//      neighbours, the previous guides by whichever pixel reprojects there.
//   2. store: the changed pixels of the next history, expanded -> the user's output layout (f32 or
//      f16, any strides), after a barrier.
// History and guides are ping-pong buffers (one vec4 per pixel), allocated for the output's size on
// first use; a new size, a reset, or normals appearing or disappearing start a new history: that
// frame passes through, as on the host. A frame that fails leaves the history as it was. One stage
// per network; not thread-safe (the network's lock serialises it).
#pragma once
#include <memory>
#include <string>

#include "backends/vulkan/command_context.h"
#include "backends/vulkan/memory.h"
#include "backends/vulkan/pipeline.h"
#include "denoise/network.h"

namespace vx::denoise {

class VulkanTemporalStage {
 public:
  VulkanTemporalStage(const vk::VulkanContext& ctx, std::string device_name);
  ~VulkanTemporalStage();
  VulkanTemporalStage(const VulkanTemporalStage&) = delete;
  VulkanTemporalStage& operator=(const VulkanTemporalStage&) = delete;

  // Stabilises job.output in place and keeps it as the next history. Returns the device time of
  // the passes in milliseconds by timestamps (0 where the queue has none). Throws InvalidArgument
  // for an output of fewer than 3 channels, Unsupported for images the shaders cannot address,
  // OutOfMemory, DeviceLost.
  double run(const TemporalJob& job);

 private:
  // History and guides for a width x height output (allocated anew when the size changes).
  void ensure_frame_buffers(int width, int height);
  void release();

  const vk::VulkanContext& ctx_;
  std::string device_name_;
  std::unique_ptr<vk::KernelLayout> layout_;
  std::unique_ptr<vk::ComputePipeline> stabilize_, store_;
  vk::DeviceBuffer image_layouts_;  // the four user images' layouts (vk::DenoiseImageDesc), host-written
  // Two frames' history (compressed rgb, changed) and guides (depth, normal), a vec4 per pixel each.
  vk::DeviceBuffer history_[2], guides_[2];
  int width_ = 0, height_ = 0;  // the size history_ and guides_ hold
  int previous_ = 0;                  // the side read; a run writes the other, and they swap when it succeeds
  bool history_valid_ = false;        // history_[previous_] is the previous frame's output
  bool history_has_normals_ = false;  // and its guides hold normals
  vk::CommandContext commands_;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;  // updated every run (no run is in flight then)
  VkQueryPool queries_ = VK_NULL_HANDLE;  // start and end of the passes (timestamps)
};

}  // namespace vx::denoise

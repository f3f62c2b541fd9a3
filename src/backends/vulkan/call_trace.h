// Where a run's wall clock goes, for measurements (VOLVOX_VK_CALL_TRACE=1 on a device with
// timestamps): per segment run the host's time before the submit (uploads to staging), in submit and
// wait, and after it (downloads, timestamp reads); on the GPU the command buffer's whole span (two
// timestamps of its own, at its very start and end) beside the span the executable reports as its
// device time. The medians go to stderr when the trace is destroyed.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "backends/vulkan/context.h"

namespace vx::vk {

class CallTrace {
 public:
  // Null unless VOLVOX_VK_CALL_TRACE=1 and the device has timestamps.
  static std::unique_ptr<CallTrace> from_env(const VulkanContext& ctx, size_t segments);
  CallTrace(const VulkanContext& ctx, size_t segments);
  ~CallTrace();
  CallTrace(const CallTrace&) = delete;
  CallTrace& operator=(const CallTrace&) = delete;

  void record_start(VkCommandBuffer cmd, size_t segment) const;  // first in the command buffer
  void record_end(VkCommandBuffer cmd, size_t segment) const;    // last in it
  // Before each submit: the segment's two queries reset by the host where it may (as the
  // executable's own; a reset command would add to the span it measures).
  void before_submit(size_t segment) const;
  // After the segment's fence: host microseconds, and its timed device span in ms.
  void add_run(size_t segment, double before_submit_us, double submit_wait_us, double after_us, double timed_ms);

 private:
  const VulkanContext& ctx_;
  VkQueryPool pool_ = VK_NULL_HANDLE;
  // Per run: before submit, submit + wait, after, command buffer span, timed span (us).
  std::vector<std::array<double, 5>> runs_;
};

}  // namespace vx::vk

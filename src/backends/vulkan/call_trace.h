// Where a run's wall clock goes, for measurements (VOLVOX_VK_CALL_TRACE=1 on a device with
// timestamps): per segment run the host's time before the submit (uploads to staging), in submit and
// wait, and after it (downloads, timestamp reads); on the GPU the command buffer's whole span (two
// timestamps of its own, at its very start and end) beside the span the executable reports as its
// device time. Within submit and wait: the submit call itself, and when the host saw a word that
// the command buffer's last command sets in host-visible memory, and when it saw a timeline
// semaphore that the submit signals (where the device has them; -1 where not), against when it saw
// the fence signalled: what a run that returned on either would save (returning on the word would
// leave the command buffer pending; the semaphore's signal comes after its commands are done). The
// medians go to stderr when the trace is destroyed.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "backends/vulkan/context.h"
#include "backends/vulkan/memory.h"

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
  // executable's own; a reset command would add to the span it measures), its word cleared; the
  // timing to pass to the submit.
  SubmitTiming before_submit(size_t segment) const;
  // After the segment's fence: host microseconds, the submit's timing, and its timed device span in ms.
  void add_run(size_t segment, double before_submit_us, double submit_wait_us, double after_us,
               const SubmitTiming& submit, double timed_ms);

 private:
  const VulkanContext& ctx_;
  VkQueryPool pool_ = VK_NULL_HANDLE;
  DeviceBuffer words_;  // host-visible: one word per segment, set by its last command
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  mutable uint64_t timeline_value_ = 0;  // the last one a submit signals
  // Per run: before submit, submit + wait, after, command buffer span, timed span, submit call,
  // word seen, semaphore seen, fence seen (us).
  std::vector<std::array<double, 9>> runs_;
};

}  // namespace vx::vk

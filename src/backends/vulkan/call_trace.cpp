#include "backends/vulkan/call_trace.h"

#include <algorithm>
#include <cstdio>

#include "backends/vulkan/command_context.h"
#include "backends/vulkan/knobs.h"

namespace vx::vk {

namespace {
constexpr size_t kMaxRuns = size_t(1) << 16;  // a bench's warm-up may run for seconds

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}
}  // namespace

std::unique_ptr<CallTrace> CallTrace::from_env(const VulkanContext& ctx, size_t segments) {
  if (!knob_on("VOLVOX_VK_CALL_TRACE") || !ctx.info().timestamps || segments == 0) return nullptr;
  return std::make_unique<CallTrace>(ctx, segments);
}

CallTrace::CallTrace(const VulkanContext& ctx, size_t segments)
    : ctx_(ctx),
      pool_(create_timestamp_pool(ctx, uint32_t(2 * segments))),
      words_(ctx, VkDeviceSize(4 * segments), MemoryUse::Staging, "the call trace's words") {
  if (!ctx.timeline_semaphore()) return;
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  sci.pNext = &type;
  try {
    VX_VK_CHECK(vkCreateSemaphore(ctx.device(), &sci, nullptr, &timeline_));
  } catch (...) {
    destroy_tracked(ctx.device(), pool_, vkDestroyQueryPool, ObjectKind::QueryPool);
    throw;
  }
  track_created(ObjectKind::Semaphore);
}

CallTrace::~CallTrace() {
  if (!runs_.empty()) {
    std::array<std::vector<double>, 9> columns;
    for (const auto& r : runs_)
      for (size_t i = 0; i < r.size(); ++i) columns[i].push_back(r[i]);
    const double before = median(columns[0]), wait = median(columns[1]), after = median(columns[2]);
    const double span = median(columns[3]), timed = median(columns[4]);
    std::fflush(stdout);  // after what the program printed so far, where both go to one file
    std::fprintf(stderr,
                 "call trace, medians of %zu segment runs (us): host before submit %.1f, submit + wait %.1f, host "
                 "after %.1f; command buffer %.1f, of it timed %.1f; submit + wait beyond the command buffer %.1f; "
                 "from the submit: its return %.1f, the last command's word seen %.1f, the timeline semaphore seen "
                 "%.1f, the fence seen %.1f\n",
                 runs_.size(), before, wait, after, span, timed, wait - span, median(columns[5]), median(columns[6]),
                 timeline_ ? median(columns[7]) : -1.0, median(columns[8]));
  }
  destroy_tracked(ctx_.device(), timeline_, vkDestroySemaphore, ObjectKind::Semaphore);
  destroy_tracked(ctx_.device(), pool_, vkDestroyQueryPool, ObjectKind::QueryPool);
}

void CallTrace::record_start(VkCommandBuffer cmd, size_t segment) const {
  if (!ctx_.host_query_reset()) vkCmdResetQueryPool(cmd, pool_, uint32_t(2 * segment), 2);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool_, uint32_t(2 * segment));
}

SubmitTiming CallTrace::before_submit(size_t segment) const {
  if (ctx_.host_query_reset()) vkResetQueryPool(ctx_.device(), pool_, uint32_t(2 * segment), 2);
  auto* word = reinterpret_cast<volatile uint32_t*>(words_.mapped()) + segment;
  *word = 0;
  words_.flush();
  SubmitTiming timing;
  timing.flag = word;
  timing.timeline = timeline_;
  timing.timeline_value = ++timeline_value_;
  return timing;
}

void CallTrace::record_end(VkCommandBuffer cmd, size_t segment) const {
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool_, uint32_t(2 * segment + 1));
  barrier(cmd, kAnyWrite, kTransferWrite);  // the word is set after everything else
  vkCmdFillBuffer(cmd, words_.buffer(), VkDeviceSize(4 * segment), 4, 1u);
  barrier(cmd, kTransferWrite, kHostRead);
}

void CallTrace::add_run(size_t segment, double before_submit_us, double submit_wait_us, double after_us,
                        const SubmitTiming& submit, double timed_ms) {
  uint64_t ticks[2] = {0, 0};
  VX_VK_CHECK(vkGetQueryPoolResults(ctx_.device(), pool_, uint32_t(2 * segment), 2, sizeof ticks, ticks,
                                    sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  const double span_us = double(ticks[1] - ticks[0]) * ctx_.info().timestamp_period_ns * 1e-3;
  if (runs_.size() < kMaxRuns)
    runs_.push_back({before_submit_us, submit_wait_us, after_us, span_us, timed_ms * 1e3, submit.submitted_us,
                     submit.flag_us, submit.timeline_us, submit.fence_us});
}

}  // namespace vx::vk

// The Vulkan backend's compiled segments of one executable (vulkan_backend.h): every value they
// touch placed in one device arena by liveness (values made in one segment and read in a later one
// stay there), constants converted and uploaded once, one staging buffer for the values crossing
// the segments' borders and the index status words, pipelines and descriptor sets, and each
// segment recorded once into its own command buffer (its nodes in recording_order.h's order, a
// barrier only where dispatch_hazards.h finds a dependence). run(k) converts the segment's receives into
// staging, submits its command buffer through the context's queue lock and converts its sends back.
#pragma once
#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/vulkan/command_context.h"
#include "backends/vulkan/context.h"
#include "backends/vulkan/dispatch_hazards.h"
#include "backends/vulkan/kernels/op_kernel.h"
#include "backends/vulkan/memory.h"
#include "backends/vulkan/pipeline.h"
#include "runtime/backend.h"
#include "runtime/memory_limit.h"
#include "runtime/timestamps.h"

namespace vx::vk {

class CallTrace;
class DispatchProfile;

struct SegmentOptions {
  Precision precision = Precision::fp32;
  runtime::Timestamps timestamps = runtime::Timestamps::none;
  uint64_t max_memory_mb = 0;     // > 0: OutOfMemory before any device allocation above it
  MemoryNeeds* needs = nullptr;   // filled before the limit is checked
};

class SegmentExecutable final : public runtime::CompiledSegments {
 public:
  // `plans`: per graph node, the OpPlan of every node in `segments` (others are ignored). `bound`
  // and `segments` outlive this object.
  SegmentExecutable(const VulkanContext& ctx, const SegmentOptions& options, const runtime::BoundGraph& bound,
                    const std::vector<const runtime::Segment*>& segments, std::vector<OpPlan> plans);
  ~SegmentExecutable() override;
  SegmentExecutable(const SegmentExecutable&) = delete;
  SegmentExecutable& operator=(const SegmentExecutable&) = delete;

  void run(size_t k, runtime::HostValues& host, std::vector<double>& node_ms) override;
  // Graph inputs / outputs in VkBuffers of this device: copied (or converted) on the GPU from / to
  // them instead of staging; the segments are recorded again.
  void bind_device_values(const std::vector<runtime::DeviceValue>& values) override;
  MemoryNeeds memory_needs() const override { return needs_; }
  // What the segments' recordings hold: their nodes' dispatches, and the barriers before them
  // (only where a dispatch depends on one since the last barrier: dispatch_hazards.h).
  struct DispatchCounts {
    size_t dispatches = 0, barriers = 0;
  };
  DispatchCounts dispatch_counts() const;

 private:
  struct DeviceSlot {  // where a value lives on the device
    enum class Pool { none, arena, constants } pool = Pool::none;
    VkDeviceSize offset = 0, bytes = 0;
    DeviceType type = DeviceType::f32;
  };
  struct GpuDispatch {
    const ComputePipeline* pipeline = nullptr;
    VkDescriptorSet set = VK_NULL_HANDLE;
    std::vector<uint8_t> push;
    std::array<uint32_t, 3> groups{};
    DispatchAccess access;  // the arena and staging bytes it reads and writes (dispatch_hazards.h)
  };
  struct Transfer {  // host <-> staging <-> device copy of one value
    ValueId value = kNoValue;
    VkDeviceSize staging_offset = 0;
    // An f32 value stored as f16 travels as f32 (a memcpy on the host) and `conversion`
    // (shaders/convert_float.comp) converts between staging and the arena on the GPU.
    DeviceType staging_type = DeviceType::f32;
    bool converted = false;
    GpuDispatch conversion;
    // IO binding: the caller's buffer in place of staging (no host copy), VK_NULL_HANDLE when unbound.
    VkBuffer device_buffer = VK_NULL_HANDLE;
    VkDeviceSize device_offset = 0;
  };
  struct GpuCopy {  // an alias that could not share memory (e.g. Reshape of a constant): a copy
    DeviceSlot from, to;
  };
  struct Step {  // one node
    std::vector<GpuDispatch> dispatches;
    std::vector<GpuCopy> copies;
    std::vector<VkDeviceSize> scratch_offsets;
    std::vector<VkDeviceSize> counter_offsets;  // in counters_, per OpPlan::counter_words
    bool records_work() const;  // a copy or a dispatch: aliases record nothing
  };
  struct RecordedSegment {
    const runtime::Segment* nodes = nullptr;
    std::vector<size_t> order;  // its nodes as recorded (recording_order.h)
    std::vector<Transfer> uploads, downloads;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    // Timestamps: one before the first step and one after each step that records work (a timestamp
    // waits for the work before it: ~1 us a node on an H200); per step, the query after it.
    uint32_t first_query = 0;
    std::vector<uint32_t> query_after_step;
    uint32_t queries() const { return (query_after_step.empty() ? 0 : query_after_step.back()) + 1; }
    DispatchCounts counts;  // of the steps' dispatches, as last recorded
  };

  void plan_memory();
  void create_gpu_objects();
  void record_segment(RecordedSegment& seg);
  void create_conversion(Transfer& t, bool upload);
  void write_conversion_set(const Transfer& t, bool upload);
  void record_dispatch(VkCommandBuffer cmd, const GpuDispatch& d) const;
  // Nodes seg.order[k], seg.order[k + 1], ... that may be recorded interleaved with seg.order[k]:
  // how many (1: it alone).
  size_t interleavable_run(const RecordedSegment& seg, size_t k) const;
  VkDescriptorBufferInfo buffer_info(const DeviceSlot& slot) const;
  void check_index_status(const RecordedSegment& seg) const;
  void release();

  const VulkanContext& ctx_;
  SegmentOptions options_;
  const Graph& graph_;
  std::vector<OpPlan> plans_;  // per node
  std::vector<Step> steps_;    // per node
  std::vector<bool> here_;     // per node: in one of these segments
  std::vector<int> position_;  // per node here: its place in the recordings, counted over the segments in order
  std::vector<RecordedSegment> segments_;
  std::vector<DeviceSlot> slots_;                                 // per value
  std::vector<std::vector<VkDeviceSize>> plan_constant_offsets_;  // per node: its OpPlan constants
  // Per node: where its index status words lie in staging_ (kNoStatus: it binds none).
  static constexpr VkDeviceSize kNoStatus = ~VkDeviceSize(0);
  std::vector<VkDeviceSize> status_offsets_;
  MemoryNeeds needs_;
  runtime::Timestamps timestamps_ = runtime::Timestamps::none;
  uint32_t query_count_ = 0;
  // VOLVOX_VK_BARRIERS=every: a barrier before every dispatch, as before hazards were tracked (the
  // baseline of measurements).
  bool barrier_every_dispatch_ = false;
  // Per node: the recording position where its memory group starts (plan_memory), or -1 where its
  // dispatches must not be interleaved with another node's (its scratch was placed at its own
  // position, so it may reuse bytes that an earlier node of the group still reads).
  std::vector<int> interleave_group_;
  // Whether the dispatches of a group's nodes are recorded interleaved (recording_order.h): not with
  // per-node timestamps, which need each node's work in one piece, nor with VOLVOX_VK_INTERLEAVE=0
  // (the baseline of measurements).
  bool interleave_ = true;

  std::unique_ptr<KernelLayout> layout_;
  std::map<std::string, std::unique_ptr<ComputePipeline>> pipelines_;
  DeviceBuffer constants_, arena_, staging_, dummy_;
  DeviceBuffer counters_;  // every node's OpPlan::counter_words: zeroed once, kept across runs
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  CommandContext commands_;
  VkQueryPool query_pool_ = VK_NULL_HANDLE;
  // VOLVOX_VK_CALL_TRACE=1 (measurements): where a run's wall clock goes. Two more timestamps per
  // segment (the very start and end of its command buffer) and host times per run, whose medians
  // are printed to stderr when the executable goes (call_trace.h).
  std::unique_ptr<CallTrace> call_trace_;
  // VOLVOX_VK_DISPATCH_PROFILE=1 with per-node timestamps (measurements): a query after every
  // dispatch of a node (its last one the node's own), each dispatch's mean printed when the
  // executable goes (dispatch_profile.h).
  std::unique_ptr<DispatchProfile> dispatch_profile_;
};

}  // namespace vx::vk

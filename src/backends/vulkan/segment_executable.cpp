#include "backends/vulkan/segment_executable.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "backends/vulkan/call_trace.h"
#include "backends/vulkan/dispatch_profile.h"
#include "backends/vulkan/host_conversion.h"
#include "backends/vulkan/knobs.h"
#include "backends/vulkan/recording_order.h"
#include "core/error.h"
#include "plan/arena_planner.h"

namespace vx::vk {
namespace {

constexpr VkDeviceSize kStatusBytes = 16;  // uint[4]: flag, index, extent, unused
// The buffers whose bytes dispatches write, as DispatchAccess numbers them (constants are read-only).
constexpr int kArenaRanges = 0, kStagingRanges = 1;
// The scratch bytes a group of independent nodes may hold at once (see plan_memory).
constexpr uint64_t kGroupScratchBytes = uint64_t(16) << 20;

}  // namespace

SegmentExecutable::SegmentExecutable(const VulkanContext& ctx, const SegmentOptions& options,
                                     const runtime::BoundGraph& bound,
                                     const std::vector<const runtime::Segment*>& segments, std::vector<OpPlan> plans)
    : ctx_(ctx), options_(options), graph_(bound.graph), plans_(std::move(plans)) {
  const size_t n_nodes = graph_.nodes.size();
  plans_.resize(n_nodes);
  steps_.resize(n_nodes);
  here_.assign(n_nodes, false);
  for (const runtime::Segment* s : segments) {
    VX_CHECK(!s->nodes.empty(), Internal, "an empty segment");
    RecordedSegment rec;
    rec.nodes = s;
    rec.order = recording_order(graph_, s->nodes);
    for (ValueId id : s->receives) rec.uploads.push_back({id, 0});
    for (ValueId id : s->sends) rec.downloads.push_back({id, 0});
    segments_.push_back(std::move(rec));
    for (size_t n : s->nodes) here_[n] = true;
  }
  for (size_t n = 0; n < n_nodes; ++n)
    if (!here_[n]) plans_[n] = OpPlan();
  position_.assign(n_nodes, -1);
  int position = 0;
  for (const RecordedSegment& seg : segments_)
    for (size_t n : seg.order) position_[n] = position++;
  timestamps_ = ctx_.info().timestamps ? options_.timestamps : runtime::Timestamps::none;
  const char* barriers = std::getenv("VOLVOX_VK_BARRIERS");
  barrier_every_dispatch_ = barriers && std::string(barriers) == "every";
  interleave_ = timestamps_ != runtime::Timestamps::per_node && !knob_off("VOLVOX_VK_INTERLEAVE");
  try {
    plan_memory();
    create_gpu_objects();
  } catch (...) {
    release();
    throw;
  }
}

SegmentExecutable::~SegmentExecutable() { release(); }

bool SegmentExecutable::Step::records_work() const {
  for (const GpuCopy& c : copies)
    if (c.from.bytes > 0) return true;
  for (const GpuDispatch& d : dispatches)
    if (d.groups[0] != 0 && d.groups[1] != 0 && d.groups[2] != 0) return true;
  return false;
}

void SegmentExecutable::plan_memory() {
  const Graph& g = graph_;
  const size_t n_values = g.values.size();
  const VkDeviceSize alignment = std::max<VkDeviceSize>(64, ctx_.properties().limits.minStorageBufferOffsetAlignment);
  slots_.assign(n_values, {});

  // Alias roots: Reshape-like GPU nodes make their output share input 0's bytes (from an offset
  // into them: alias_bytes, relative to the root).
  std::vector<ValueId> root(n_values);
  std::vector<VkDeviceSize> alias_bytes(n_values, 0);
  for (size_t i = 0; i < n_values; ++i) root[i] = ValueId(i);
  auto find_root = [&](ValueId v) {
    while (root[size_t(v)] != v) v = root[size_t(v)];
    return v;
  };
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (here_[n] && plans_[n].output0_aliases_input0) {
      const ValueId in = g.nodes[n].inputs[0], out = g.nodes[n].outputs[0];
      root[size_t(out)] = find_root(in);
      alias_bytes[size_t(out)] = alias_bytes[size_t(in)] + VkDeviceSize(plans_[n].output0_alias_offset) *
                                                                device_type_bytes(device_dtype(g.value(in).dtype, options_.precision));
    }

  // Device presence and lifetimes (in recording positions) of every value the GPU touches.
  std::vector<int> first(n_values, std::numeric_limits<int>::max()), last(n_values, -1);
  std::vector<bool> on_device(n_values, false);
  auto touch = [&](ValueId v, int step) {
    on_device[size_t(v)] = true;
    first[size_t(v)] = std::min(first[size_t(v)], step);
    last[size_t(v)] = std::max(last[size_t(v)], step);
  };
  // Per node: from where (a recording position) its outputs are placed. Nodes that follow one
  // another reading nothing the others make form a group: each gets its outputs as if made at the
  // group's start, so they never reuse the bytes another node of the group reads or frees, and the
  // group's dispatches run without barriers between them (dispatch_hazards.h). A node that reads
  // what the group makes starts a new one (it needs a barrier anyway). A node's scratch (split-K
  // partials) is placed from the group's start too while the group's scratch stays within
  // kGroupScratchBytes, so that such split products run together (ResNet-50's downsample convs
  // beside the first conv of their block); beyond, it stays at its node, and the split products
  // wait for one another (DeepLabV3's ASPP branches at 520 x 520 would take an arena of 29.6
  // instead of 11.2 MiB).
  std::vector<int> placed_from(g.nodes.size(), 0), scratch_from = position_;
  interleave_group_.assign(g.nodes.size(), -1);
  for (RecordedSegment& seg : segments_) {
    const int seg_first = position_[seg.order.front()], seg_last = position_[seg.order.back()];
    // What the segment receives is uploaded before its first node.
    for (const Transfer& t : seg.uploads) touch(t.value, seg_first);
    int group_start = seg_first;
    std::vector<ValueId> group_made;  // alias roots of what the group's nodes make
    uint64_t group_scratch = 0;       // bytes of the scratch placed from group_start
    for (size_t n : seg.order) {
      const Node& node = g.nodes[n];
      const int at = position_[n];
      const bool reads_group = std::any_of(node.inputs.begin(), node.inputs.end(), [&](ValueId id) {
        return id != kNoValue && std::find(group_made.begin(), group_made.end(), find_root(id)) != group_made.end();
      });
      if (reads_group || group_made.empty()) {
        group_start = at;
        group_made.clear();
        group_scratch = 0;
      }
      placed_from[n] = group_start;
      uint64_t scratch = 0;
      for (uint64_t bytes : plans_[n].scratch_bytes) scratch += bytes;
      scratch_from[n] = at;
      if (group_scratch + scratch <= kGroupScratchBytes) {
        scratch_from[n] = group_start;
        group_scratch += scratch;
        interleave_group_[n] = group_start;
      }
      if (!plans_[n].dispatches.empty())
        for (ValueId id : node.outputs)
          if (id != kNoValue) group_made.push_back(find_root(id));
      // Constant inputs go to the device only when a dispatch binds them (ops that repack weights
      // into their own constant blobs do not) or the output aliases them.
      std::vector<bool> bound(node.inputs.size(), false);
      for (const Dispatch& d : plans_[n].dispatches)
        for (const Binding& b : d.bindings)
          if (b.kind == Binding::Kind::input) bound[size_t(b.index)] = true;
      if (plans_[n].output0_aliases_input0) bound[0] = true;
      for (size_t k = 0; k < node.inputs.size(); ++k) {
        const ValueId id = node.inputs[k];
        if (id == kNoValue) continue;
        const Value& v = g.value(id);
        if (v.is_constant()) {
          if (bound[k]) on_device[size_t(id)] = true;
          continue;
        }
        touch(id, at);
      }
      for (ValueId id : node.outputs)
        if (id != kNoValue) {
          touch(id, at);
          touch(id, placed_from[n]);
        }
    }
    // What it sends (to another backend or the caller) is downloaded after its last node.
    for (const Transfer& t : seg.downloads) touch(t.value, seg_last);
  }
  // Fold aliases into their roots' lifetimes.
  for (size_t i = 0; i < n_values; ++i) {
    const ValueId r = find_root(ValueId(i));
    if (r == ValueId(i) || !on_device[i]) continue;
    on_device[size_t(r)] = true;
    first[size_t(r)] = std::min(first[size_t(r)], first[i]);
    last[size_t(r)] = std::max(last[size_t(r)], last[i]);
  }

  // Constants: converted and packed once; plan constants after them.
  OffsetAllocator constant_alloc(alignment);
  std::vector<std::pair<VkDeviceSize, std::vector<uint8_t>>> constant_data;
  for (size_t i = 0; i < n_values; ++i) {
    const Value& v = g.values[i];
    if (!on_device[i] || !v.is_constant() || find_root(ValueId(i)) != ValueId(i)) continue;
    DeviceSlot& s = slots_[i];
    s.pool = DeviceSlot::Pool::constants;
    s.type = device_dtype(v.dtype, options_.precision);
    s.bytes = VkDeviceSize(v.constant.numel()) * device_type_bytes(s.type);
    s.offset = constant_alloc.allocate(std::max<VkDeviceSize>(s.bytes, 4));
    std::vector<uint8_t> bytes(size_t(std::max<VkDeviceSize>(s.bytes, 4)));
    to_device(v.constant, s.type, bytes.data());
    constant_data.push_back({s.offset, std::move(bytes)});
  }
  plan_constant_offsets_.assign(g.nodes.size(), {});
  for (size_t n = 0; n < g.nodes.size(); ++n)
    for (const std::vector<uint8_t>& blob : plans_[n].constants) {
      const VkDeviceSize offset = constant_alloc.allocate(std::max<size_t>(blob.size(), 4));
      plan_constant_offsets_[n].push_back(offset);
      std::vector<uint8_t> bytes(std::max<size_t>(blob.size(), 4), 0);
      std::memcpy(bytes.data(), blob.data(), blob.size());
      constant_data.push_back({offset, std::move(bytes)});
    }

  // The arena: every non-constant root on the device, and each GPU node's scratch.
  std::vector<plan::BufferRequest> requests;
  std::vector<ValueId> request_value;
  for (size_t i = 0; i < n_values; ++i) {
    const Value& v = g.values[i];
    if (!on_device[i] || v.is_constant() || find_root(ValueId(i)) != ValueId(i)) continue;
    const DeviceType type = device_dtype(v.dtype, options_.precision);
    requests.push_back({size_t(v.shape.numel()) * device_type_bytes(type), first[i], last[i]});
    request_value.push_back(ValueId(i));
  }
  std::vector<std::pair<size_t, size_t>> scratch_requests;  // (node, scratch index)
  for (size_t n = 0; n < g.nodes.size(); ++n)
    for (size_t k = 0; k < plans_[n].scratch_bytes.size(); ++k) {
      requests.push_back({size_t(plans_[n].scratch_bytes[k]), scratch_from[n], position_[n]});
      request_value.push_back(kNoValue);
      scratch_requests.push_back({n, k});
    }
  const plan::ArenaLayout arena = plan::plan_arena(requests, size_t(alignment));
  const VkDeviceSize arena_bytes = arena.arena_bytes;
  size_t scratch_index = 0;
  for (size_t k = 0; k < requests.size(); ++k) {
    if (request_value[k] == kNoValue) {
      const auto [n, idx] = scratch_requests[scratch_index++];
      steps_[n].scratch_offsets.resize(plans_[n].scratch_bytes.size());
      steps_[n].scratch_offsets[idx] = arena.offsets[k];
      continue;
    }
    const ValueId id = request_value[k];
    const Value& v = g.value(id);
    DeviceSlot& s = slots_[size_t(id)];
    s.pool = DeviceSlot::Pool::arena;
    s.type = device_dtype(v.dtype, options_.precision);
    s.bytes = VkDeviceSize(v.shape.numel()) * device_type_bytes(s.type);
    s.offset = arena.offsets[k];
  }
  // Aliases take their root's place (with their own dtype, which has the same element size), from
  // their offset on and with their own size.
  for (size_t i = 0; i < n_values; ++i) {
    const ValueId r = find_root(ValueId(i));
    if (r == ValueId(i) || !on_device[i]) continue;
    slots_[i] = slots_[size_t(r)];
    slots_[i].type = device_dtype(g.values[i].dtype, options_.precision);
    slots_[i].offset += alias_bytes[i];
    slots_[i].bytes = VkDeviceSize(g.values[i].shape.numel()) * device_type_bytes(slots_[i].type);
  }

  // Staging: one region per transfer, f32 for the f32 values the device stores as f16.
  VkDeviceSize staging = 0;
  auto place = [&](Transfer& t) {
    const DeviceSlot& slot = slots_[size_t(t.value)];
    t.converted = slot.type == DeviceType::f16 && g.value(t.value).dtype == DType::f32;
    t.staging_type = t.converted ? DeviceType::f32 : slot.type;
    t.staging_offset = staging;
    const VkDeviceSize bytes = VkDeviceSize(g.value(t.value).shape.numel()) * device_type_bytes(t.staging_type);
    staging = plan::align_up(staging + std::max<VkDeviceSize>(bytes, 4), alignment);
  };
  for (RecordedSegment& seg : segments_) {
    for (Transfer& t : seg.uploads) place(t);
    for (Transfer& t : seg.downloads) place(t);
  }
  // Index status words (op_kernel.h): one aligned slot per node that binds them, in staging so
  // that the host zeroes and reads them directly.
  status_offsets_.assign(g.nodes.size(), kNoStatus);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (!here_[n]) continue;
    bool binds = false;
    for (const Dispatch& d : plans_[n].dispatches)
      for (const Binding& b : d.bindings) binds |= b.kind == Binding::Kind::index_status;
    if (!binds) continue;
    status_offsets_[n] = staging;
    staging = plan::align_up(staging + kStatusBytes, alignment);
  }

  // Counter words: kept across runs, so outside the arena.
  VkDeviceSize counter_bytes = 0;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (!here_[n]) continue;
    for (uint64_t words : plans_[n].counter_words) {
      steps_[n].counter_offsets.push_back(counter_bytes);
      counter_bytes = plan::align_up(counter_bytes + std::max<VkDeviceSize>(words * 4, 4), alignment);
    }
  }

  // The user's limit, before anything is allocated on the device.
  needs_.arena_bytes = arena_bytes;
  needs_.other_bytes =
      std::max<VkDeviceSize>(staging, 16) + std::max<VkDeviceSize>(constant_alloc.size(), 16) + 256 + counter_bytes;
  if (options_.needs) *options_.needs = needs_;
  std::map<std::string, Shape> input_shapes;
  for (ValueId id : g.inputs) input_shapes[g.value(id).name] = g.value(id).shape;
  check_memory_limit(needs_, options_.max_memory_mb, input_shapes);

  arena_ = DeviceBuffer(ctx_, std::max<VkDeviceSize>(arena_bytes, 16), MemoryUse::DeviceLocal, "activation arena");
  staging_ = DeviceBuffer(ctx_, std::max<VkDeviceSize>(staging, 16), MemoryUse::Staging, "staging");
  constants_ =
      DeviceBuffer(ctx_, std::max<VkDeviceSize>(constant_alloc.size(), 16), MemoryUse::DeviceLocal, "constants");
  dummy_ = DeviceBuffer(ctx_, 256, MemoryUse::DeviceLocal, "unused bindings");
  if (counter_bytes > 0) counters_ = DeviceBuffer(ctx_, counter_bytes, MemoryUse::DeviceLocal, "counters");

  // Command pool and fence first: the constant upload uses them.
  commands_ = CommandContext(ctx_);
  if (!constant_data.empty()) {
    DeviceBuffer upload(ctx_, constant_alloc.size(), MemoryUse::Staging, "constant upload");
    for (const auto& [offset, bytes] : constant_data) std::memcpy(upload.mapped() + offset, bytes.data(), bytes.size());
    upload.flush();
    commands_.run_once([&](VkCommandBuffer cmd) {
      VkBufferCopy region{0, 0, constant_alloc.size()};
      vkCmdCopyBuffer(cmd, upload.buffer(), constants_.buffer(), 1, &region);
    });
  }
  // Ordered before the dispatches that count as the constants' upload is.
  if (counter_bytes > 0)
    commands_.run_once([&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, counters_.buffer(), 0, VK_WHOLE_SIZE, 0); });
}

VkDescriptorBufferInfo SegmentExecutable::buffer_info(const DeviceSlot& slot) const {
  VX_CHECK(slot.pool != DeviceSlot::Pool::none, Internal, "a bound tensor has no device memory");
  const DeviceBuffer& buf = slot.pool == DeviceSlot::Pool::arena ? arena_ : constants_;
  return {buf.buffer(), slot.offset, std::max<VkDeviceSize>(slot.bytes, 4)};
}

void SegmentExecutable::create_gpu_objects() {
  const Graph& g = graph_;
  layout_ = std::make_unique<KernelLayout>(ctx_, kMaxOpBindings, kOpPushConstantBytes);
  uint32_t n_dispatches = 0;
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (here_[n]) n_dispatches += uint32_t(plans_[n].dispatches.size());
  for (const RecordedSegment& seg : segments_) {
    for (const Transfer& t : seg.uploads) n_dispatches += t.converted ? 1 : 0;
    for (const Transfer& t : seg.downloads) n_dispatches += t.converted ? 1 : 0;
  }
  if (n_dispatches > 0) descriptor_pool_ = KernelLayout::create_pool(ctx_, n_dispatches, kMaxOpBindings);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (!here_[n]) continue;
    const Node& node = g.nodes[n];
    const OpPlan& plan = plans_[n];
    Step& step = steps_[n];
    if (plan.output0_aliases_input0) {
      DeviceSlot in = slots_[size_t(node.inputs[0])];
      const DeviceSlot& out = slots_[size_t(node.outputs[0])];
      in.offset += VkDeviceSize(plan.output0_alias_offset) * device_type_bytes(in.type);
      in.bytes = out.bytes;
      if (in.pool != out.pool || in.offset != out.offset) step.copies.push_back({in, out});
    }
    for (const Dispatch& d : plan.dispatches) {
      std::string key = d.shader;
      for (int32_t c : d.spec_constants) key += cat(":", c);
      auto& pipeline = pipelines_[key];
      if (!pipeline)
        VX_WITH_CONTEXT(cat("node '", node.name, "' (", node.op, ")"),
                        pipeline = std::make_unique<ComputePipeline>(ctx_, *layout_, d.shader, d.spec_constants));
      GpuDispatch gd;
      gd.pipeline = pipeline.get();
      gd.push.assign(kOpPushConstantBytes, 0);
      std::memcpy(gd.push.data(), d.push.data(), d.push.size());
      gd.groups = d.groups;
      gd.set = layout_->allocate_set(descriptor_pool_);
      VkDescriptorBufferInfo infos[kMaxOpBindings];
      // Inputs are read (values are never written after the node that makes them), outputs and
      // scratch written, constants only read.
      auto add_access = [&](std::vector<ByteRange>& to, const DeviceSlot& slot) {
        if (slot.pool == DeviceSlot::Pool::arena && slot.bytes > 0)
          to.push_back({kArenaRanges, slot.offset, slot.offset + slot.bytes});
      };
      for (uint32_t k = 0; k < kMaxOpBindings; ++k) {
        infos[k] = {dummy_.buffer(), 0, 256};
        if (k < d.bindings.size()) {
          const Binding& b = d.bindings[k];
          switch (b.kind) {
            case Binding::Kind::input:
              infos[k] = buffer_info(slots_[size_t(node.inputs[size_t(b.index)])]);
              add_access(gd.access.reads, slots_[size_t(node.inputs[size_t(b.index)])]);
              break;
            case Binding::Kind::output:
              infos[k] = buffer_info(slots_[size_t(node.outputs[size_t(b.index)])]);
              add_access(gd.access.writes, slots_[size_t(node.outputs[size_t(b.index)])]);
              break;
            case Binding::Kind::constant:
              infos[k] = {constants_.buffer(), plan_constant_offsets_[n][size_t(b.index)],
                          std::max<VkDeviceSize>(plan.constants[size_t(b.index)].size(), 4)};
              break;
            case Binding::Kind::scratch:
              infos[k] = {arena_.buffer(), step.scratch_offsets[size_t(b.index)],
                          std::max<VkDeviceSize>(plan.scratch_bytes[size_t(b.index)], 4)};
              gd.access.writes.push_back({kArenaRanges, infos[k].offset, infos[k].offset + infos[k].range});
              break;
            case Binding::Kind::index_status:
              infos[k] = {staging_.buffer(), status_offsets_[n], kStatusBytes};
              gd.access.writes.push_back({kStagingRanges, status_offsets_[n], status_offsets_[n] + kStatusBytes});
              break;
            case Binding::Kind::counters:  // this dispatch's own words: no other dispatch binds them
              infos[k] = {counters_.buffer(), step.counter_offsets[size_t(b.index)],
                          std::max<VkDeviceSize>(plan.counter_words[size_t(b.index)] * 4, 4)};
              break;
          }
        }
      }
      KernelLayout::write_set(ctx_.device(), gd.set, infos);
      step.dispatches.push_back(std::move(gd));
    }
  }
  for (RecordedSegment& seg : segments_) {
    for (Transfer& t : seg.uploads)
      if (t.converted) create_conversion(t, true);
    for (Transfer& t : seg.downloads)
      if (t.converted) create_conversion(t, false);
  }
  // Queries: per GPU segment one timestamp before its first step and one after each step with work
  // (per_node; with the dispatch profile one after each of its dispatches) or after its last step
  // with work (per_segment).
  if (timestamps_ == runtime::Timestamps::per_node) dispatch_profile_ = DispatchProfile::from_env();
  for (RecordedSegment& seg : segments_) {
    seg.first_query = query_count_;
    const std::vector<size_t>& nodes = seg.order;
    size_t last_work = 0;
    for (size_t k = 0; k < nodes.size(); ++k)
      if (steps_[nodes[k]].records_work()) last_work = k;
    uint32_t written = 0;
    seg.query_after_step.clear();
    for (size_t k = 0; k < nodes.size(); ++k) {
      const Step& step = steps_[nodes[k]];
      if (step.records_work() && (timestamps_ == runtime::Timestamps::per_node || k == last_work))
        written += dispatch_profile_ ? uint32_t(std::max<size_t>(1, step.dispatches.size())) : 1;
      seg.query_after_step.push_back(written);
    }
    query_count_ += seg.queries();
  }
  if (timestamps_ != runtime::Timestamps::none && query_count_ > 0) query_pool_ = create_timestamp_pool(ctx_, query_count_);
  if (query_pool_) call_trace_ = CallTrace::from_env(ctx_, segments_.size());
  for (RecordedSegment& seg : segments_) {
    seg.cmd = commands_.allocate();
    record_segment(seg);
  }
}

void SegmentExecutable::create_conversion(Transfer& t, bool upload) {
  const int64_t count = graph_.value(t.value).shape.numel();
  const std::string shader = upload ? "convert_float.f32_f16" : "convert_float.f16_f32";
  auto& pipeline = pipelines_[shader];
  if (!pipeline) pipeline = std::make_unique<ComputePipeline>(ctx_, *layout_, shader);
  GpuDispatch& gd = t.conversion;
  gd.pipeline = pipeline.get();
  gd.push.assign(kOpPushConstantBytes, 0);
  const int32_t count32 = int32_t(count);
  std::memcpy(gd.push.data(), &count32, sizeof(count32));
  gd.groups = linear_groups(uint64_t(count));
  gd.set = layout_->allocate_set(descriptor_pool_);
  write_conversion_set(t, upload);
}

// The conversion's bindings: the f32 side (staging, or the caller's buffer when bound) and the arena slot.
void SegmentExecutable::write_conversion_set(const Transfer& t, bool upload) {
  const DeviceSlot& slot = slots_[size_t(t.value)];
  const VkDeviceSize f32_bytes = std::max<VkDeviceSize>(VkDeviceSize(graph_.value(t.value).shape.numel()) * 4, 4);
  const VkDescriptorBufferInfo f32_side = t.device_buffer ? VkDescriptorBufferInfo{t.device_buffer, t.device_offset, f32_bytes}
                                                          : VkDescriptorBufferInfo{staging_.buffer(), t.staging_offset, f32_bytes};
  const VkDescriptorBufferInfo stored = buffer_info(slot);
  VkDescriptorBufferInfo infos[kMaxOpBindings];
  for (uint32_t k = 0; k < kMaxOpBindings; ++k)
    infos[k] = k == 0   ? (upload ? f32_side : stored)
               : k == 1 ? (upload ? stored : f32_side)
                        : VkDescriptorBufferInfo{dummy_.buffer(), 0, 256};
  KernelLayout::write_set(ctx_.device(), t.conversion.set, infos);
}

void SegmentExecutable::record_dispatch(VkCommandBuffer cmd, const GpuDispatch& d) const {
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d.pipeline->pipeline());
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_->pipeline_layout(), 0, 1, &d.set, 0, nullptr);
  vkCmdPushConstants(cmd, layout_->pipeline_layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, uint32_t(d.push.size()),
                     d.push.data());
  vkCmdDispatch(cmd, d.groups[0], d.groups[1], d.groups[2]);
}

size_t SegmentExecutable::interleavable_run(const RecordedSegment& seg, size_t k) const {
  if (!interleave_) return 1;
  const int group = interleave_group_[seg.order[k]];
  auto joins = [&](size_t n) { return interleave_group_[n] == group && steps_[n].copies.empty(); };
  if (group < 0 || !joins(seg.order[k])) return 1;
  size_t end = k + 1;
  while (end < seg.order.size() && joins(seg.order[end])) ++end;
  return end - k;
}

void SegmentExecutable::record_segment(RecordedSegment& seg) {
  VkCommandBuffer cmd = seg.cmd;
  begin_recording(cmd);
  const size_t segment_index = size_t(&seg - segments_.data());
  if (call_trace_) call_trace_->record_start(cmd, segment_index);
  // Earlier submissions wrote the arena (and, for bound inputs, the caller's buffers, from any
  // stage): order this one's work after theirs.
  const bool bound_uploads = std::any_of(seg.uploads.begin(), seg.uploads.end(), [](const Transfer& t) { return t.device_buffer; });
  const bool bound_downloads =
      std::any_of(seg.downloads.begin(), seg.downloads.end(), [](const Transfer& t) { return t.device_buffer; });
  barrier(cmd, bound_uploads ? kAnyWrite : kDeviceWrite, kDeviceReadWrite);
  if (query_pool_ && !ctx_.host_query_reset()) vkCmdResetQueryPool(cmd, query_pool_, seg.first_query, seg.queries());
  for (const Transfer& t : seg.uploads) {
    const DeviceSlot& s = slots_[size_t(t.value)];
    if (s.bytes == 0) continue;
    if (t.converted) {
      record_dispatch(cmd, t.conversion);
      continue;
    }
    VkBufferCopy region{t.device_buffer ? t.device_offset : t.staging_offset, s.offset, s.bytes};
    vkCmdCopyBuffer(cmd, t.device_buffer ? t.device_buffer : staging_.buffer(), arena_.buffer(), 1, &region);
  }
  if (query_pool_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_, seg.first_query);
  // The uploads and copies are ordered by a barrier before the next dispatch; dispatches by their
  // hazards only (dispatch_hazards.h).
  DispatchHazards hazards;
  seg.counts = {};
  auto record = [&](const GpuDispatch& d) {
    if (d.groups[0] == 0 || d.groups[1] == 0 || d.groups[2] == 0) return;
    if (hazards.needs_barrier(d.access) || barrier_every_dispatch_) {
      barrier(cmd, kDeviceWrite, kDeviceReadWrite);
      ++seg.counts.barriers;
    }
    record_dispatch(cmd, d);
    ++seg.counts.dispatches;
  };
  const std::vector<size_t>& nodes = seg.order;
  for (size_t k = 0; k < nodes.size();) {
    const size_t run = interleavable_run(seg, k);
    if (run > 1) {
      std::vector<size_t> counts;
      for (size_t i = k; i < k + run; ++i) counts.push_back(steps_[nodes[i]].dispatches.size());
      for (const DispatchRef& r : interleaved_dispatches(counts)) record(steps_[nodes[k + r.node]].dispatches[r.dispatch]);
    } else {
      const Step& step = steps_[nodes[k]];
      for (const GpuCopy& c : step.copies) {
        if (c.from.bytes == 0) continue;
        barrier(cmd, kDeviceWrite, kDeviceReadWrite);
        hazards.reset();
        const DeviceBuffer& from = c.from.pool == DeviceSlot::Pool::arena ? arena_ : constants_;
        VkBufferCopy region{c.from.offset, c.to.offset, c.from.bytes};
        vkCmdCopyBuffer(cmd, from.buffer(), arena_.buffer(), 1, &region);
      }
      // The dispatch profile's timestamps after each dispatch but the last, whose is the step's (below).
      const uint32_t before = k == 0 ? 0 : seg.query_after_step[k - 1];
      for (size_t j = 0; j < step.dispatches.size(); ++j) {
        record(step.dispatches[j]);
        if (dispatch_profile_ && query_pool_ && j + 1 < step.dispatches.size())
          vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_, seg.first_query + before + 1 + uint32_t(j));
      }
    }
    // The timestamp after the last of these steps where one is due (interleaved only without
    // per-node timestamps, so at most one is).
    const size_t last = k + run - 1;
    if (query_pool_ && seg.query_after_step[last] != (k == 0 ? 0 : seg.query_after_step[k - 1]))
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_, seg.first_query + seg.query_after_step[last]);
    k += run;
  }
  barrier(cmd, kDeviceWrite, kDeviceReadWrite);
  for (const Transfer& t : seg.downloads) {
    const DeviceSlot& s = slots_[size_t(t.value)];
    if (s.bytes == 0) continue;
    if (t.converted) {
      record_dispatch(cmd, t.conversion);
      continue;
    }
    const DeviceBuffer& from = s.pool == DeviceSlot::Pool::arena ? arena_ : constants_;
    VkBufferCopy region{s.offset, t.device_buffer ? t.device_offset : t.staging_offset, s.bytes};
    vkCmdCopyBuffer(cmd, from.buffer(), t.device_buffer ? t.device_buffer : staging_.buffer(), 1, &region);
  }
  // The downloads, and the index status words the shaders wrote, to the host; bound outputs to
  // whatever the caller submits next on the queue.
  barrier(cmd, kDeviceWrite, kHostRead);
  if (bound_downloads) barrier(cmd, kDeviceWrite, kAnyReadWrite);
  if (call_trace_) call_trace_->record_end(cmd, segment_index);
  end_recording(cmd);
}

SegmentExecutable::DispatchCounts SegmentExecutable::dispatch_counts() const {
  DispatchCounts total;
  for (const RecordedSegment& seg : segments_) {
    total.dispatches += seg.counts.dispatches;
    total.barriers += seg.counts.barriers;
  }
  return total;
}

void SegmentExecutable::run(size_t k, runtime::HostValues& host, std::vector<double>& node_ms) {
  VX_CHECK(k < segments_.size(), Internal, "segment ", k, " of ", segments_.size());
  RecordedSegment& seg = segments_[k];
  using Clock = std::chrono::steady_clock;
  const auto entry = Clock::now();
  for (const Transfer& t : seg.uploads) {
    if (t.device_buffer) continue;  // on the device already
    const Tensor& value = host[size_t(t.value)];
    const DeviceSlot& s = slots_[size_t(t.value)];
    VX_CHECK(value.defined() && VkDeviceSize(value.numel()) * device_type_bytes(s.type) == s.bytes, Internal, "'",
             graph_.value(t.value).name, "' reached the device undefined or not of its planned shape");
    to_device(value, t.staging_type, staging_.mapped() + t.staging_offset);
  }
  for (size_t n : seg.nodes->nodes)  // the status words of an earlier run
    if (status_offsets_[n] != kNoStatus) std::memset(staging_.mapped() + status_offsets_[n], 0, kStatusBytes);
  staging_.flush();
  // The segment's queries reset before the submit (the last one is done) where the host may: a
  // reset command in the buffer cost the transformer encoder 12 us of GPU time and 16-19 us of wall
  // clock on an H100 (session 47's call 2).
  if (query_pool_ && ctx_.host_query_reset()) vkResetQueryPool(ctx_.device(), query_pool_, seg.first_query, seg.queries());
  SubmitTiming timing;
  if (call_trace_) timing = call_trace_->before_submit(k);
  const auto start = Clock::now();
  commands_.submit_and_wait(seg.cmd, call_trace_ ? &timing : nullptr);  // takes the queue's lock
  const auto waited = Clock::now();
  const double wall = std::chrono::duration<double, std::milli>(waited - start).count();
  staging_.invalidate();
  check_index_status(seg);
  for (const Transfer& t : seg.downloads) {
    if (t.device_buffer) continue;  // written to the caller's buffer
    const Value& v = graph_.value(t.value);
    host[size_t(t.value)] = from_device(staging_.mapped() + t.staging_offset, t.staging_type, v.dtype, v.shape);
  }
  const std::vector<size_t>& nodes = seg.order;
  if (!query_pool_) {
    for (size_t n : nodes) node_ms[n] = wall / double(nodes.size());  // without timestamps: a share
    return;
  }
  std::vector<uint64_t> ticks(seg.queries());
  VX_VK_CHECK(vkGetQueryPoolResults(ctx_.device(), query_pool_, seg.first_query, uint32_t(ticks.size()),
                                    ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  const double ms_per_tick = ctx_.info().timestamp_period_ns * 1e-6;
  if (call_trace_) {
    auto us = [](auto from, auto to) { return std::chrono::duration<double, std::micro>(to - from).count(); };
    call_trace_->add_run(k, us(entry, start), us(start, waited), us(waited, Clock::now()), timing,
                         double(ticks.back() - ticks.front()) * ms_per_tick);
  }
  if (timestamps_ == runtime::Timestamps::per_segment) {
    const double ms = double(ticks.back() - ticks.front()) * ms_per_tick;
    for (size_t n : nodes) node_ms[n] = ms / double(nodes.size());
    return;
  }
  for (size_t i = 0; i < nodes.size(); ++i) {  // a step without work: 0
    const uint32_t before = i == 0 ? 0 : seg.query_after_step[i - 1], after = seg.query_after_step[i];
    node_ms[nodes[i]] = double(ticks[after] - ticks[before]) * ms_per_tick;
    const Step& step = steps_[nodes[i]];
    if (!dispatch_profile_ || after == before || step.dispatches.empty()) continue;
    for (size_t j = 0; j < step.dispatches.size(); ++j)
      dispatch_profile_->add(cat(graph_.nodes[nodes[i]].name, " #", j, " ", step.dispatches[j].pipeline->shader()),
                             double(ticks[before + 1 + j] - ticks[before + j]) * ms_per_tick * 1000.0);
  }
}

void SegmentExecutable::bind_device_values(const std::vector<runtime::DeviceValue>& values) {
  // Every binding checked before any is applied: a refused set leaves the executable as it was.
  struct Bound {
    Transfer* transfer;
    VkBuffer buffer;
    VkDeviceSize offset;
  };
  std::vector<Bound> bound;
  const VkDeviceSize alignment = ctx_.properties().limits.minStorageBufferOffsetAlignment;
  for (const runtime::DeviceValue& v : values) {
    const std::string& name = graph_.value(v.value).name;
    VX_CHECK(v.buffer != 0, InvalidArgument, "'", name, "': null VkBuffer");
    Transfer* found = nullptr;
    for (RecordedSegment& seg : segments_)
      for (auto* list : {&seg.uploads, &seg.downloads})
        for (Transfer& t : *list)
          if (t.value == v.value) found = &t;
    VX_CHECK(found, Internal, "'", name, "' does not cross the device's border");
    // A converted value is bound as a storage buffer: its offset must suit a descriptor.
    VX_CHECK(!found->converted || alignment == 0 || v.offset % alignment == 0, InvalidArgument, "'", name,
             "': the buffer offset ", v.offset, " must be a multiple of ", alignment,
             " (the device's minStorageBufferOffsetAlignment) at fp16");
    VX_CHECK(v.offset % 4 == 0, InvalidArgument, "'", name, "': the buffer offset ", v.offset,
             " must be a multiple of 4");
    bound.push_back({found, to_vk_buffer(v.buffer), v.offset});
  }
  for (RecordedSegment& seg : segments_) {
    for (Transfer& t : seg.uploads) t.device_buffer = VK_NULL_HANDLE;
    for (Transfer& t : seg.downloads) t.device_buffer = VK_NULL_HANDLE;
  }
  for (const Bound& b : bound) {
    b.transfer->device_buffer = b.buffer;
    b.transfer->device_offset = b.offset;
  }
  for (RecordedSegment& seg : segments_) {
    for (Transfer& t : seg.uploads)
      if (t.converted) write_conversion_set(t, true);
    for (Transfer& t : seg.downloads)
      if (t.converted) write_conversion_set(t, false);
    record_segment(seg);
  }
}

void SegmentExecutable::check_index_status(const RecordedSegment& seg) const {
  for (size_t n : seg.nodes->nodes) {
    if (status_offsets_[n] == kNoStatus) continue;
    uint32_t words[3];
    std::memcpy(words, staging_.mapped() + status_offsets_[n], sizeof words);
    if (words[0] == 0) continue;
    // The CPU kernels' error (checked_index in cpu/reference/kernel_util.h), with the executor's context.
    const Node& node = graph_.nodes[n];
    fail(ErrorCode::InvalidArgument, cat("node '", node.name, "' (", node.op, "): ", node.op, " '", node.name,
                                         "': index ", int32_t(words[1]), " is out of range for extent ",
                                         int32_t(words[2])));
  }
}

void SegmentExecutable::release() {
  VkDevice device = ctx_.device();
  call_trace_.reset();        // prints its medians
  dispatch_profile_.reset();  // and its means
  destroy_tracked(device, query_pool_, vkDestroyQueryPool, ObjectKind::QueryPool);
  commands_ = CommandContext();  // frees the segments' command buffers
  destroy_tracked(device, descriptor_pool_, vkDestroyDescriptorPool, ObjectKind::DescriptorPool);
  steps_.clear();
  pipelines_.clear();
  layout_.reset();
  constants_ = DeviceBuffer();
  counters_ = DeviceBuffer();
  arena_ = DeviceBuffer();
  staging_ = DeviceBuffer();
  dummy_ = DeviceBuffer();
}

}  // namespace vx::vk

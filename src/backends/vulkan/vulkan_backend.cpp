#include "backends/vulkan/vulkan_backend.h"

#include "backends/vulkan/segment_executable.h"
#include "backends/vulkan/shader_registry.h"
#include "core/error.h"

namespace vx::vk {
namespace {

// What the segment executable relies on before it accepts a plan; throws (the node then runs elsewhere).
void check_plan(const OpPlan& plan, const OpInfo& info, const DeviceInfo& device) {
  const Node& node = info.node;
  for (const Dispatch& d : plan.dispatches) {
    VX_CHECK(d.bindings.size() <= kMaxOpBindings && d.push.size() <= kOpPushConstantBytes, Internal, "plan exceeds ",
             kMaxOpBindings, " bindings or ", kOpPushConstantBytes, " push bytes");
    VX_CHECK(!find_shader(d.shader).empty(), Internal, "shader '", d.shader, "' is neither embedded nor registered");
    for (const Binding& b : d.bindings) {
      bool ok = b.index >= 0;
      switch (b.kind) {
        case Binding::Kind::input:
          ok = ok && info.has_input(size_t(b.index));
          break;
        case Binding::Kind::output:
          ok = ok && size_t(b.index) < node.outputs.size() && node.outputs[size_t(b.index)] != kNoValue;
          break;
        case Binding::Kind::constant:
          ok = ok && size_t(b.index) < plan.constants.size();
          break;
        case Binding::Kind::scratch:
          ok = ok && size_t(b.index) < plan.scratch_bytes.size();
          break;
        case Binding::Kind::index_status:
          ok = ok && b.index == 0;
          break;
        case Binding::Kind::counters:
          ok = ok && size_t(b.index) < plan.counter_words.size();
          break;
      }
      VX_CHECK(ok, Unsupported, "plan binds a missing tensor (kind ", int(b.kind), ", index ", b.index, ")");
    }
  }
  // Every bound tensor must fit one descriptor range.
  const uint64_t max_range = device.max_storage_buffer_range;
  auto fits = [&](const OpTensor& t) {
    return max_range == 0 || uint64_t(t.shape.numel()) * device_type_bytes(t.device) <= max_range;
  };
  for (const OpTensor& t : info.inputs)
    VX_CHECK(fits(t), Unsupported, "a tensor exceeds the device's storage buffer range");
  for (const OpTensor& t : info.outputs)
    VX_CHECK(fits(t), Unsupported, "a tensor exceeds the device's storage buffer range");
  for (uint64_t bytes : plan.scratch_bytes)
    VX_CHECK(max_range == 0 || bytes <= max_range, Unsupported, "scratch exceeds the device's storage buffer range");
  if (plan.output0_aliases_input0)
    VX_CHECK(info.has_input(0) && !node.outputs.empty() && node.outputs[0] != kNoValue &&
                 device_type_bytes(info.inputs[0].device) == device_type_bytes(info.outputs[0].device) &&
                 plan.output0_alias_offset >= 0 &&
                 uint64_t(plan.output0_alias_offset) * device_type_bytes(info.inputs[0].device) % kAliasOffsetAlignment == 0 &&
                 plan.output0_alias_offset + info.outputs[0].shape.numel() <= info.inputs[0].shape.numel(),
             Internal, "an aliasing plan whose output is not the input's bytes");
}

}  // namespace

VulkanBackend::VulkanBackend(const VulkanContext& ctx, VulkanBackendOptions options) : ctx_(ctx), options_(options) {
  VX_CHECK(options_.precision == Precision::fp32 || ctx_.fp16_enabled(), Unsupported, "Vulkan device '",
           ctx_.info().name, "' lacks fp16 arithmetic or 16-bit storage: use fp32");
}

void VulkanBackend::choose_engine(const runtime::BoundGraph& bound) {
  const Graph& g = bound.graph;
  engine_ = Engine::ops;
  if (options_.kernels == "ops") return;
  const bool chosen = options_.kernels != "auto";
  if (is_fused_conv_network(g)) {
    try {
      layers_ = plan_fused_conv_network(g, g.value(g.inputs[0]).shape, options_.precision, options_.kernels,
                                        options_.fast_math, ctx_.coopmat_enabled());
      engine_ = Engine::fused_conv_network;
      return;
    } catch (const Error&) {
      if (chosen) throw;  // the user's choice cannot run: say why
      // Shapes the executor does not take (a batch, an odd size to pool): the per-op kernels can.
    }
  }
  VX_CHECK(!chosen, InvalidArgument, "kernel choice '", options_.kernels,
           "' is for networks of 3x3 vx.FusedConv layers (the denoiser's U-Net); this graph is not one "
           "(use auto or ops)");
}

runtime::NodeSupport VulkanBackend::supports(const runtime::BoundGraph& bound, size_t n) {
  if (engine_ == Engine::undecided) choose_engine(bound);
  if (engine_ == Engine::fused_conv_network) return {true, layers_.at(n).kernel, ""};
  const Graph& g = bound.graph;
  const Node& node = g.nodes[n];
  if (plans_.size() < g.nodes.size()) plans_.resize(g.nodes.size());
  std::vector<const OpEntry*> entries = find_ops(node.op, node.domain);
  if (entries.empty())
    return {false, "", cat("no Vulkan op for '", node.domain.empty() ? node.op : node.domain + "." + node.op, "'")};
  OpInfo info{node, g, g.opset(""), options_.precision, ctx_.info(), {}, {}, {}, ctx_.coopmat_enabled()};
  // An omitted value is a default OpTensor; outputs never carry a constant.
  auto tensor_of = [&](ValueId id) {
    OpTensor t;
    if (id == kNoValue) return t;
    const Value& v = g.value(id);
    t.shape = v.shape;
    t.dtype = v.dtype;
    t.device = device_dtype(v.dtype, options_.precision);
    t.constant = v.is_constant() ? &v.constant : nullptr;
    return t;
  };
  for (ValueId id : node.inputs) {
    info.present.push_back(id != kNoValue);
    info.inputs.push_back(tensor_of(id));
  }
  for (ValueId id : node.outputs) {
    info.outputs.push_back(tensor_of(id));
    info.outputs.back().constant = nullptr;
  }
  std::string reasons;
  for (const OpEntry* entry : entries) {
    try {
      OpPlan plan = entry->plan(info);
      check_plan(plan, info, ctx_.info());
      plans_[n] = std::move(plan);
      return {true, plans_[n].variant, ""};
    } catch (const std::exception& e) {  // vx::Error, or a factory's bug: either way not on the GPU
      reasons += (reasons.empty() ? "" : "; ") + std::string(e.what());
    }
  }
  return {false, "", reasons};
}

std::unique_ptr<runtime::CompiledSegments> VulkanBackend::compile(const runtime::BoundGraph& bound,
                                                                  const std::vector<const runtime::Segment*>& segments) {
  if (engine_ == Engine::fused_conv_network) {
    const Graph& g = bound.graph;
    VX_CHECK(segments.size() == 1 && segments[0]->nodes.size() == g.nodes.size(), Internal,
             "a fused conv network is compiled whole, not in ", segments.size(), " segments");
    ExecutableOptions o;
    o.precision = options_.precision;
    o.kernels = options_.kernels;
    o.fast_math = options_.fast_math;
    o.timestamps = options_.timestamps != runtime::Timestamps::none;  // per layer
    o.max_memory_mb = options_.max_memory_mb;
    o.needs = options_.needs;
    return std::make_unique<VulkanGraphExecutable>(ctx_, g, g.value(g.inputs[0]).shape, o);
  }
  plans_.resize(bound.graph.nodes.size());
  SegmentOptions o{options_.precision, options_.timestamps, options_.max_memory_mb, options_.needs};
  return std::make_unique<SegmentExecutable>(ctx_, o, bound, segments, std::move(plans_));
}

}  // namespace vx::vk

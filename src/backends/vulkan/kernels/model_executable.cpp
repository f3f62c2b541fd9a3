#include "backends/vulkan/kernels/model_executable.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

#include "backends/vulkan/kernels/op_args.h"
#include "backends/vulkan/shader_registry.h"
#include "core/half.h"
#include "core/thread_pool.h"
#include "passes/fold_constants.h"
#include "passes/graph_queries.h"
#include "passes/shape_inference.h"
#include "plan/arena_planner.h"
#include "plan/plan.h"
#include "runtime/eager_runner.h"
#include "runtime/host_kernel_context.h"

namespace vx::vk {
namespace {

VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

constexpr VkDeviceSize kStatusBytes = 16;  // uint[4]: flag, index, extent, unused

// Element-wise conversions of large tensors spread over the global pool.
template <class Fn>
void for_chunks(int64_t n, Fn&& fn) {
  constexpr int64_t kGrain = int64_t(1) << 16;
  if (n <= kGrain) {
    fn(int64_t(0), n);
    return;
  }
  ThreadPool::global().parallel_for(
      n, [&](int64_t begin, int64_t end) { fn(begin, end); }, kGrain);
}

// Host tensor -> device bytes of `type` (op_kernel.h's storage). int64 values beyond int32 are
// clamped (they occur as "to the end" sentinels such as Slice's INT64_MAX).
void to_device(const Tensor& t, DeviceType type, uint8_t* dst) {
  const int64_t n = t.numel();
  const DType src = t.dtype();
  if (type == DeviceType::f32) {
    float* out = reinterpret_cast<float*>(dst);
    if (src == DType::f32) {
      std::memcpy(out, t.raw(), size_t(n) * 4);
    } else if (src == DType::f16) {
      const uint16_t* in = static_cast<const uint16_t*>(t.raw());
      for (int64_t i = 0; i < n; ++i) out[i] = half_to_float(in[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) out[i] = float(t.get(i));
    }
  } else if (type == DeviceType::f16) {
    uint16_t* out = reinterpret_cast<uint16_t*>(dst);
    if (src == DType::f16) {
      std::memcpy(out, t.raw(), size_t(n) * 2);
    } else if (src == DType::f32) {
      const float* in = static_cast<const float*>(t.raw());
      for_chunks(n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) out[i] = float_to_half(in[i]);
      });
    } else {
      for (int64_t i = 0; i < n; ++i) out[i] = float_to_half(float(t.get(i)));
    }
  } else {
    int32_t* out = reinterpret_cast<int32_t*>(dst);
    switch (src) {
      case DType::i32:
        std::memcpy(out, t.raw(), size_t(n) * 4);
        break;
      case DType::i64: {
        const int64_t* in = static_cast<const int64_t*>(t.raw());
        for (int64_t i = 0; i < n; ++i)
          out[i] = int32_t(
              std::clamp<int64_t>(in[i], std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
        break;
      }
      case DType::i8: {
        const int8_t* in = static_cast<const int8_t*>(t.raw());
        for (int64_t i = 0; i < n; ++i) out[i] = in[i];
        break;
      }
      case DType::u8:
      case DType::boolean: {
        const uint8_t* in = static_cast<const uint8_t*>(t.raw());
        for (int64_t i = 0; i < n; ++i) out[i] = in[i];
        break;
      }
      default:
        for (int64_t i = 0; i < n; ++i) out[i] = int32_t(t.get(i));
    }
  }
}

// Device bytes of `type` -> a host tensor of `dtype` and `shape`.
Tensor from_device(const uint8_t* src, DeviceType type, DType dtype, const Shape& shape) {
  Tensor t(dtype, shape);
  const int64_t n = t.numel();
  if (type == DeviceType::f32 || type == DeviceType::f16) {
    auto at = [&](int64_t i) {
      if (type == DeviceType::f32) {
        float v;
        std::memcpy(&v, src + i * 4, 4);
        return v;
      }
      uint16_t h;
      std::memcpy(&h, src + i * 2, 2);
      return half_to_float(h);
    };
    if (dtype == DType::f32 && type == DeviceType::f32) {
      std::memcpy(t.raw(), src, size_t(n) * 4);
    } else if (dtype == DType::f16 && type == DeviceType::f16) {
      std::memcpy(t.raw(), src, size_t(n) * 2);
    } else if (dtype == DType::f32) {
      float* out = t.data<float>();
      for_chunks(n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) out[i] = at(i);
      });
    } else if (dtype == DType::f16) {
      uint16_t* out = static_cast<uint16_t*>(t.raw());
      for (int64_t i = 0; i < n; ++i) out[i] = float_to_half(at(i));
    } else {
      for (int64_t i = 0; i < n; ++i) t.set(i, at(i));
    }
    return t;
  }
  const int32_t* in = reinterpret_cast<const int32_t*>(src);
  switch (dtype) {
    case DType::i32:
      std::memcpy(t.raw(), src, size_t(n) * 4);
      break;
    case DType::i64: {
      int64_t* out = t.data<int64_t>();
      for (int64_t i = 0; i < n; ++i) out[i] = in[i];
      break;
    }
    case DType::i8: {
      int8_t* out = static_cast<int8_t*>(t.raw());
      for (int64_t i = 0; i < n; ++i) out[i] = int8_t(in[i]);
      break;
    }
    case DType::u8: {
      uint8_t* out = static_cast<uint8_t*>(t.raw());
      for (int64_t i = 0; i < n; ++i) out[i] = uint8_t(in[i]);
      break;
    }
    case DType::boolean: {
      uint8_t* out = static_cast<uint8_t*>(t.raw());
      for (int64_t i = 0; i < n; ++i) out[i] = in[i] != 0;
      break;
    }
    default:
      for (int64_t i = 0; i < n; ++i) t.set(i, double(in[i]));
  }
  return t;
}

// Shape and Size of values whose shapes are bound become constants (the CPU folding pass only
// folds nodes whose inputs are constants). Returns whether anything changed.
bool fold_bound_shape_nodes(Graph& g, const std::vector<bool>& known) {
  std::vector<bool> erase(g.nodes.size(), false);
  bool changed = false;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    if (!node.domain.empty() || (node.op != "Shape" && node.op != "Size")) continue;
    const ValueId x = node.input(0), y = node.outputs.empty() ? kNoValue : node.outputs[0];
    if (x == kNoValue || y == kNoValue || !known[size_t(x)]) continue;
    const Shape& s = g.value(x).shape;
    Tensor value;
    if (node.op == "Size") {
      value = Tensor(DType::i64, Shape{});
      value.data<int64_t>()[0] = s.numel();
    } else {
      const int64_t rank = int64_t(s.rank());
      auto clamp_index = [rank](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t(0), rank); };
      const int64_t start = clamp_index(node.attrs.get_int("start", 0));
      const int64_t end = clamp_index(node.attrs.get_int("end", rank));
      const int64_t count = std::max<int64_t>(end - start, 0);
      value = Tensor(DType::i64, Shape{count});
      for (int64_t i = 0; i < count; ++i) value.data<int64_t>()[i] = s[size_t(start + i)];
    }
    Value& out = g.value(y);
    out.constant = value;
    out.dtype = DType::i64;
    out.shape = value.shape();
    out.dim_params.clear();
    erase[n] = changed = true;
  }
  if (changed) erase_marked_nodes(g, erase);
  return changed;
}

// What the executor relies on before it accepts a plan; throws (the node then runs on the CPU).
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
                 info.inputs[0].shape.numel() == info.outputs[0].shape.numel(),
             Internal, "an aliasing plan whose output is not the input's bytes");
}

}  // namespace

VulkanModelExecutable::VulkanModelExecutable(const VulkanContext& ctx, const Graph& graph,
                                             const std::map<std::string, Shape>& input_shapes,
                                             const ModelExecOptions& options, const std::vector<Tensor>* sample_inputs)
    : ctx_(ctx), options_(options) {
  try {
    build(graph, input_shapes, sample_inputs);
  } catch (...) {
    release();
    throw;
  }
}

VulkanModelExecutable::~VulkanModelExecutable() { release(); }

void VulkanModelExecutable::build(const Graph& graph, const std::map<std::string, Shape>& input_shapes,
                                  const std::vector<Tensor>* sample_inputs) {
  VX_CHECK(options_.precision == Precision::fp32 || ctx_.fp16_enabled(), Unsupported, "Vulkan device '",
           ctx_.info().name, "' lacks fp16 arithmetic or 16-bit storage: use fp32");
  timestamps_ = options_.timestamps && ctx_.info().timestamps;
  bind_and_fold(graph, input_shapes, sample_inputs);
  place_nodes();
  plan_memory();
  create_gpu_objects();
}

void VulkanModelExecutable::bind_and_fold(const Graph& graph, const std::map<std::string, Shape>& input_shapes,
                                          const std::vector<Tensor>* sample_inputs) {
  Plan plan = make_plan(graph, input_shapes);  // binds and checks the input shapes, infers the rest
  graph_ = std::move(plan.graph);
  shape_known_ = std::move(plan.shape_known);
  for (int round = 0; round < 16; ++round) {
    const size_t nodes_before = graph_.nodes.size();
    fold_bound_shape_nodes(graph_, shape_known_);
    graph_ = fold_constants(std::move(graph_));
    infer_shapes(graph_, &shape_known_);
    if (graph_.nodes.size() == nodes_before) break;
  }
  bool all_known = true;
  for (const Node& node : graph_.nodes)
    for (ValueId id : node.outputs)
      if (id != kNoValue && !shape_known_[size_t(id)]) all_known = false;
  if (all_known || !sample_inputs) return;
  // Some op has no shape function: observe the shapes on one CPU run of the sample inputs.
  Graph probe = graph_;
  probe.outputs.clear();
  for (const Node& node : probe.nodes)
    for (ValueId id : node.outputs)
      if (id != kNoValue && !shape_known_[size_t(id)]) probe.outputs.push_back(id);
  std::vector<Tensor> seen;
  try {
    seen = run_graph_eager(probe, *sample_inputs);
  } catch (const Error& e) {
    // An op the CPU lacks: leave those shapes unknown (their nodes then report it when placed).
    if (e.code() == ErrorCode::Unsupported) return;
    throw e.with_context("observing the shapes that shape inference cannot tell (one CPU run)");
  }
  for (size_t i = 0; i < probe.outputs.size(); ++i) {
    Value& v = graph_.value(probe.outputs[i]);
    v.shape = seen[i].shape();
    v.dtype = seen[i].dtype();
    shape_known_[size_t(probe.outputs[i])] = true;
  }
}

void VulkanModelExecutable::place_nodes() {
  const Graph& g = graph_;
  const size_t n_nodes = g.nodes.size();
  std::vector<bool> value_on_gpu(g.values.size(), false);
  placements_.resize(n_nodes);
  plans_.resize(n_nodes);
  on_gpu_.assign(n_nodes, false);
  steps_.resize(n_nodes);
  const int64_t opset = g.opset("");
  for (size_t n = 0; n < n_nodes; ++n) {
    const Node& node = g.nodes[n];
    NodePlacement& p = placements_[n];
    p.node = node.name;
    p.op = node.domain.empty() ? node.op : node.domain + "." + node.op;
    bool all_i64 = !node.outputs.empty(), reads_gpu_or_float = false, shapes_known = true;
    std::string unknown;
    for (ValueId id : node.outputs) {
      if (id == kNoValue) continue;
      if (g.value(id).dtype != DType::i64) all_i64 = false;
      if (is_float(g.value(id).dtype)) p.touches_float = true;
      if (!shape_known_[size_t(id)]) {
        shapes_known = false;
        unknown = g.value(id).name;
      }
    }
    for (ValueId id : node.inputs) {
      if (id == kNoValue) continue;
      if (is_float(g.value(id).dtype)) p.touches_float = true;
      if (value_on_gpu[size_t(id)] || (is_float(g.value(id).dtype) && !g.value(id).is_constant()))
        reads_gpu_or_float = true;
      if (!shape_known_[size_t(id)]) {
        shapes_known = false;
        unknown = g.value(id).name;
      }
    }
    bool gpu = false;
    if (all_i64 && !reads_gpu_or_float) {
      p.by_design = true;
      p.reason = "shape computation (int64 results)";
    } else if (!shapes_known) {
      p.reason = cat("the shape of '", unknown, "' is not known when planning (it depends on data)");
    } else {
      std::vector<const OpEntry*> entries = find_ops(node.op, node.domain);
      if (entries.empty()) p.reason = cat("no Vulkan op for '", p.op, "'");
      OpInfo info{node, g, opset, options_.precision, ctx_.info(), {}, {}, {}};
      for (ValueId id : node.inputs) {
        info.present.push_back(id != kNoValue);
        OpTensor t;
        if (id != kNoValue) {
          const Value& v = g.value(id);
          t.shape = v.shape;
          t.dtype = v.dtype;
          t.device = device_dtype(v.dtype, options_.precision);
          t.constant = v.is_constant() ? &v.constant : nullptr;
        }
        info.inputs.push_back(t);
      }
      for (ValueId id : node.outputs) {
        OpTensor t;
        if (id != kNoValue) {
          const Value& v = g.value(id);
          t.shape = v.shape;
          t.dtype = v.dtype;
          t.device = device_dtype(v.dtype, options_.precision);
        }
        info.outputs.push_back(t);
      }
      std::vector<std::string> reasons;
      for (const OpEntry* entry : entries) {
        try {
          OpPlan plan = entry->plan(info);
          check_plan(plan, info, ctx_.info());
          plans_[n] = std::move(plan);
          gpu = true;
          break;
        } catch (const std::exception& e) {  // vx::Error, or a factory's bug: either way not on the GPU
          reasons.push_back(e.what());
        }
      }
      if (!gpu && !reasons.empty()) {
        std::string joined;
        for (const std::string& r : reasons) joined += (joined.empty() ? "" : "; ") + r;
        p.reason = joined;
      }
    }
    Step& step = steps_[n];
    step.node = int(n);
    step.gpu = gpu;
    on_gpu_[n] = gpu;
    p.gpu = gpu;
    if (gpu) {
      p.variant = plans_[n].variant;
      for (ValueId id : node.outputs)
        if (id != kNoValue) value_on_gpu[size_t(id)] = true;
    } else {
      const cpu::KernelEntry* kernel = cpu::find_kernel(node, g);
      VX_CHECK(kernel != nullptr, Unsupported, "node '", node.name, "' (", p.op, "): no Vulkan op runs it (", p.reason,
               ") and there is no CPU kernel");
      p.variant = kernel->variant;
      VX_WITH_CONTEXT(cat("node '", node.name, "' (", p.op, ")"),
                      step.cpu_kernel = kernel->create ? kernel->create(node, g) : kernel->run);
    }
  }
  // Segments: runs of consecutive nodes on the same side.
  for (size_t n = 0; n < n_nodes; ++n) {
    if (segments_.empty() || segments_.back().gpu != on_gpu_[n]) {
      segments_.emplace_back();
      segments_.back().gpu = on_gpu_[n];
    }
    segments_.back().steps.push_back(n);
  }
}

void VulkanModelExecutable::plan_memory() {
  const Graph& g = graph_;
  const size_t n_values = g.values.size();
  const VkDeviceSize alignment = std::max<VkDeviceSize>(64, ctx_.properties().limits.minStorageBufferOffsetAlignment);
  slots_.assign(n_values, {});
  std::vector<int> producer(n_values, -1);
  for (size_t n = 0; n < g.nodes.size(); ++n)
    for (ValueId id : g.nodes[n].outputs)
      if (id != kNoValue) producer[size_t(id)] = int(n);
  const std::vector<std::vector<int>> consumers = g.consumers();
  std::vector<bool> is_output(n_values, false);
  for (ValueId id : g.outputs) is_output[size_t(id)] = true;

  // Alias roots: Reshape-like GPU nodes make their output share input 0's bytes.
  std::vector<ValueId> root(n_values);
  for (size_t i = 0; i < n_values; ++i) root[i] = ValueId(i);
  auto find_root = [&](ValueId v) {
    while (root[size_t(v)] != v) v = root[size_t(v)];
    return v;
  };
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (on_gpu_[n] && plans_[n].output0_aliases_input0)
      root[size_t(g.nodes[n].outputs[0])] = find_root(g.nodes[n].inputs[0]);

  // Device presence and lifetimes (in node indices) of every value the GPU touches.
  std::vector<int> first(n_values, std::numeric_limits<int>::max()), last(n_values, -1);
  std::vector<bool> on_device(n_values, false), uploaded(n_values, false);
  auto touch = [&](ValueId v, int step) {
    on_device[size_t(v)] = true;
    first[size_t(v)] = std::min(first[size_t(v)], step);
    last[size_t(v)] = std::max(last[size_t(v)], step);
  };
  for (Segment& seg : segments_) {
    if (!seg.gpu) continue;
    const int seg_first = int(seg.steps.front()), seg_last = int(seg.steps.back());
    for (size_t n : seg.steps) {
      const Node& node = g.nodes[n];
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
        const bool host_made = producer[size_t(id)] < 0 || !on_gpu_[size_t(producer[size_t(id)])];
        if (host_made && !uploaded[size_t(id)]) {
          uploaded[size_t(id)] = true;
          seg.uploads.push_back({id, 0});
          touch(id, seg_first);
        }
        touch(id, int(n));
      }
      for (ValueId id : node.outputs)
        if (id != kNoValue) touch(id, int(n));
    }
    // Downloads: values made here that the CPU or the caller reads.
    for (size_t n : seg.steps)
      for (ValueId id : g.nodes[n].outputs) {
        if (id == kNoValue) continue;
        bool needed = is_output[size_t(id)];
        for (int m : consumers[size_t(id)])
          if (!on_gpu_[size_t(m)]) needed = true;
        if (needed) {
          seg.downloads.push_back({id, 0});
          touch(id, seg_last);
        }
      }
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
      requests.push_back({size_t(plans_[n].scratch_bytes[k]), int(n), int(n)});
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
  // Aliases take their root's place (with their own dtype, which has the same element size).
  for (size_t i = 0; i < n_values; ++i) {
    const ValueId r = find_root(ValueId(i));
    if (r == ValueId(i) || !on_device[i]) continue;
    slots_[i] = slots_[size_t(r)];
    slots_[i].type = device_dtype(g.values[i].dtype, options_.precision);
  }

  // Staging: one region per transfer.
  VkDeviceSize staging = 0;
  for (Segment& seg : segments_) {
    for (Transfer& t : seg.uploads) {
      t.staging_offset = staging;
      staging = align_up(staging + std::max<VkDeviceSize>(slots_[size_t(t.value)].bytes, 4), alignment);
    }
    for (Transfer& t : seg.downloads) {
      t.staging_offset = staging;
      staging = align_up(staging + std::max<VkDeviceSize>(slots_[size_t(t.value)].bytes, 4), alignment);
    }
  }
  // Index status words (op_kernel.h): one aligned slot per node that binds them, in staging so
  // that the host zeroes and reads them directly.
  status_offsets_.assign(g.nodes.size(), kNoStatus);
  status_begin_ = staging;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (!on_gpu_[n]) continue;
    bool binds = false;
    for (const Dispatch& d : plans_[n].dispatches)
      for (const Binding& b : d.bindings) binds |= b.kind == Binding::Kind::index_status;
    if (!binds) continue;
    status_offsets_[n] = staging;
    staging = align_up(staging + kStatusBytes, alignment);
  }
  status_end_ = staging;
  staging_bytes_ = staging;

  // The user's limit, before anything is allocated on the device.
  needs_.arena_bytes = arena_bytes;
  needs_.other_bytes = std::max<VkDeviceSize>(staging, 16) + std::max<VkDeviceSize>(constant_alloc.size(), 16) + 256;
  if (options_.needs) *options_.needs = needs_;
  std::map<std::string, Shape> input_shapes;
  for (ValueId id : g.inputs) input_shapes[g.value(id).name] = g.value(id).shape;
  check_memory_limit(needs_, options_.max_memory_mb, input_shapes);

  arena_ = DeviceBuffer(ctx_, std::max<VkDeviceSize>(arena_bytes, 16), MemoryUse::DeviceLocal, "activation arena");
  staging_ = DeviceBuffer(ctx_, std::max<VkDeviceSize>(staging, 16), MemoryUse::Staging, "staging");
  constants_ =
      DeviceBuffer(ctx_, std::max<VkDeviceSize>(constant_alloc.size(), 16), MemoryUse::DeviceLocal, "constants");
  dummy_ = DeviceBuffer(ctx_, 256, MemoryUse::DeviceLocal, "unused bindings");

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
}

VkDescriptorBufferInfo VulkanModelExecutable::buffer_info(const DeviceSlot& slot) const {
  VX_CHECK(slot.pool != DeviceSlot::Pool::none, Internal, "a bound tensor has no device memory");
  const DeviceBuffer& buf = slot.pool == DeviceSlot::Pool::arena ? arena_ : constants_;
  return {buf.buffer(), slot.offset, std::max<VkDeviceSize>(slot.bytes, 4)};
}

void VulkanModelExecutable::create_gpu_objects() {
  const Graph& g = graph_;
  layout_ = std::make_unique<KernelLayout>(ctx_, kMaxOpBindings, kOpPushConstantBytes);
  uint32_t n_dispatches = 0;
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (on_gpu_[n]) n_dispatches += uint32_t(plans_[n].dispatches.size());
  if (n_dispatches > 0) {
    VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, n_dispatches * kMaxOpBindings};
    VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpci.maxSets = n_dispatches;
    dpci.poolSizeCount = 1;
    dpci.pPoolSizes = &pool_size;
    VX_VK_CHECK(vkCreateDescriptorPool(ctx_.device(), &dpci, nullptr, &descriptor_pool_));
    track_created(ObjectKind::DescriptorPool);
  }
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (!on_gpu_[n]) continue;
    const Node& node = g.nodes[n];
    const OpPlan& plan = plans_[n];
    Step& step = steps_[n];
    if (plan.output0_aliases_input0) {
      const DeviceSlot &in = slots_[size_t(node.inputs[0])], &out = slots_[size_t(node.outputs[0])];
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
      VkDescriptorSetLayout set_layout = layout_->set_layout();
      VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      dsai.descriptorPool = descriptor_pool_;
      dsai.descriptorSetCount = 1;
      dsai.pSetLayouts = &set_layout;
      VX_VK_CHECK(vkAllocateDescriptorSets(ctx_.device(), &dsai, &gd.set));
      VkDescriptorBufferInfo infos[kMaxOpBindings];
      VkWriteDescriptorSet writes[kMaxOpBindings];
      for (uint32_t k = 0; k < kMaxOpBindings; ++k) {
        infos[k] = {dummy_.buffer(), 0, 256};
        if (k < d.bindings.size()) {
          const Binding& b = d.bindings[k];
          switch (b.kind) {
            case Binding::Kind::input:
              infos[k] = buffer_info(slots_[size_t(node.inputs[size_t(b.index)])]);
              break;
            case Binding::Kind::output:
              infos[k] = buffer_info(slots_[size_t(node.outputs[size_t(b.index)])]);
              break;
            case Binding::Kind::constant:
              infos[k] = {constants_.buffer(), plan_constant_offsets_[n][size_t(b.index)],
                          std::max<VkDeviceSize>(plan.constants[size_t(b.index)].size(), 4)};
              break;
            case Binding::Kind::scratch:
              infos[k] = {arena_.buffer(), step.scratch_offsets[size_t(b.index)],
                          std::max<VkDeviceSize>(plan.scratch_bytes[size_t(b.index)], 4)};
              break;
            case Binding::Kind::index_status:
              infos[k] = {staging_.buffer(), status_offsets_[n], kStatusBytes};
              break;
          }
        }
        writes[k] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[k].dstSet = gd.set;
        writes[k].dstBinding = k;
        writes[k].descriptorCount = 1;
        writes[k].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[k].pBufferInfo = &infos[k];
      }
      vkUpdateDescriptorSets(ctx_.device(), kMaxOpBindings, writes, 0, nullptr);
      step.dispatches.push_back(std::move(gd));
    }
  }
  // Queries: per GPU segment one timestamp before its first step and one after each step.
  for (Segment& seg : segments_)
    if (seg.gpu) {
      seg.first_query = query_count_;
      query_count_ += uint32_t(seg.steps.size() + 1);
    }
  if (timestamps_ && query_count_ > 0) {
    VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qci.queryCount = query_count_;
    VX_VK_CHECK(vkCreateQueryPool(ctx_.device(), &qci, nullptr, &query_pool_));
    track_created(ObjectKind::QueryPool);
  }
  for (Segment& seg : segments_) {
    if (!seg.gpu) continue;
    seg.cmd = commands_.allocate();
    record_segment(seg);
  }
}

void VulkanModelExecutable::record_segment(Segment& seg) {
  VkCommandBuffer cmd = seg.cmd;
  begin_recording(cmd);
  // Earlier submissions wrote the arena: order this one's work after theirs.
  barrier(cmd, kDeviceWrite, kDeviceReadWrite);
  if (query_pool_) vkCmdResetQueryPool(cmd, query_pool_, seg.first_query, uint32_t(seg.steps.size() + 1));
  for (const Transfer& t : seg.uploads) {
    const DeviceSlot& s = slots_[size_t(t.value)];
    if (s.bytes == 0) continue;
    VkBufferCopy region{t.staging_offset, s.offset, s.bytes};
    vkCmdCopyBuffer(cmd, staging_.buffer(), arena_.buffer(), 1, &region);
  }
  if (query_pool_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_, seg.first_query);
  for (size_t k = 0; k < seg.steps.size(); ++k) {
    const Step& step = steps_[seg.steps[k]];
    for (const GpuCopy& c : step.copies) {
      if (c.from.bytes == 0) continue;
      barrier(cmd, kDeviceWrite, kDeviceReadWrite);
      const DeviceBuffer& from = c.from.pool == DeviceSlot::Pool::arena ? arena_ : constants_;
      VkBufferCopy region{c.from.offset, c.to.offset, c.from.bytes};
      vkCmdCopyBuffer(cmd, from.buffer(), arena_.buffer(), 1, &region);
    }
    for (const GpuDispatch& d : step.dispatches) {
      if (d.groups[0] == 0 || d.groups[1] == 0 || d.groups[2] == 0) continue;
      barrier(cmd, kDeviceWrite, kDeviceReadWrite);
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d.pipeline->pipeline());
      vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_->pipeline_layout(), 0, 1, &d.set, 0,
                              nullptr);
      vkCmdPushConstants(cmd, layout_->pipeline_layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, uint32_t(d.push.size()),
                         d.push.data());
      vkCmdDispatch(cmd, d.groups[0], d.groups[1], d.groups[2]);
    }
    if (query_pool_)
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_, uint32_t(seg.first_query + k + 1));
  }
  barrier(cmd, kDeviceWrite, kTransferRead);
  for (const Transfer& t : seg.downloads) {
    const DeviceSlot& s = slots_[size_t(t.value)];
    if (s.bytes == 0) continue;
    const DeviceBuffer& from = s.pool == DeviceSlot::Pool::arena ? arena_ : constants_;
    VkBufferCopy region{s.offset, t.staging_offset, s.bytes};
    vkCmdCopyBuffer(cmd, from.buffer(), staging_.buffer(), 1, &region);
  }
  // The downloads, and the index status words the shaders wrote, to the host.
  barrier(cmd, kDeviceWrite, kHostRead);
  end_recording(cmd);
}

void VulkanModelExecutable::upload(const Tensor& host, ValueId id, uint8_t* dst) const {
  to_device(host, slots_[size_t(id)].type, dst);
}

Tensor VulkanModelExecutable::download(ValueId id, const uint8_t* src) const {
  const Value& v = graph_.value(id);
  return from_device(src, slots_[size_t(id)].type, v.dtype, v.shape);
}

void VulkanModelExecutable::run_cpu_step(const Step& step, std::vector<Tensor>& host) {
  const Node& node = graph_.nodes[size_t(step.node)];
  HostKernelContext context(graph_, node, host);
  try {
    step.cpu_kernel(context);
  } catch (const Error& e) {
    throw e.with_context(cat("node '", node.name, "' (", node.op, ", on the CPU)"));
  }
  for (ValueId id : node.outputs) {
    if (id == kNoValue) continue;
    VX_CHECK(host[size_t(id)].defined(), Internal, "node '", node.name, "' did not write '", graph_.value(id).name,
             "'");
    // The GPU side was planned for these shapes.
    if (shape_known_[size_t(id)] && slots_[size_t(id)].pool != DeviceSlot::Pool::none)
      VX_CHECK(host[size_t(id)].shape() == graph_.value(id).shape, Unsupported, "data-dependent shape changed: '",
               graph_.value(id).name, "' is ", host[size_t(id)].shape().str(), " but the plan was made for ",
               graph_.value(id).shape.str());
  }
}

std::vector<Tensor> VulkanModelExecutable::run(const std::vector<Tensor>& inputs, Profile* profile) {
  std::lock_guard<std::mutex> lock(*run_mutex_);
  const Graph& g = graph_;
  VX_CHECK(inputs.size() == g.inputs.size(), InvalidArgument, "the graph has ", g.inputs.size(), " inputs but ",
           inputs.size(), " were given");
  std::vector<Tensor> host(g.values.size());
  for (size_t i = 0; i < g.values.size(); ++i)
    if (g.values[i].is_constant()) host[i] = g.values[i].constant;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = g.value(g.inputs[i]);
    VX_CHECK(inputs[i].defined() && inputs[i].dtype() == v.dtype && inputs[i].shape() == v.shape, InvalidArgument,
             "input '", v.name, "' must be ", dtype_name(v.dtype), " ", v.shape.str(), " (the bound shape), not ",
             inputs[i].defined() ? cat(dtype_name(inputs[i].dtype()), " ", inputs[i].shape().str()) : "empty");
    host[size_t(g.inputs[i])] = inputs[i];
  }
  // Status words of earlier runs (staging_.flush() below makes the zeros visible to the device).
  if (status_end_ > status_begin_) std::memset(staging_.mapped() + status_begin_, 0, status_end_ - status_begin_);
  using Clock = std::chrono::steady_clock;
  std::vector<double> cpu_ms(steps_.size(), 0.0);
  for (Segment& seg : segments_) {
    if (!seg.gpu) {
      for (size_t n : seg.steps) {
        const auto start = Clock::now();
        run_cpu_step(steps_[n], host);
        cpu_ms[n] = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      }
      continue;
    }
    for (const Transfer& t : seg.uploads) upload(host[size_t(t.value)], t.value, staging_.mapped() + t.staging_offset);
    staging_.flush();
    const auto start = Clock::now();
    commands_.submit_and_wait(seg.cmd);  // takes the queue's lock
    const double wall = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    staging_.invalidate();
    check_index_status(seg);
    for (const Transfer& t : seg.downloads)
      host[size_t(t.value)] = download(t.value, staging_.mapped() + t.staging_offset);
    for (size_t n : seg.steps) cpu_ms[n] = wall / double(seg.steps.size());  // without timestamps: a share
    if (query_pool_) {
      std::vector<uint64_t> ticks(seg.steps.size() + 1);
      VX_VK_CHECK(vkGetQueryPoolResults(ctx_.device(), query_pool_, seg.first_query, uint32_t(ticks.size()),
                                        ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
                                        VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
      const double ms_per_tick = ctx_.info().timestamp_period_ns * 1e-6;
      for (size_t k = 0; k < seg.steps.size(); ++k)
        cpu_ms[seg.steps[k]] = double(ticks[k + 1] - ticks[k]) * ms_per_tick;
    }
  }
  if (profile) {
    profile->entries.clear();
    for (size_t n = 0; n < steps_.size(); ++n) {
      const NodePlacement& p = placements_[n];
      profile->entries.push_back({p.node, p.op, cat(p.gpu ? "vulkan:" : "cpu:", p.variant), cpu_ms[n]});
    }
  }
  std::vector<Tensor> outputs;
  for (ValueId id : g.outputs) {
    VX_CHECK(host[size_t(id)].defined(), Internal, "graph output '", g.value(id).name, "' was never computed");
    outputs.push_back(host[size_t(id)]);
  }
  return outputs;
}

void VulkanModelExecutable::check_index_status(const Segment& seg) const {
  for (size_t n : seg.steps) {
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

std::vector<NodePlacement> VulkanModelExecutable::fallbacks() const {
  std::vector<NodePlacement> out;
  for (const NodePlacement& p : placements_)
    if (!p.gpu && !p.by_design) out.push_back(p);
  return out;
}

bool VulkanModelExecutable::floats_all_on_gpu() const {
  for (const NodePlacement& p : placements_)
    if (!p.gpu && !p.by_design && p.touches_float) return false;
  return true;
}

std::string VulkanModelExecutable::placement_report() const {
  std::string out;
  for (const NodePlacement& p : placements_)
    out += p.gpu ? cat(p.node, " (", p.op, "): gpu ", p.variant, "\n")
                 : cat(p.node, " (", p.op, "): cpu ", p.variant, " (", p.reason, ")\n");
  return out;
}

void VulkanModelExecutable::release() {
  VkDevice device = ctx_.device();
  destroy_tracked(device, query_pool_, vkDestroyQueryPool, ObjectKind::QueryPool);
  commands_ = CommandContext();  // frees the segments' command buffers
  destroy_tracked(device, descriptor_pool_, vkDestroyDescriptorPool, ObjectKind::DescriptorPool);
  steps_.clear();
  segments_.clear();
  pipelines_.clear();
  layout_.reset();
  constants_ = DeviceBuffer();
  arena_ = DeviceBuffer();
  staging_ = DeviceBuffer();
  dummy_ = DeviceBuffer();
}

}  // namespace vx::vk

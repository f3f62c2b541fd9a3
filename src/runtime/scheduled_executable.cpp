#include "runtime/scheduled_executable.h"

#include <algorithm>

#include "core/error.h"

namespace vx::runtime {

ScheduledExecutable::ScheduledExecutable(BoundGraph bound, std::vector<std::unique_ptr<Backend>> backends)
    : bound_(std::move(bound)), backends_(std::move(backends)), host_(bound_.graph, true) {
  std::vector<Backend*> order;
  for (auto& b : backends_) order.push_back(b.get());
  schedule_ = make_schedule(bound_, order);
  const Graph& g = bound_.graph;
  std::vector<std::vector<const Segment*>> per_backend(backends_.size());
  for (const Segment& seg : schedule_.segments) {
    index_in_backend_.push_back(per_backend[seg.backend].size());
    per_backend[seg.backend].push_back(&seg);
  }
  read_off_host_.assign(g.values.size(), false);
  for (const Segment& seg : schedule_.segments)
    if (!backends_[seg.backend]->on_host())
      for (ValueId id : seg.receives) read_off_host_[size_t(id)] = true;
  compiled_.resize(backends_.size());
  for (size_t b = 0; b < backends_.size(); ++b)
    if (!per_backend[b].empty()) compiled_[b] = backends_[b]->compile(bound_, per_backend[b]);
}

void ScheduledExecutable::check_shapes_of_sends(const Segment& seg, const HostValues& host) const {
  const Graph& g = bound_.graph;
  for (ValueId id : seg.sends) {
    if (!read_off_host_[size_t(id)] || !bound_.shape_known[size_t(id)]) continue;
    const Value& v = g.value(id);
    if (host[size_t(id)].shape() != v.shape)
      throw ShapeChanged(cat("data-dependent shape changed: '", v.name, "' is ", host[size_t(id)].shape().str(),
                             " but the plan was made for ", v.shape.str()));
  }
}

std::vector<bool> ScheduledExecutable::bind_device_values(const std::vector<NamedDeviceValue>& device_values) {
  const Graph& g = bound_.graph;
  std::vector<bool> bound(g.values.size(), false);
  std::vector<std::vector<DeviceValue>> per_backend(backends_.size());
  for (const NamedDeviceValue& d : device_values) {
    const bool input = std::any_of(g.inputs.begin(), g.inputs.end(), [&](ValueId id) { return g.value(id).name == d.name; });
    const auto outputs_it =
        std::find_if(g.outputs.begin(), g.outputs.end(), [&](ValueId id) { return g.value(id).name == d.name; });
    VX_CHECK(input != (outputs_it != g.outputs.end()), InvalidArgument, "'", d.name,
             "' is not a graph input or output (or it is both), so it cannot be bound to a device buffer");
    const ValueId id = input ? *std::find_if(g.inputs.begin(), g.inputs.end(),
                                             [&](ValueId v) { return g.value(v).name == d.name; })
                             : *outputs_it;
    VX_CHECK(!bound[size_t(id)], InvalidArgument, "'", d.name, "' is bound twice");
    VX_CHECK(g.value(id).dtype == DType::f32, InvalidArgument, "'", d.name, "' is ", dtype_name(g.value(id).dtype),
             ": only float32 values can be bound to device buffers");
    // The one backend that reads (an input) or makes (an output) the value; no host segment may need it.
    int backend = -1;
    for (const Segment& seg : schedule_.segments) {
      const std::vector<ValueId>& list = input ? seg.receives : seg.sends;
      const bool here = std::find(list.begin(), list.end(), id) != list.end();
      const bool read_here = !input && std::find(seg.receives.begin(), seg.receives.end(), id) != seg.receives.end();
      VX_CHECK(!read_here && (!here || !backends_[seg.backend]->on_host()) && (!here || backend < 0 || backend == int(seg.backend)),
               InvalidArgument, "'", d.name, "' cannot be bound to a device buffer: ",
               input ? "it is read" : "it is made or read", " on the ", backends_[seg.backend]->name(),
               " (nodes that do not run on the device)");
      if (here) backend = int(seg.backend);
    }
    VX_CHECK(backend >= 0, InvalidArgument, "'", d.name, "' is not read or made on the device");
    bound[size_t(id)] = true;
    per_backend[size_t(backend)].push_back({id, d.buffer, d.offset});
  }
  device_values_.resize(backends_.size());
  for (size_t b = 0; b < backends_.size(); ++b) {
    const auto& now = per_backend[b];
    const auto& before = device_values_[b];
    const bool same = now.size() == before.size() &&
                      std::equal(now.begin(), now.end(), before.begin(), [](const DeviceValue& x, const DeviceValue& y) {
                        return x.value == y.value && x.buffer == y.buffer && x.offset == y.offset;
                      });
    if (same || !compiled_[b]) continue;
    compiled_[b]->bind_device_values(now);  // re-records the backend's command buffers
    device_values_[b] = now;
  }
  return bound;
}

std::vector<Tensor> ScheduledExecutable::run(const std::vector<Tensor>& inputs, Profile* profile) {
  return run(inputs, profile, {});
}

std::vector<Tensor> ScheduledExecutable::run(const std::vector<Tensor>& inputs, Profile* profile,
                                             const std::vector<NamedDeviceValue>& device_values) {
  std::lock_guard<std::mutex> lock(run_mutex_);
  const std::vector<bool> bound = bind_device_values(device_values);
  const Graph& g = bound_.graph;
  VX_CHECK(inputs.size() == g.inputs.size(), InvalidArgument, "the graph has ", g.inputs.size(), " inputs but ",
           inputs.size(), " were given");
  ValueTable::RunScope scope(host_);
  HostValues& host = host_.values();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = g.value(g.inputs[i]);
    VX_CHECK(inputs[i].defined() && inputs[i].dtype() == v.dtype && inputs[i].shape() == v.shape, InvalidArgument,
             "input '", v.name, "' must be ", dtype_name(v.dtype), " ", v.shape.str(), " (the bound shape), not ",
             inputs[i].defined() ? cat(dtype_name(inputs[i].dtype()), " ", inputs[i].shape().str()) : "empty");
    VX_CHECK(bound[size_t(g.inputs[i])] || inputs[i].raw() != nullptr || inputs[i].numel() == 0, InvalidArgument,
             "input '", v.name, "' has no data and is not bound to a device buffer");
    host[size_t(g.inputs[i])] = inputs[i];
  }
  node_ms_.assign(g.nodes.size(), 0.0);
  for (size_t s = 0; s < schedule_.segments.size(); ++s) {
    const Segment& seg = schedule_.segments[s];
    compiled_[seg.backend]->run(index_in_backend_[s], host, node_ms_);
    if (backends_[seg.backend]->on_host()) check_shapes_of_sends(seg, host);
  }
  double device_ms = 0.0;
  for (double ms : node_ms_) device_ms += ms;
  last_run_device_ms_.store(device_ms);
  if (profile) {
    profile->entries.clear();
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      const NodePlacement& p = schedule_.placements[n];
      profile->entries.push_back({p.node, p.op, cat(p.backend_name, ":", p.variant), node_ms_[n]});
    }
  }
  std::vector<Tensor> outputs;
  for (ValueId id : g.outputs) {
    if (bound[size_t(id)]) {  // written to its device buffer
      outputs.push_back(Tensor::wrap(g.value(id).dtype, g.value(id).shape, nullptr));
      continue;
    }
    VX_CHECK(host[size_t(id)].defined(), Internal, "graph output '", g.value(id).name, "' was never computed");
    outputs.push_back(host[size_t(id)]);
  }
  return outputs;
}

std::vector<NodePlacement> ScheduledExecutable::fallbacks() const {
  std::vector<NodePlacement> out;
  for (const NodePlacement& p : schedule_.placements)
    if (!p.preferred && !p.by_design) out.push_back(p);
  return out;
}

bool ScheduledExecutable::floats_all_preferred() const {
  for (const NodePlacement& p : schedule_.placements)
    if (!p.preferred && !p.by_design && p.touches_float) return false;
  return true;
}

std::string ScheduledExecutable::placement_report() const {
  std::string out;
  for (const NodePlacement& p : schedule_.placements)
    out += p.preferred ? cat(p.node, " (", p.op, "): ", p.backend_name, " ", p.variant, "\n")
                       : cat(p.node, " (", p.op, "): ", p.backend_name, " ", p.variant, " (", p.reason, ")\n");
  return out;
}

MemoryNeeds ScheduledExecutable::memory_needs() const {
  MemoryNeeds total;
  for (const auto& c : compiled_)
    if (c) {
      const MemoryNeeds n = c->memory_needs();
      total.arena_bytes += n.arena_bytes;
      total.other_bytes += n.other_bytes;
      total.sum_activation_bytes += n.sum_activation_bytes;
    }
  return total;
}

}  // namespace vx::runtime

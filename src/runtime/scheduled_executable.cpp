#include "runtime/scheduled_executable.h"


#include "core/error.h"

namespace vx::runtime {

ScheduledExecutable::ScheduledExecutable(BoundGraph bound, std::vector<std::unique_ptr<Backend>> backends)
    : bound_(std::move(bound)), backends_(std::move(backends)) {
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

std::vector<Tensor> ScheduledExecutable::run(const std::vector<Tensor>& inputs, Profile* profile) {
  std::lock_guard<std::mutex> lock(run_mutex_);
  const Graph& g = bound_.graph;
  VX_CHECK(inputs.size() == g.inputs.size(), InvalidArgument, "the graph has ", g.inputs.size(), " inputs but ",
           inputs.size(), " were given");
  HostValues host(g.values.size());
  for (size_t i = 0; i < g.values.size(); ++i)
    if (g.values[i].is_constant()) host[i] = g.values[i].constant;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = g.value(g.inputs[i]);
    VX_CHECK(inputs[i].defined() && inputs[i].dtype() == v.dtype && inputs[i].shape() == v.shape, InvalidArgument,
             "input '", v.name, "' must be ", dtype_name(v.dtype), " ", v.shape.str(), " (the bound shape), not ",
             inputs[i].defined() ? cat(dtype_name(inputs[i].dtype()), " ", inputs[i].shape().str()) : "empty");
    host[size_t(g.inputs[i])] = inputs[i];
  }
  std::vector<double> node_ms(g.nodes.size(), 0.0);
  for (size_t s = 0; s < schedule_.segments.size(); ++s) {
    const Segment& seg = schedule_.segments[s];
    compiled_[seg.backend]->run(index_in_backend_[s], host, node_ms);
    if (backends_[seg.backend]->on_host()) check_shapes_of_sends(seg, host);
  }
  if (profile) {
    profile->entries.clear();
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      const NodePlacement& p = schedule_.placements[n];
      profile->entries.push_back({p.node, p.op, cat(p.backend_name, ":", p.variant), node_ms[n]});
    }
  }
  std::vector<Tensor> outputs;
  for (ValueId id : g.outputs) {
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

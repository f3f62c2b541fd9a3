#include "runtime/scheduler.h"

#include "core/error.h"

namespace vx::runtime {
namespace {

constexpr size_t kNone = ~size_t(0);

bool is_float_dtype(DType t) { return t == DType::f32 || t == DType::f16; }

// The host backend's index: the last resort of every node.
size_t host_backend(const std::vector<Backend*>& backends) {
  for (size_t b = 0; b < backends.size(); ++b)
    if (backends[b]->on_host()) return b;
  fail(ErrorCode::Internal, "a schedule needs a host backend (the CPU) for the nodes no device runs");
}

std::string joined(const std::vector<std::string>& reasons) {
  std::string out;
  for (const std::string& r : reasons) out += (out.empty() ? "" : "; ") + r;
  return out;
}

// Receives: the first time a backend reads a value it did not make. Sends: values that another
// backend or the caller reads.
void find_borders(const Graph& g, const std::vector<size_t>& made_by, size_t n_backends, Schedule& s) {
  std::vector<std::vector<bool>> held(n_backends, std::vector<bool>(g.values.size(), false));
  std::vector<bool> is_output(g.values.size(), false);
  for (ValueId id : g.outputs) is_output[size_t(id)] = true;
  const std::vector<std::vector<int>> consumers = g.consumers();
  for (Segment& seg : s.segments) {
    const size_t b = seg.backend;
    for (size_t n : seg.nodes)
      for (ValueId id : g.nodes[n].inputs) {
        if (id == kNoValue || g.value(id).is_constant() || made_by[size_t(id)] == b || held[b][size_t(id)]) continue;
        held[b][size_t(id)] = true;
        seg.receives.push_back(id);
      }
    for (size_t n : seg.nodes)
      for (ValueId id : g.nodes[n].outputs) {
        if (id == kNoValue) continue;
        bool needed = is_output[size_t(id)];
        for (int m : consumers[size_t(id)]) needed |= s.placements[size_t(m)].backend != b;
        if (needed) seg.sends.push_back(id);
      }
  }
}

}  // namespace

Schedule make_schedule(const BoundGraph& bound, const std::vector<Backend*>& backends) {
  const Graph& g = bound.graph;
  const size_t host = host_backend(backends);
  std::vector<size_t> made_by(g.values.size(), kNone);
  Schedule s;
  s.placements.resize(g.nodes.size());
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    NodePlacement& p = s.placements[n];
    p.node = node.name;
    p.op = node.domain.empty() ? node.op : node.domain + "." + node.op;
    bool all_i64 = !node.outputs.empty(), reads_device_or_float = false;
    std::string unknown;  // a value whose shape depends on data
    for (ValueId id : node.outputs) {
      if (id == kNoValue) continue;
      const Value& v = g.value(id);
      all_i64 &= v.dtype == DType::i64;
      p.touches_float |= is_float_dtype(v.dtype);
      if (!bound.shape_known[size_t(id)]) unknown = v.name;
    }
    for (ValueId id : node.inputs) {
      if (id == kNoValue) continue;
      const Value& v = g.value(id);
      p.touches_float |= is_float_dtype(v.dtype);
      const size_t maker = made_by[size_t(id)];
      if ((maker != kNone && !backends[maker]->on_host()) || (is_float_dtype(v.dtype) && !v.is_constant()))
        reads_device_or_float = true;
      if (!bound.shape_known[size_t(id)]) unknown = v.name;
    }
    std::vector<size_t> candidates;
    if (all_i64 && !reads_device_or_float) {
      p.by_design = true;
      p.reason = "shape computation (int64 results)";
      candidates = {host};
    } else if (!unknown.empty()) {
      p.reason = cat("the shape of '", unknown, "' is not known when planning (it depends on data)");
      candidates = {host};
    } else {
      for (size_t b = 0; b < backends.size(); ++b) candidates.push_back(b);
    }
    std::vector<std::string> declined;
    p.backend = kNone;
    for (size_t b : candidates) {
      NodeSupport support = backends[b]->supports(bound, n);
      if (support.supported) {
        p.backend = b;
        p.variant = support.variant;
        break;
      }
      declined.push_back(cat(backends[b]->name(), ": ", support.reason));
    }
    VX_CHECK(p.backend != kNone, Unsupported, "node '", node.name, "' (", p.op, "): no backend runs it (",
             p.reason.empty() ? joined(declined) : cat(p.reason, "; ", joined(declined)), ")");
    p.backend_name = backends[p.backend]->name();
    p.on_host = backends[p.backend]->on_host();
    p.preferred = p.backend == 0;
    if (p.preferred) p.reason.clear();
    else if (p.reason.empty()) p.reason = joined(declined);
    for (ValueId id : node.outputs)
      if (id != kNoValue) made_by[size_t(id)] = p.backend;
    if (s.segments.empty() || s.segments.back().backend != p.backend) s.segments.push_back({p.backend, {}, {}, {}});
    s.segments.back().nodes.push_back(n);
  }
  find_borders(g, made_by, backends.size(), s);
  return s;
}

}  // namespace vx::runtime

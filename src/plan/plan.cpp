#include "plan/plan.h"

#include <algorithm>
#include <cstdio>

#include "core/error.h"
#include "passes/graph_queries.h"
#include "passes/shape_inference.h"
#include "plan/arena_planner.h"

namespace vx {

namespace {

void bind_input_shapes(Graph& g, const std::map<std::string, Shape>& input_shapes) {
  for (const auto& [name, shape] : input_shapes) {
    ValueId id = g.find(name);
    VX_CHECK(id != kNoValue && std::find(g.inputs.begin(), g.inputs.end(), id) != g.inputs.end(), InvalidArgument,
             "input shape given for '", name, "', which is not an input of graph '", g.name, "'");
  }
  for (ValueId id : g.inputs) {
    Value& v = g.value(id);
    auto it = input_shapes.find(v.name);
    if (it == input_shapes.end()) {
      VX_CHECK(v.shape.is_known(), InvalidArgument, "no shape given for graph input '", v.name, "' (declared ",
               v.shape.str(), ")");
      continue;
    }
    const Shape& given = it->second;
    VX_CHECK(given.is_known(), InvalidArgument, "input '", v.name, "': shape ", given.str(), " has unknown extents");
    if (v.shape.rank() > 0) {  // a declared [] is taken as "rank unknown"
      bool compatible = v.shape.rank() == given.rank();
      for (size_t d = 0; compatible && d < given.rank(); ++d)
        if (v.shape[d] >= 0 && v.shape[d] != given[d]) compatible = false;
      VX_CHECK(compatible, InvalidArgument, "input '", v.name, "' has shape ", given.str(),
               " but the graph declares ", v.shape.str());
    }
    v.shape = given;
  }
}

}  // namespace

std::string shape_key(const std::map<std::string, Shape>& input_shapes) {
  std::string key;
  for (const auto& [name, shape] : input_shapes) {
    if (!key.empty()) key += ", ";
    key += name + "=";
    if (shape.rank() == 0) key += "scalar";
    for (size_t d = 0; d < shape.rank(); ++d) key += cat(d ? "x" : "", shape[d]);
  }
  return key;
}

Plan make_plan(const Graph& graph, const std::map<std::string, Shape>& input_shapes,
               const VariantChooser& choose_variant, const PlanHook& backend_hook) {
  Plan plan;
  plan.graph = graph;
  plan.input_shapes = input_shapes;
  Graph& g = plan.graph;
  g.validate();
  bind_input_shapes(g, input_shapes);
  for (ValueId id : g.inputs) plan.input_shapes[g.value(id).name] = g.value(id).shape;

  // Forget shapes derived from other input shapes; inference recomputes what it can.
  std::vector<bool> is_input(g.values.size(), false);
  for (ValueId id : g.inputs) is_input[size_t(id)] = true;
  for (size_t i = 0; i < g.values.size(); ++i)
    if (!is_input[i] && !g.values[i].is_constant())
      for (int64_t& d : g.values[i].shape.dims()) d = -1;
  infer_shapes(g, &plan.shape_known);

  const int steps = int(g.nodes.size());
  plan.steps.resize(size_t(steps));
  for (int s = 0; s < steps; ++s) {
    plan.steps[size_t(s)].node = s;
    if (choose_variant) plan.steps[size_t(s)].variant = choose_variant(g.nodes[size_t(s)], g);
  }
  if (backend_hook) backend_hook(plan);

  // Lifetimes: from the producing step to the last reading step.
  std::vector<int> first(g.values.size(), -1), last(g.values.size(), -1);
  for (int s = 0; s < steps; ++s) {
    const Node& n = g.nodes[size_t(s)];
    for (ValueId id : n.outputs)
      if (id != kNoValue) first[size_t(id)] = last[size_t(id)] = s;
    for (ValueId id : n.inputs)
      if (id != kNoValue) last[size_t(id)] = std::max(last[size_t(id)], s);
  }
  auto in_arena = [&](ValueId id) {
    const size_t i = size_t(id);
    return id != kNoValue && first[i] >= 0 && !g.values[i].is_constant() && !is_input[i] &&
           !is_graph_output(g, id) && plan.shape_known[i];
  };
  auto value_bytes = [&](ValueId id) { return size_t(g.value(id).shape.numel()) * dtype_size(g.value(id).dtype); };
  // In-place outputs: the output stored in its input's slot, whose lifetime grows to cover it.
  std::vector<ValueId> stored_in(g.values.size());
  for (size_t i = 0; i < g.values.size(); ++i) stored_in[i] = ValueId(i);
  for (int s = 0; s < steps; ++s) {
    const int reuse = plan.steps[size_t(s)].output_reuses_input;
    const Node& n = g.nodes[size_t(s)];
    if (reuse < 0 || size_t(reuse) >= n.inputs.size() || n.outputs.empty()) continue;
    const ValueId x = n.inputs[size_t(reuse)], y = n.outputs[0];
    if (!in_arena(x) || !in_arena(y) || last[size_t(x)] != s || value_bytes(x) != value_bytes(y) ||
        std::count(n.inputs.begin(), n.inputs.end(), x) != 1)
      continue;
    const ValueId holder = stored_in[size_t(x)];
    stored_in[size_t(y)] = holder;
    last[size_t(holder)] = last[size_t(y)];
  }
  std::vector<plan::BufferRequest> requests;
  for (size_t i = 0; i < g.values.size(); ++i) {
    if (!in_arena(ValueId(i)) || stored_in[i] != ValueId(i)) continue;
    const size_t bytes = value_bytes(ValueId(i));
    plan.arena_slots.push_back({ValueId(i), 0, bytes, first[i], last[i]});
    requests.push_back({bytes, first[i], last[i]});
    plan.sum_activation_bytes += bytes;
  }
  for (int s = 0; s < steps; ++s) {
    const size_t bytes = plan.steps[size_t(s)].scratch_bytes;
    if (bytes == 0) continue;
    plan.arena_slots.push_back({kNoValue, 0, bytes, s, s});
    requests.push_back({bytes, s, s});
    plan.sum_activation_bytes += bytes;
  }
  plan::ArenaLayout layout = plan::plan_arena(requests);
  plan.arena_bytes = layout.arena_bytes;
  plan.arena_offset.assign(g.values.size(), -1);
  for (size_t k = 0; k < plan.arena_slots.size(); ++k) {
    plan.arena_slots[k].offset = layout.offsets[k];
    const ArenaSlot& slot = plan.arena_slots[k];
    if (slot.value != kNoValue)
      plan.arena_offset[size_t(slot.value)] = int64_t(layout.offsets[k]);
    else
      plan.steps[size_t(slot.first_step)].scratch_offset = int64_t(layout.offsets[k]);
  }
  for (size_t i = 0; i < g.values.size(); ++i)
    if (stored_in[i] != ValueId(i)) plan.arena_offset[i] = plan.arena_offset[size_t(stored_in[i])];
  return plan;
}

std::string Plan::str() const {
  std::string out = "plan for " + (graph.name.empty() ? std::string("graph") : graph.name) + " " +
                    shape_key(input_shapes) + "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-5s %-28s %-16s %-12s %-22s %s\n", "step", "node", "op", "variant", "output",
                "arena offset");
  out += line;
  for (size_t s = 0; s < steps.size(); ++s) {
    const Node& n = graph.nodes[size_t(steps[s].node)];
    std::string shape = "-", offset = "-";
    if (!n.outputs.empty() && n.outputs[0] != kNoValue) {
      const ValueId y = n.outputs[0];
      shape = shape_known[size_t(y)] ? graph.value(y).shape.str() : "?";
      if (arena_offset[size_t(y)] >= 0)
        offset = std::to_string(arena_offset[size_t(y)]);
      else if (is_graph_output(graph, y))
        offset = "output";
      else
        offset = "allocated";
    }
    if (steps[s].scratch_bytes > 0)
      offset += cat(" (scratch ", steps[s].scratch_bytes, " B at ",
                    steps[s].scratch_offset >= 0 ? std::to_string(steps[s].scratch_offset) : std::string("-"), ")");
    std::snprintf(line, sizeof line, "%-5zu %-28s %-16s %-12s %-22s %s\n", s, n.name.c_str(), n.op.c_str(),
                  steps[s].variant.empty() ? "-" : steps[s].variant.c_str(), shape.c_str(), offset.c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "arena: %.3f MiB for %.3f MiB of activations and scratch (%zu buffers)\n",
                double(arena_bytes) / (1 << 20), double(sum_activation_bytes) / (1 << 20), arena_slots.size());
  out += line;
  return out;
}

}  // namespace vx

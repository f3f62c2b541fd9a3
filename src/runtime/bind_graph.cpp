#include "runtime/bind_graph.h"

#include <algorithm>

#include "core/error.h"
#include "passes/fold_constants.h"
#include "passes/graph_queries.h"
#include "passes/shape_inference.h"
#include "plan/plan.h"

namespace vx::runtime {
namespace {

// Shape and Size of values whose shapes are bound become constants (the folding pass only folds
// nodes whose inputs are constants). Returns whether anything changed.
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

}  // namespace

BoundGraph bind_graph(const Graph& graph, const std::map<std::string, Shape>& input_shapes,
                      const std::vector<Tensor>* sample_inputs, const ObserveFn& observe) {
  Plan plan = make_plan(graph, input_shapes);  // binds and checks the input shapes, infers the rest
  BoundGraph bound{std::move(plan.graph), std::move(plan.shape_known)};
  for (int round = 0; round < 16; ++round) {
    const size_t nodes_before = bound.graph.nodes.size();
    fold_bound_shape_nodes(bound.graph, bound.shape_known);
    bound.graph = fold_constants(std::move(bound.graph));
    infer_shapes(bound.graph, &bound.shape_known);
    if (bound.graph.nodes.size() == nodes_before) break;
  }
  bool all_known = true;
  for (const Node& node : bound.graph.nodes)
    for (ValueId id : node.outputs)
      if (id != kNoValue && !bound.shape_known[size_t(id)]) all_known = false;
  if (all_known || !sample_inputs || !observe) return bound;
  // Some op has no shape function: observe the shapes on one host run of the sample inputs.
  Graph probe = bound.graph;
  probe.outputs.clear();
  for (const Node& node : probe.nodes)
    for (ValueId id : node.outputs)
      if (id != kNoValue && !bound.shape_known[size_t(id)]) probe.outputs.push_back(id);
  std::vector<Tensor> seen;
  try {
    seen = observe(probe, *sample_inputs);
  } catch (const Error& e) {
    // An op the host lacks: leave those shapes unknown (the scheduler reports it for their nodes).
    if (e.code() == ErrorCode::Unsupported) return bound;
    throw e.with_context("observing the shapes that shape inference cannot tell (one CPU run)");
  }
  for (size_t i = 0; i < probe.outputs.size(); ++i) {
    Value& v = bound.graph.value(probe.outputs[i]);
    v.shape = seen[i].shape();
    v.dtype = seen[i].dtype();
    bound.shape_known[size_t(probe.outputs[i])] = true;
  }
  return bound;
}

}  // namespace vx::runtime

#include "runtime/bind_graph.h"

#include "core/error.h"
#include "passes/fold_constants.h"
#include "passes/fold_shape_queries.h"
#include "passes/graph_queries.h"
#include "passes/shape_inference.h"
#include "plan/plan.h"

namespace vx::runtime {

BoundGraph bind_graph(const Graph& graph, const std::map<std::string, Shape>& input_shapes,
                      const std::vector<Tensor>* sample_inputs, const ObserveFn& observe) {
  Plan plan = make_plan(graph, input_shapes);  // binds and checks the input shapes, infers the rest
  BoundGraph bound{std::move(plan.graph), std::move(plan.shape_known)};
  for (int round = 0; round < 16; ++round) {
    const size_t nodes_before = bound.graph.nodes.size();
    fold_shape_queries(bound.graph, bound.shape_known);  // the bound shapes
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

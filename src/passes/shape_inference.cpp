#include "passes/shape_inference.h"

#include "ops/shape_fn.h"

namespace vx {

void infer_shapes(Graph& graph, std::vector<bool>* inferred) {
  // Values no node produces (graph inputs, constants) are known when their shape is.
  std::vector<bool> known(graph.values.size(), false);
  const std::vector<int> producers = graph.producers();
  for (size_t i = 0; i < graph.values.size(); ++i)
    known[i] = producers[i] < 0 && (graph.values[i].is_constant() || graph.values[i].shape.is_known());
  for (const Node& node : graph.nodes) {
    bool inputs_known = true;
    for (ValueId id : node.inputs)
      if (id != kNoValue && !known[size_t(id)]) inputs_known = false;
    if (!inputs_known) continue;
    const ShapeFn* fn = find_shape_fn(node.op, node.domain);
    if (fn == nullptr) continue;
    if (!(*fn)(node, graph)) continue;
    for (ValueId id : node.outputs)
      if (id != kNoValue) known[size_t(id)] = graph.value(id).shape.is_known();
  }
  if (inferred) *inferred = std::move(known);
}

}  // namespace vx

#include "passes/fold_shape_queries.h"

#include <algorithm>

#include "passes/fold_constants.h"
#include "passes/graph_queries.h"
#include "passes/shape_inference.h"

namespace vx {

bool fold_shape_queries(Graph& g, const std::vector<bool>& known) {
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

Graph fold_declared_shapes(Graph graph) {
  for (ValueId id : graph.inputs)
    if (graph.value(id).shape.rank() == 0 || !graph.value(id).shape.is_known()) return graph;
  for (int round = 0; round < 16; ++round) {
    Graph inferred = graph;  // constants share their buffers: cheap
    std::vector<bool> known;
    try {
      infer_shapes(inferred, &known);
    } catch (const std::exception&) {
      return graph;  // inconsistent shapes: binding reports them with the actual inputs
    }
    // Only the queried values' shapes are taken from the inferred copy.
    std::vector<bool> queried(graph.values.size(), false);
    for (const Node& node : graph.nodes)
      if (node.domain.empty() && (node.op == "Shape" || node.op == "Size") && node.input(0) != kNoValue &&
          known[size_t(node.input(0))]) {
        queried[size_t(node.input(0))] = true;
        graph.value(node.input(0)).shape = inferred.value(node.input(0)).shape;
      }
    if (!fold_shape_queries(graph, queried)) break;
    graph = fold_constants(std::move(graph));
  }
  return graph;
}

}  // namespace vx

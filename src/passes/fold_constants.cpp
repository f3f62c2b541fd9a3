#include "passes/fold_constants.h"

#include <set>

#include "core/error.h"
#include "ops/host_kernels.h"
#include "passes/graph_queries.h"

namespace vx {
namespace {

bool foldable(const Node& node, const Graph& graph) {
  static const std::set<std::string> random_ops = {"RandomNormal", "RandomUniform", "RandomNormalLike",
                                                   "RandomUniformLike", "Bernoulli", "Multinomial"};
  if (!node.domain.empty() || random_ops.count(node.op) || node.outputs.empty()) return false;
  bool any_input = false;
  for (ValueId id : node.inputs) {
    if (id == kNoValue) continue;
    if (!graph.value(id).is_constant()) return false;
    any_input = true;
  }
  return any_input;  // a node without inputs (e.g. a generator) is left alone
}

}  // namespace

Graph fold_constants(Graph graph, int64_t max_elements) {
  std::vector<bool> folded(graph.nodes.size(), false);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (!foldable(node, graph)) continue;
    std::optional<std::vector<Tensor>> outputs = host_kernels().evaluate_constant(node, graph);
    if (!outputs) continue;  // invalid here means invalid at run time too: let the run report it with context
    bool fits = true;
    for (size_t i = 0; i < node.outputs.size(); ++i)
      if (node.outputs[i] != kNoValue && (!(*outputs)[i].defined() || (*outputs)[i].numel() > max_elements))
        fits = false;
    if (!fits) continue;
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (node.outputs[i] == kNoValue) continue;
      Value& v = graph.value(node.outputs[i]);
      v.constant = std::move((*outputs)[i]);
      v.dtype = v.constant.dtype();
      v.shape = v.constant.shape();
      v.dim_params.clear();
    }
    folded[n] = true;
  }
  erase_marked_nodes(graph, folded);
  return graph;
}

}  // namespace vx

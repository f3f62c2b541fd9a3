#include "passes/remove_dead_nodes.h"

#include "passes/graph_queries.h"

namespace vx {

Graph remove_dead_nodes(Graph graph) {
  // One backward sweep suffices: nodes are in topological order, so by the time a node is visited
  // every reader of its outputs has already been decided live or dead.
  std::vector<bool> needed(graph.values.size(), false);
  for (ValueId id : graph.outputs) needed[size_t(id)] = true;
  std::vector<bool> erased(graph.nodes.size(), false);
  for (size_t i = graph.nodes.size(); i-- > 0;) {
    const Node& node = graph.nodes[i];
    bool live = false;
    for (ValueId id : node.outputs)
      if (id != kNoValue && needed[size_t(id)]) live = true;
    if (!live) {
      erased[i] = true;
      continue;
    }
    for (ValueId id : node.inputs)
      if (id != kNoValue) needed[size_t(id)] = true;
  }
  erase_marked_nodes(graph, erased);
  return graph;
}

}  // namespace vx

#include "passes/fuse_conv_global_mean.h"

#include "ops/fused_ops.h"
#include "passes/graph_queries.h"

namespace vx {

Graph fuse_conv_global_mean(Graph graph) {
  const auto consumers = graph.consumers();
  std::vector<bool> erased(graph.nodes.size(), false);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Node& conv = graph.nodes[i];
    if ((conv.op != kFusedConv && conv.op != kFusedConvResidual) || conv.attrs.get_int("pool", 0) != 0 ||
        conv.attrs.get_int("upsample_concat", 0) != 0 || conv.attrs.get_int("global_mean", 0) != 0 ||
        conv.attrs.get_int("group", 1) != 1)
      continue;
    const ValueId y = conv.outputs[0];
    if (!has_single_private_consumer(graph, consumers, y)) continue;
    const int reader = consumers[size_t(y)][0];
    const Node& pool = graph.nodes[size_t(reader)];
    if (erased[size_t(reader)] || pool.op != "GlobalAveragePool" || !pool.domain.empty() || pool.outputs.size() != 1)
      continue;
    conv.attrs.set("global_mean", int64_t(1));
    conv.outputs[0] = pool.outputs[0];
    erased[size_t(reader)] = true;
  }
  erase_marked_nodes(graph, erased);
  return graph;
}

}  // namespace vx

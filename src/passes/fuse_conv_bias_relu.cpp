#include "passes/fuse_conv_bias_relu.h"

#include "ops/fused_ops.h"
#include "passes/graph_queries.h"

namespace vx {

Graph fuse_conv_bias_relu(Graph graph) {
  const auto consumers = graph.consumers();
  std::vector<bool> erased(graph.nodes.size(), false);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Node& conv = graph.nodes[i];
    if (conv.op != "Conv" || !conv.domain.empty() || conv.outputs.size() != 1 || conv.inputs.size() < 2) continue;
    conv.op = kFusedConv;
    conv.inputs.resize(3, kNoValue);  // X, W, B (B may be omitted)
    conv.attrs.set("relu", int64_t(0));
    conv.attrs.set("pool", int64_t(0));
    conv.attrs.set("upsample_concat", int64_t(0));
    const ValueId y = conv.outputs[0];
    if (!has_single_private_consumer(graph, consumers, y)) continue;
    const int reader = consumers[size_t(y)][0];
    Node& relu = graph.nodes[size_t(reader)];
    if (relu.op != "Relu" || !relu.domain.empty() || erased[size_t(reader)] || relu.outputs.size() != 1) continue;
    conv.attrs.set("relu", int64_t(1));
    conv.outputs[0] = relu.outputs[0];  // the Relu follows the conv, so every reader still comes later
    erased[size_t(reader)] = true;
  }
  erase_marked_nodes(graph, erased);
  return graph;
}

}  // namespace vx

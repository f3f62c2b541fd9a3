#include "passes/fuse_upsample_concat_conv.h"

#include "ops/fused_ops.h"
#include "passes/graph_queries.h"

namespace vx {

Graph fuse_upsample_concat_conv(Graph graph) {
  const auto consumers = graph.consumers();
  const auto producers = graph.producers();
  std::vector<bool> erased(graph.nodes.size(), false);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Node& conv = graph.nodes[i];
    if (conv.op != kFusedConv || conv.attrs.get_int("upsample_concat", 0) != 0) continue;
    if (conv.attrs.get_int("group", 1) != 1) continue;
    const ValueId concat_out = conv.input(0);
    if (concat_out == kNoValue || producers[size_t(concat_out)] < 0) continue;
    const int concat_index = producers[size_t(concat_out)];
    const Node& concat = graph.nodes[size_t(concat_index)];
    if (concat.op != "Concat" || !concat.domain.empty() || concat.inputs.size() != 2 || erased[size_t(concat_index)])
      continue;
    const ValueId up = concat.input(0), skip = concat.input(1);
    const Value& concat_value = graph.value(concat_out);
    const int64_t axis = concat.attrs.get_int("axis", 1);
    if (!(axis == 1 || (axis == -3 && concat_value.shape.rank() == 4))) continue;
    if (up == kNoValue || skip == kNoValue || producers[size_t(up)] < 0) continue;
    const int resize_index = producers[size_t(up)];
    const Node& resize = graph.nodes[size_t(resize_index)];
    if (erased[size_t(resize_index)] || !is_nearest_upsample_2x(resize, graph)) continue;
    if (!has_single_private_consumer(graph, consumers, concat_out) || !has_single_private_consumer(graph, consumers, up))
      continue;
    conv.inputs = {resize.input(0), skip, conv.input(1), conv.input(2)};
    conv.attrs.set("upsample_concat", int64_t(1));
    erased[size_t(concat_index)] = erased[size_t(resize_index)] = true;
  }
  erase_marked_nodes(graph, erased);
  return graph;
}

}  // namespace vx

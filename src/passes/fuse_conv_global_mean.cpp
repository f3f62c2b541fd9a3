#include "passes/fuse_conv_global_mean.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "ops/fused_ops.h"
#include "ops/shape_fn.h"
#include "passes/graph_queries.h"

namespace vx {

namespace {

// Whether `reader` averages every spatial axis of a rank-`rank` N, C, spatial... tensor and keeps
// them: a GlobalAveragePool, or a ReduceMean whose axes (an attribute, or a constant input from
// opset 18) are exactly 2 .. rank - 1, negative ones counted from the end.
bool is_spatial_mean(const Graph& graph, const Node& reader, int64_t rank) {
  if (!reader.domain.empty() || reader.outputs.size() != 1) return false;
  if (reader.op == "GlobalAveragePool") return true;
  if (reader.op != "ReduceMean" || rank < 3 || reader.attrs.get_int("keepdims", 1) != 1) return false;
  std::optional<std::vector<int64_t>> given = axes_of(reader, graph, 1);
  if (!given) return false;
  std::vector<int64_t> axes = *given;
  for (int64_t& axis : axes) axis = axis < 0 ? axis + rank : axis;
  std::sort(axes.begin(), axes.end());
  if (int64_t(axes.size()) != rank - 2) return false;
  for (int64_t i = 0; i < rank - 2; ++i)
    if (axes[size_t(i)] != i + 2) return false;
  return true;
}

}  // namespace

Graph fuse_conv_global_mean(Graph graph) {
  const auto consumers = graph.consumers();
  std::vector<bool> erased(graph.nodes.size(), false);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Node& conv = graph.nodes[i];
    if ((conv.op != kFusedConv && conv.op != kFusedConvResidual) || conv.attrs.get_int("pool", 0) != 0 ||
        conv.attrs.get_int("upsample_concat", 0) != 0 || conv.attrs.get_int("global_mean", 0) != 0 ||
        conv.attrs.get_int("group", 1) != 1 || conv.inputs.size() < 2 || conv.input(1) == kNoValue)
      continue;
    const ValueId y = conv.outputs[0];
    if (!has_single_private_consumer(graph, consumers, y)) continue;
    const int reader = consumers[size_t(y)][0];
    // The output's rank is the weights' (known for constant weights, as exported convolutions have).
    const int64_t rank = int64_t(graph.value(conv.input(1)).shape.rank());
    if (erased[size_t(reader)] || !is_spatial_mean(graph, graph.nodes[size_t(reader)], rank)) continue;
    conv.attrs.set("global_mean", int64_t(1));
    conv.outputs[0] = graph.nodes[size_t(reader)].outputs[0];
    erased[size_t(reader)] = true;
  }
  erase_marked_nodes(graph, erased);
  return graph;
}

}  // namespace vx

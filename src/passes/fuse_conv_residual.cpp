#include "passes/fuse_conv_residual.h"

#include <algorithm>

#include "ops/fused_ops.h"
#include "ops/shape_fn.h"
#include "passes/fuse_pattern_util.h"

namespace vx {

namespace {

using namespace pattern;

// Per value, the most nodes on a path from the graph's inputs and constants to it (nodes are in
// topological order).
std::vector<size_t> value_depths(const Graph& g) {
  std::vector<size_t> depth(g.values.size(), 0);
  for (const Node& n : g.nodes) {
    size_t d = 0;
    for (ValueId in : n.inputs)
      if (in != kNoValue) d = std::max(d, depth[size_t(in)]);
    for (ValueId out : n.outputs)
      if (out != kNoValue) depth[size_t(out)] = d + 1;
  }
  return depth;
}

bool plain_fused_conv(const Node& n) {
  return n.op == kFusedConv && n.attrs.get_int("relu", 0) == 0 && n.attrs.get_int("pool", 0) == 0 &&
         n.attrs.get_int("upsample_concat", 0) == 0 && n.outputs.size() == 1 && n.inputs.size() >= 2;
}

}  // namespace

Graph fuse_conv_residual(Graph graph) {
  Index ix(graph);
  const std::vector<Shape> shapes = inferred_shapes(graph);
  const std::vector<size_t> depth = value_depths(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& add = graph.nodes[i];
    if (!is_op(add, "Add") || ix.taken[i] || add.outputs.size() != 1 || add.inputs.size() != 2) continue;
    // The fused conv runs where the Add is, after the residual's producer. Where both operands
    // are convs that could take the other (a ResNet block's last conv and its downsample conv),
    // the one deeper in the graph takes the residual: the shallower one then depends only on the
    // block's input and runs beside the block's first conv (on Vulkan, without a barrier between
    // them), where the other choice chained all four convs.
    int conv = -1;
    ValueId residual = kNoValue, chosen = kNoValue;  // chosen: the output of the conv taking it
    for (int side : {1, 0}) {
      const ValueId y = add.inputs[size_t(side)], r = add.inputs[size_t(1 - side)];
      const int p = ix.producers[size_t(y)];
      if (p < 0 || ix.taken[size_t(p)] || !plain_fused_conv(graph.nodes[size_t(p)])) continue;
      if (!has_single_private_consumer(graph, ix.consumers, y) || y == r) continue;
      if (!shapes[size_t(y)].is_known() || shapes[size_t(y)].rank() != 4 || !(shapes[size_t(y)] == shapes[size_t(r)]))
        continue;
      if (graph.value(r).dtype != DType::f32 || graph.value(y).dtype != DType::f32) continue;
      if (conv >= 0 && depth[size_t(y)] <= depth[size_t(chosen)]) continue;
      conv = p;
      residual = r;
      chosen = y;
    }
    if (conv < 0) continue;
    int last = int(i);
    bool relu = false;
    if (const int r = sole_consumer_op(graph, ix, add.outputs[0], "Relu"); r >= 0) {
      relu = true;
      last = r;
    }
    Node fused = graph.nodes[size_t(conv)];
    fused.op = kFusedConvResidual;
    fused.inputs.resize(3, kNoValue);
    fused.inputs.push_back(residual);
    fused.outputs = {graph.nodes[size_t(last)].outputs[0]};
    fused.attrs.set("relu", int64_t(relu));
    ix.taken[size_t(conv)] = true;
    if (last != int(i)) ix.taken[i] = true;
    graph.nodes[size_t(last)] = std::move(fused);  // where the Add (or Relu) was: every input is ready
  }
  erase_marked_nodes(graph, ix.taken);
  return graph;
}

}  // namespace vx

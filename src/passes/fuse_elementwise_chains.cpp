#include "passes/fuse_elementwise_chains.h"

#include "ops/fused_ops.h"
#include "passes/fuse_pattern_util.h"
#include "passes/post_op_steps.h"

namespace vx {
namespace {

// The value a step node applies its steps to: its first input, or for a binary op the operand that
// is not a constant.
ValueId step_operand(const Graph& g, const Node& n) {
  if (n.inputs.size() == 2 && n.input(0) != kNoValue && g.value(n.input(0)).is_constant()) return n.input(1);
  return n.input(0);
}

}  // namespace

Graph fuse_elementwise_chains(Graph graph, size_t max_steps) {
  pattern::Index ix(graph);
  const std::vector<Shape> shapes = pattern::inferred_shapes(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (ix.taken[i]) continue;
    const Node& first = graph.nodes[i];
    const ValueId x = step_operand(graph, first);
    if (x == kNoValue || graph.value(x).dtype != DType::f32 || !shapes[size_t(x)].is_known()) continue;
    const size_t rank = shapes[size_t(x)].rank();
    std::optional<std::vector<PostOp>> steps = post_op_steps(graph, first, x, rank);
    if (!steps || first.outputs.size() != 1 || graph.value(first.outputs[0]).dtype != DType::f32) continue;
    std::vector<PostOp> ops;
    for (const PostOp& s : *steps) append_post_op(ops, s);
    if (ops.size() > max_steps) continue;
    std::vector<size_t> chain = {i};
    ValueId y = first.outputs[0];
    while (has_single_private_consumer(graph, ix.consumers, y)) {
      const int reader = ix.consumers[size_t(y)][0];
      if (ix.taken[size_t(reader)]) break;
      steps = post_op_steps(graph, graph.nodes[size_t(reader)], y, rank);
      if (!steps || graph.value(graph.nodes[size_t(reader)].outputs[0]).dtype != DType::f32) break;
      std::vector<PostOp> longer = ops;
      for (const PostOp& s : *steps) append_post_op(longer, s);
      if (longer.size() > max_steps) break;
      ops = std::move(longer);
      chain.push_back(size_t(reader));
      y = graph.nodes[size_t(reader)].outputs[0];
    }
    if (chain.size() < 2) continue;
    Node fused;
    fused.op = kElementwiseChain;
    fused.name = first.name;
    fused.inputs = {x};
    fused.outputs = {y};
    write_post_ops(fused.attrs, ops);
    for (size_t c : chain) ix.taken[c] = true;
    ix.taken[chain.back()] = false;
    graph.nodes[chain.back()] = std::move(fused);  // where the chain's last node was: x is ready
  }
  erase_marked_nodes(graph, ix.taken);
  return graph;
}

}  // namespace vx

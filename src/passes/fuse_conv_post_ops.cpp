#include "passes/fuse_conv_post_ops.h"

#include "ops/eltwise_post_op_algorithms.h"
#include "ops/fused_ops.h"
#include "ops/post_ops.h"
#include "passes/fuse_pattern_util.h"
#include "passes/post_op_steps.h"

namespace vx {

Graph fuse_conv_post_ops(Graph graph, size_t max_steps, bool onednn_eltwise) {
  pattern::Index ix(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& conv = graph.nodes[i];
    if ((conv.op != kFusedConv && conv.op != kFusedConvResidual) || conv.outputs.size() != 1 ||
        conv.attrs.get_int("pool", 0) != 0)
      continue;
    const size_t w_at = conv.attrs.get_int("upsample_concat", 0) != 0 ? 2 : 1;
    if (conv.input(w_at) == kNoValue) continue;
    const size_t rank = graph.value(conv.input(w_at)).shape.rank();  // the output's rank
    std::vector<PostOp> ops = read_post_ops(conv.attrs, conv.name);
    ValueId y = conv.outputs[0];
    while (has_single_private_consumer(graph, ix.consumers, y)) {
      const int reader = ix.consumers[size_t(y)][0];
      if (ix.taken[size_t(reader)]) break;
      const std::optional<std::vector<PostOp>> steps = post_op_steps(graph, graph.nodes[size_t(reader)], y, rank);
      if (!steps) break;
      std::vector<PostOp> longer = ops;
      for (const PostOp& step : *steps) append_post_op(longer, step);
      if (longer.size() > max_steps) break;
      if (onednn_eltwise && !eltwise_post_op_algorithms(conv.attrs.get_int("relu", 0) != 0, longer)) break;
      ops = std::move(longer);
      ix.taken[size_t(reader)] = true;
      y = graph.nodes[size_t(reader)].outputs[0];
    }
    if (y == conv.outputs[0]) continue;
    Node& fused = graph.nodes[i];
    write_post_ops(fused.attrs, ops);
    fused.outputs[0] = y;  // the chain's last output: its readers all come after it
  }
  erase_marked_nodes(graph, ix.taken);
  return graph;
}

}  // namespace vx

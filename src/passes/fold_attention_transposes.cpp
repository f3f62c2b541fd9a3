#include "passes/fold_attention_transposes.h"

#include <array>

#include "ops/fused_ops.h"
#include "passes/fuse_pattern_util.h"

namespace vx {

namespace {

using namespace pattern;

// A Transpose that swaps axes rank-3 and rank-2 and keeps every other axis in place.
bool swaps_heads(const Node& t) {
  const std::vector<int64_t> perm = t.attrs.get_ints("perm");
  const size_t r = perm.size();
  if (r < 3) return false;
  for (size_t i = 0; i + 3 < r; ++i)
    if (perm[i] != int64_t(i)) return false;
  return perm[r - 3] == int64_t(r - 2) && perm[r - 2] == int64_t(r - 3) && perm[r - 1] == int64_t(r - 1);
}

// The head Transpose producing `id` when only node `reader` reads `id`, else -1.
int head_transpose_for(const Graph& g, const Index& ix, ValueId id, int reader) {
  if (id == kNoValue || is_graph_output(g, id)) return -1;
  for (int c : ix.consumers[size_t(id)])
    if (c != reader) return -1;
  const int t = producer_op(g, ix, id, "Transpose");
  return t >= 0 && swaps_heads(g.nodes[size_t(t)]) ? t : -1;
}

}  // namespace

Graph fold_attention_transposes(Graph graph) {
  Index ix(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (graph.nodes[i].op != kAttention || graph.nodes[i].inputs.size() < 3) continue;
    // Inputs: all three or none.
    if (graph.nodes[i].attrs.get_int("k_transposed", 0) == 0 &&
        graph.nodes[i].attrs.get_string("qkv_layout", "bhsd") == "bhsd") {
      std::array<int, 3> transposes{};
      bool all = true;
      for (size_t j = 0; j < 3; ++j) {
        transposes[j] = head_transpose_for(graph, ix, graph.nodes[i].inputs[j], int(i));
        all = all && transposes[j] >= 0;
      }
      if (all) {
        Node& attention = graph.nodes[i];
        for (size_t j = 0; j < 3; ++j) {
          attention.inputs[j] = graph.nodes[size_t(transposes[j])].input(0);
          ix.taken[size_t(transposes[j])] = true;  // Q, K and V may share one Transpose
        }
        attention.attrs.set("qkv_layout", std::string("bshd"));
      }
    }
    // The output.
    if (graph.nodes[i].outputs.size() != 1 || graph.nodes[i].attrs.get_string("out_layout", "bhsd") != "bhsd") continue;
    const int t = sole_consumer_op(graph, ix, graph.nodes[i].outputs[0], "Transpose");
    if (t < 0 || !swaps_heads(graph.nodes[size_t(t)]) || graph.nodes[size_t(t)].outputs.size() != 1) continue;
    // The Transpose runs after the attention, so its output may take the attention's place.
    Node& attention = graph.nodes[i];
    attention.outputs[0] = graph.nodes[size_t(t)].outputs[0];
    attention.attrs.set("out_layout", std::string("bshd"));
    ix.taken[size_t(t)] = true;
  }
  erase_marked_nodes(graph, ix.taken);
  return graph;
}

}  // namespace vx

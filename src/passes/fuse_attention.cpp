#include "passes/fuse_attention.h"

#include <algorithm>

#include "ops/fused_ops.h"
#include "ops/shape_fn.h"
#include "passes/fuse_pattern_util.h"

namespace vx {

namespace {

using namespace pattern;

bool private_value(const Graph& g, const Index& ix, ValueId id) { return has_single_private_consumer(g, ix.consumers, id); }

// Whether the Softmax normalises the last axis of its input.
bool softmax_last_axis(const Graph& g, const Node& softmax, int64_t rank) {
  const int64_t axis = softmax.attrs.get_int("axis", g.opset("") >= 13 ? -1 : 1);
  return axis == -1 || (rank > 0 && axis == rank - 1);
}

// Transpose swapping only the two innermost axes.
bool swaps_last_two(const Node& t) {
  const std::vector<int64_t> perm = t.attrs.get_ints("perm");
  const size_t rank = perm.size();
  if (rank < 2) return false;
  for (size_t i = 0; i + 2 < rank; ++i)
    if (perm[i] != int64_t(i)) return false;
  return perm[rank - 2] == int64_t(rank - 1) && perm[rank - 1] == int64_t(rank - 2);
}

// `x` = y * c, c * y or y / c with c a one-element constant of rank 0 or 1 (so x has y's shape):
// the node, y and the factor (1/c for Div).
struct ScalarFactor {
  int node;
  ValueId operand;
  double value;
};
std::optional<ScalarFactor> scalar_factor(const Graph& g, const Index& ix, ValueId x) {
  auto factor = [&g](ValueId c) { return g.value(c).shape.rank() <= 1 ? scalar_constant(g, c) : std::nullopt; };
  if (const int mul = producer_op(g, ix, x, "Mul"); mul >= 0) {
    const Node& m = g.nodes[size_t(mul)];
    for (size_t side = 0; side < 2; ++side)
      if (const auto c = factor(m.input(side))) return ScalarFactor{mul, m.input(1 - side), *c};
  } else if (const int div = producer_op(g, ix, x, "Div"); div >= 0) {
    const Node& d = g.nodes[size_t(div)];
    if (const auto c = factor(d.input(1)); c && *c != 0.0) return ScalarFactor{div, d.input(0), 1.0 / *c};
  }
  return std::nullopt;
}

}  // namespace

Graph fuse_attention(Graph graph) {
  Index ix(graph);
  const std::vector<Shape> shapes = inferred_shapes(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& softmax = graph.nodes[i];
    if (!is_op(softmax, "Softmax") || ix.taken[i] || softmax.outputs.size() != 1) continue;
    const ValueId scores = softmax.input(0);
    if (!softmax_last_axis(graph, softmax, int64_t(shapes[size_t(scores)].rank()))) continue;
    if (graph.value(scores).dtype != DType::f32) continue;
    std::vector<int> nodes = {int(i)};
    ValueId cur = softmax.input(0), mask = kNoValue;
    double scale = 1.0;
    // + Mask
    if (const int add = producer_op(graph, ix, cur, "Add"); add >= 0 && private_value(graph, ix, cur)) {
      const Node& a = graph.nodes[size_t(add)];
      // The scores side is the one produced by the MatMul chain.
      for (int side = 0; side < 2; ++side) {
        const ValueId s = a.input(size_t(side));
        if (producer_op(graph, ix, s, "MatMul") >= 0 || producer_op(graph, ix, s, "Mul") >= 0 ||
            producer_op(graph, ix, s, "Div") >= 0) {
          mask = a.input(size_t(1 - side));
          cur = s;
          break;
        }
      }
      if (mask == kNoValue || graph.value(mask).dtype != DType::f32) continue;
      nodes.push_back(add);
    }
    // * c or / c (anything else between the scores and their MatMul: no attention)
    if (!private_value(graph, ix, cur)) continue;
    if (const auto factor = scalar_factor(graph, ix, cur)) {
      scale = factor->value;
      cur = factor->operand;
      nodes.push_back(factor->node);
    }
    const int qk = producer_op(graph, ix, cur, "MatMul");
    if (qk < 0 || !private_value(graph, ix, cur)) continue;
    nodes.push_back(qk);
    const int pv = sole_consumer_op(graph, ix, softmax.outputs[0], "MatMul");
    if (pv < 0 || graph.nodes[size_t(pv)].input(0) != softmax.outputs[0]) continue;
    ValueId q = graph.nodes[size_t(qk)].input(0), kt = graph.nodes[size_t(qk)].input(1);
    // PyTorch's attention export scales Q (or Q and K) before their product: one more factor.
    for (ValueId* operand : {&q, &kt})
      if (const auto factor = scalar_factor(graph, ix, *operand); factor && private_value(graph, ix, *operand)) {
        scale *= factor->value;
        nodes.push_back(factor->node);
        *operand = factor->operand;
      }
    const ValueId v = graph.nodes[size_t(pv)].input(1);
    bool ranks_ok = true;
    for (ValueId id : {q, kt, v})
      ranks_ok &= shapes[size_t(id)].rank() != 1 && graph.value(id).dtype == DType::f32;  // 0: unknown
    if (!ranks_ok) continue;
    ValueId k = kt;
    int64_t k_transposed = 1;
    if (const int t = producer_op(graph, ix, kt, "Transpose");
        t >= 0 && private_value(graph, ix, kt) && swaps_last_two(graph.nodes[size_t(t)])) {
      k = graph.nodes[size_t(t)].input(0);
      k_transposed = 0;
      nodes.push_back(t);
    }
    for (int n : nodes) ix.taken[size_t(n)] = true;
    Node& out = graph.nodes[size_t(pv)];
    ix.taken[size_t(pv)] = false;
    const ValueId y = out.outputs[0];
    out = Node{kAttention, out.name, "", {q, k, v}, {y}, {}};
    if (mask != kNoValue) out.inputs.push_back(mask);
    out.attrs.set("scale", float(scale));
    out.attrs.set("k_transposed", k_transposed);
  }
  erase_marked_nodes(graph, ix.taken);
  return graph;
}

}  // namespace vx

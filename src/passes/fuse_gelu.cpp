#include "passes/fuse_gelu.h"

#include <cmath>

#include "ops/fused_ops.h"
#include "ops/shape_fn.h"
#include "passes/fuse_pattern_util.h"

namespace vx {

namespace {

using namespace pattern;

// From `a` = 1 + f(x): the node that computes 0.5 * x * a, and the other nodes of that tail.
// Returns the final node's index or -1.
int match_tail(const Graph& g, const Index& ix, ValueId a, ValueId x, std::vector<int>& nodes) {
  const int m1 = sole_consumer_op(g, ix, a, "Mul");
  if (m1 < 0) return -1;
  const Node& mul1 = g.nodes[size_t(m1)];
  const ValueId o = other_input(mul1, a);
  if (o == x || near(scalar_constant(g, o), 0.5)) {  // (x * a) * 0.5  or  (a * 0.5) * x
    const int m2 = sole_consumer_op(g, ix, mul1.outputs[0], "Mul");
    if (m2 < 0) return -1;
    const ValueId o2 = other_input(g.nodes[size_t(m2)], mul1.outputs[0]);
    if (!(o == x ? near(scalar_constant(g, o2), 0.5) : o2 == x)) return -1;
    nodes.push_back(m1);
    return m2;
  }
  const int h = producer_op(g, ix, o, "Mul");  // (x * 0.5) * a
  if (h < 0 || !has_single_private_consumer(g, ix.consumers, o)) return -1;
  if (!near(scalar_constant(g, other_input(g.nodes[size_t(h)], x)), 0.5)) return -1;
  nodes.push_back(h);
  return m1;
}

// The Add(f, 1) reading `f`, or -1.
int add_one(const Graph& g, const Index& ix, ValueId f) {
  const int add = sole_consumer_op(g, ix, f, "Add");
  if (add < 0 || !near(scalar_constant(g, other_input(g.nodes[size_t(add)], f)), 1.0)) return -1;
  return add;
}

// Erf(x / sqrt 2) at node e: x, or kNoValue.
ValueId erf_argument(const Graph& g, const Index& ix, const Node& erf, std::vector<int>& nodes) {
  const ValueId t = erf.input(0);
  if (!has_single_private_consumer(g, ix.consumers, t)) return kNoValue;
  if (const int d = producer_op(g, ix, t, "Div"); d >= 0) {
    const Node& div = g.nodes[size_t(d)];
    if (!near(scalar_constant(g, div.input(1)), std::sqrt(2.0))) return kNoValue;
    nodes.push_back(d);
    return div.input(0);
  }
  if (const int m = producer_op(g, ix, t, "Mul"); m >= 0) {
    const Node& mul = g.nodes[size_t(m)];
    for (int i = 0; i < 2; ++i)
      if (near(scalar_constant(g, mul.input(size_t(i))), 1.0 / std::sqrt(2.0))) {
        nodes.push_back(m);
        return mul.input(size_t(1 - i));
      }
  }
  return kNoValue;
}

// Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)): x, or kNoValue.
ValueId tanh_argument(const Graph& g, const Index& ix, const Node& tanh, std::vector<int>& nodes) {
  const ValueId u = tanh.input(0);
  const int m = producer_op(g, ix, u, "Mul");
  if (m < 0 || !has_single_private_consumer(g, ix.consumers, u)) return kNoValue;
  const Node& mul = g.nodes[size_t(m)];
  ValueId w = kNoValue;
  for (int i = 0; i < 2; ++i)
    if (near(scalar_constant(g, mul.input(size_t(i))), std::sqrt(2.0 / M_PI))) w = mul.input(size_t(1 - i));
  const int a = producer_op(g, ix, w, "Add");
  if (a < 0 || !has_single_private_consumer(g, ix.consumers, w)) return kNoValue;
  const Node& add = g.nodes[size_t(a)];
  for (int i = 0; i < 2; ++i) {
    const ValueId x = add.input(size_t(i)), p3 = add.input(size_t(1 - i));
    const int c = producer_op(g, ix, p3, "Mul");
    if (c < 0 || !has_single_private_consumer(g, ix.consumers, p3)) continue;
    const Node& coef = g.nodes[size_t(c)];
    for (int j = 0; j < 2; ++j) {
      if (!near(scalar_constant(g, coef.input(size_t(j))), 0.044715)) continue;
      const ValueId cube = coef.input(size_t(1 - j));
      const int pw = producer_op(g, ix, cube, "Pow");
      if (pw < 0 || !has_single_private_consumer(g, ix.consumers, cube)) continue;
      const Node& pow = g.nodes[size_t(pw)];
      if (pow.input(0) != x || !near(scalar_constant(g, pow.input(1)), 3.0)) continue;
      nodes.insert(nodes.end(), {m, a, c, pw});
      return x;
    }
  }
  return kNoValue;
}

}  // namespace

Graph fuse_gelu(Graph graph) {
  Index ix(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& n = graph.nodes[i];
    const bool erf = is_op(n, "Erf"), tanh = is_op(n, "Tanh");
    if ((!erf && !tanh) || ix.taken[i] || n.outputs.size() != 1) continue;
    std::vector<int> nodes = {int(i)};
    const ValueId x = erf ? erf_argument(graph, ix, n, nodes) : tanh_argument(graph, ix, n, nodes);
    if (x == kNoValue || graph.value(x).dtype != DType::f32) continue;
    const int add = add_one(graph, ix, n.outputs[0]);
    if (add < 0) continue;
    nodes.push_back(add);
    const int last = match_tail(graph, ix, graph.nodes[size_t(add)].outputs[0], x, nodes);
    if (last < 0) continue;
    for (int k : nodes) ix.taken[size_t(k)] = true;
    Node& out = graph.nodes[size_t(last)];
    out.op = kGelu;
    out.domain.clear();
    out.inputs = {x};
    out.attrs = Attributes();
    out.attrs.set("approximate", std::string(erf ? "none" : "tanh"));
    // `last` stays (now the vx.Gelu); everything else of the pattern goes.
  }
  erase_marked_nodes(graph, ix.taken);
  return graph;
}

}  // namespace vx

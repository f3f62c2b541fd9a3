#include "passes/fuse_hard_swish.h"

#include "passes/fuse_pattern_util.h"

namespace vx {
namespace {

using namespace pattern;

constexpr double kExact = 1e-6;

// Clip(v, 0, 6) with constant bounds, by inputs or (before opset 11) attributes.
bool is_relu6(const Graph& g, const Node& clip) {
  if (clip.inputs.size() >= 2) {
    const std::optional<double> low = scalar_constant(g, clip.input(1));
    return low && *low == 0.0 && near(scalar_constant(g, clip.input(2)), 6.0, kExact);
  }
  return clip.attrs.get_float("min", -1.0f) == 0.0f && clip.attrs.get_float("max", 0.0f) == 6.0f;
}

// The node dividing `v` by 6 (Div by 6 or Mul by 1/6) when it alone reads v, else -1.
int divide_by_six(const Graph& g, const Index& ix, ValueId v) {
  if (const int d = sole_consumer_op(g, ix, v, "Div"); d >= 0) {
    const Node& div = g.nodes[size_t(d)];
    return div.input(0) == v && near(scalar_constant(g, div.input(1)), 6.0, kExact) ? d : -1;
  }
  if (const int m = sole_consumer_op(g, ix, v, "Mul"); m >= 0)
    return near(scalar_constant(g, other_input(g.nodes[size_t(m)], v)), 1.0 / 6.0, kExact) ? m : -1;
  return -1;
}

// The Mul(x, v) that alone reads v, else -1.
int times_x(const Graph& g, const Index& ix, ValueId v, ValueId x) {
  const int m = sole_consumer_op(g, ix, v, "Mul");
  return m >= 0 && other_input(g.nodes[size_t(m)], v) == x ? m : -1;
}

// From the Add(x, 3) at `add`: the pattern's last node, with the others appended to `nodes`; or -1.
int match_from_add(const Graph& g, const Index& ix, size_t add, ValueId x, std::vector<int>& nodes) {
  const int c = sole_consumer_op(g, ix, g.nodes[add].outputs[0], "Clip");
  if (c < 0 || !is_relu6(g, g.nodes[size_t(c)])) return -1;
  const ValueId clipped = g.nodes[size_t(c)].outputs[0];
  nodes.push_back(c);
  if (const int m = times_x(g, ix, clipped, x); m >= 0) {  // (x * clip) / 6
    const int d = divide_by_six(g, ix, g.nodes[size_t(m)].outputs[0]);
    if (d < 0) return -1;
    nodes.push_back(m);
    return d;
  }
  const int d = divide_by_six(g, ix, clipped);  // x * (clip / 6)
  if (d < 0) return -1;
  nodes.push_back(d);
  return times_x(g, ix, g.nodes[size_t(d)].outputs[0], x);
}

}  // namespace

Graph fuse_hard_swish(Graph graph) {
  Index ix(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& n = graph.nodes[i];
    if (ix.taken[i] || n.outputs.size() != 1 || n.inputs.size() < 1) continue;
    std::vector<int> nodes = {int(i)};
    ValueId x = kNoValue;
    int last = -1;
    if (is_op(n, "Add") && n.inputs.size() == 2) {
      for (int k = 0; k < 2 && last < 0; ++k) {
        if (!near(scalar_constant(graph, n.input(size_t(k))), 3.0, kExact)) continue;
        x = n.input(size_t(1 - k));
        nodes.resize(1);
        last = match_from_add(graph, ix, i, x, nodes);
      }
    } else if (is_op(n, "HardSigmoid")) {
      x = n.input(0);
      if (std::abs(n.attrs.get_float("alpha", 0.2f) - 1.0 / 6.0) <= kExact &&
          std::abs(n.attrs.get_float("beta", 0.5f) - 0.5) <= kExact)
        last = times_x(graph, ix, n.outputs[0], x);
    }
    if (last < 0 || x == kNoValue || graph.value(x).dtype != DType::f32) continue;
    for (int k : nodes) ix.taken[size_t(k)] = true;
    Node& out = graph.nodes[size_t(last)];  // stays, as the HardSwish; the rest of the pattern goes
    out.op = "HardSwish";
    out.domain.clear();
    out.inputs = {x};
    out.attrs = Attributes();
  }
  erase_marked_nodes(graph, ix.taken);
  return graph;
}

}  // namespace vx

#include "passes/fuse_layer_norm.h"

#include <algorithm>

#include "ops/fused_ops.h"
#include "ops/shape_fn.h"
#include "passes/fuse_pattern_util.h"

namespace vx {

namespace {

using namespace pattern;

// Whether the ReduceMean reduces exactly the last axis of `x` and keeps it.
bool reduces_last_axis(const Graph& g, const Node& r, int64_t rank) {
  if (r.attrs.get_int("keepdims", 1) != 1) return false;
  const std::optional<std::vector<int64_t>> axes = axes_of(r, g, 1);
  if (!axes || axes->size() != 1) return false;
  return (*axes)[0] == -1 || (rank > 0 && (*axes)[0] == rank - 1);
}

// A constant float vector of `c` values (c < 0: any length), or kNoValue.
bool channel_constant(const Graph& g, ValueId id, int64_t c) {
  if (id == kNoValue || !g.value(id).is_constant()) return false;
  const Tensor& t = g.value(id).constant;
  // With C unknown, a one-value constant could be a broadcast scalar, which vx.LayerNorm does not take.
  return t.dtype() == DType::f32 && t.rank() == 1 && (c < 0 ? t.numel() > 1 : t.numel() == c);
}

}  // namespace

Graph fuse_layer_norm(Graph graph) {
  Index ix(graph);
  const std::vector<Shape> shapes = inferred_shapes(graph);
  int fused = 0;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Node& n = graph.nodes[i];
    if (ix.taken[i]) continue;
    if (is_op(n, "LayerNormalization")) {
      bool extra_outputs = false;
      for (size_t o = 1; o < n.outputs.size(); ++o)
        extra_outputs |= n.outputs[o] != kNoValue &&
                         (!ix.consumers[size_t(n.outputs[o])].empty() || is_graph_output(graph, n.outputs[o]));
      const int64_t rank = int64_t(shapes[size_t(n.input(0))].rank());
      const int64_t axis = n.attrs.get_int("axis", -1);
      if (extra_outputs || !(axis == -1 || (rank > 0 && axis == rank - 1))) continue;
      if (graph.value(n.input(0)).dtype != DType::f32) continue;
      const float eps = n.attrs.get_float("epsilon", 1e-5f);
      n.op = kLayerNorm;
      n.outputs.resize(1);
      n.inputs.resize(3, kNoValue);
      n.attrs = Attributes();
      n.attrs.set("epsilon", eps);
      continue;
    }
    if (!is_op(n, "ReduceMean") || n.outputs.size() != 1) continue;
    const ValueId x = n.input(0), mean = n.outputs[0];
    const int64_t rank = int64_t(shapes[size_t(x)].rank());
    if (graph.value(x).dtype != DType::f32 || !reduces_last_axis(graph, n, rank)) continue;
    const int sub = sole_consumer_op(graph, ix, mean, "Sub");
    if (sub < 0 || graph.nodes[size_t(sub)].input(0) != x || graph.nodes[size_t(sub)].input(1) != mean) continue;
    const ValueId d = graph.nodes[size_t(sub)].outputs[0];
    // d is read by the square and by the division, nothing else.
    const auto& readers = ix.consumers[size_t(d)];
    if (is_graph_output(graph, d)) continue;
    int square = -1, div = -1;
    for (int r : readers) {
      const Node& rn = graph.nodes[size_t(r)];
      if (ix.taken[size_t(r)]) continue;
      if (is_op(rn, "Pow") && rn.input(0) == d && near(scalar_constant(graph, rn.input(1)), 2.0)) square = r;
      else if (is_op(rn, "Mul") && rn.input(0) == d && rn.input(1) == d) square = r;
      else if (is_op(rn, "Div") && rn.input(0) == d) div = r;
    }
    const bool mul_square = square >= 0 && graph.nodes[size_t(square)].op == "Mul";
    if (square < 0 || div < 0 || readers.size() != (mul_square ? 3u : 2u)) continue;
    if (mul_square && std::count(readers.begin(), readers.end(), square) != 2) continue;
    const int var = sole_consumer_op(graph, ix, graph.nodes[size_t(square)].outputs[0], "ReduceMean");
    if (var < 0 || !reduces_last_axis(graph, graph.nodes[size_t(var)], rank)) continue;
    const ValueId var_out = graph.nodes[size_t(var)].outputs[0];
    const int add_eps = sole_consumer_op(graph, ix, var_out, "Add");
    if (add_eps < 0) continue;
    const auto eps = scalar_constant(graph, other_input(graph.nodes[size_t(add_eps)], var_out));
    if (!eps || *eps < 0) continue;
    const int sqrt = sole_consumer_op(graph, ix, graph.nodes[size_t(add_eps)].outputs[0], "Sqrt");
    if (sqrt < 0 || graph.nodes[size_t(div)].input(1) != graph.nodes[size_t(sqrt)].outputs[0]) continue;
    if (!has_single_private_consumer(graph, ix.consumers, graph.nodes[size_t(sqrt)].outputs[0])) continue;
    std::vector<int> nodes = {int(i), sub, square, var, add_eps, sqrt, div};
    int last = div;
    ValueId gamma = kNoValue, beta = kNoValue;
    const int64_t c = rank > 0 ? shapes[size_t(x)].dims().back() : -1;  // -1 also when unknown
    if (const int mul = sole_consumer_op(graph, ix, graph.nodes[size_t(div)].outputs[0], "Mul"); mul >= 0) {
      const ValueId o = other_input(graph.nodes[size_t(mul)], graph.nodes[size_t(div)].outputs[0]);
      if (channel_constant(graph, o, c)) {
        gamma = o;
        nodes.push_back(mul);
        last = mul;
        if (const int add = sole_consumer_op(graph, ix, graph.nodes[size_t(mul)].outputs[0], "Add"); add >= 0) {
          const ValueId b = other_input(graph.nodes[size_t(add)], graph.nodes[size_t(mul)].outputs[0]);
          if (channel_constant(graph, b, graph.value(gamma).constant.numel())) {
            beta = b;
            nodes.push_back(add);
            last = add;
          }
        }
      }
    }
    if (gamma == kNoValue) {
      if (c <= 0) continue;  // the scale's length must be known to write ones
      Tensor ones(DType::f32, Shape({c}));
      for (int64_t k = 0; k < c; ++k) ones.data<float>()[k] = 1.0f;
      gamma = graph.add_constant(cat(n.name, "/vx_layer_norm_ones_", fused), ones);
    }
    for (int k : nodes)
      if (k != last) ix.taken[size_t(k)] = true;
    Node& out = graph.nodes[size_t(last)];
    const ValueId y = out.outputs[0];
    out = Node{kLayerNorm, out.name, "", {x, gamma, beta}, {y}, {}};
    out.attrs.set("epsilon", float(*eps));
    ++fused;
  }
  erase_marked_nodes(graph, ix.taken);
  return graph;
}

}  // namespace vx

#include "passes/fuse_matmul_layer_norm.h"

#include "ops/fused_ops.h"
#include "passes/fuse_pattern_util.h"

namespace vx {

namespace {

using namespace pattern;

// Whether `s` is known, of rank >= 1, with last extent n.
bool last_extent_is(const Shape& s, int64_t n) { return s.is_known() && s.rank() > 0 && s[s.rank() - 1] == n; }

// Whether `id` is an f32 vector of n values (known shape).
bool is_vector_of(const Graph& g, const std::vector<Shape>& shapes, ValueId id, int64_t n) {
  return id != kNoValue && g.value(id).dtype == DType::f32 && shapes[size_t(id)].is_known() &&
         shapes[size_t(id)] == Shape{n};
}

// The node (index) reading `v` alone, as its input 0, when `v` is no graph output and the node is
// not yet taken; else -1.
int sole_data_reader(const Graph& g, const Index& ix, ValueId v) {
  if (!has_single_private_consumer(g, ix.consumers, v)) return -1;
  const int c = ix.consumers[size_t(v)][0];
  if (ix.taken[size_t(c)] || g.nodes[size_t(c)].input(0) != v) return -1;
  return c;
}

}  // namespace

Graph fuse_matmul_layer_norm(Graph graph) {
  Index ix(graph);
  const std::vector<Shape> shapes = inferred_shapes(graph);
  std::vector<std::vector<Node>> run_before(graph.nodes.size());  // new nodes, to run just before node i
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& mm = graph.nodes[i];
    if (ix.taken[i] || mm.op != kFusedMatMul || mm.outputs.size() != 1 || mm.inputs.size() < 2 || mm.inputs.size() > 4)
      continue;
    const ValueId product = mm.outputs[0];
    if (product == kNoValue || graph.value(product).dtype != DType::f32) continue;
    const Shape& y = shapes[size_t(product)];
    if (!y.is_known() || y.rank() == 0) continue;
    const int64_t n = y[y.rank() - 1];

    // The LayerNorm, maybe behind Reshapes that keep the rows (the last extent).
    std::vector<int> reshapes;
    ValueId v = product;
    int norm = -1;
    for (int c; (c = sole_data_reader(graph, ix, v)) >= 0;) {
      const Node& node = graph.nodes[size_t(c)];
      if (node.outputs.size() != 1) break;
      if (node.op == kLayerNorm && node.domain.empty()) {
        norm = c;
        break;
      }
      if (!is_op(node, "Reshape") || !last_extent_is(shapes[size_t(node.outputs[0])], n)) break;
      reshapes.push_back(c);
      v = node.outputs[0];
    }
    if (norm < 0) continue;
    const Node& ln = graph.nodes[size_t(norm)];
    const ValueId scale = ln.input(1), ln_bias = ln.input(2), out = ln.outputs[0];
    if (ln.inputs.size() > 3 || !is_vector_of(graph, shapes, scale, n)) continue;
    if (ln_bias != kNoValue && !is_vector_of(graph, shapes, ln_bias, n)) continue;

    // The fused node and the Reshapes take the LayerNorm's place: its Scale and Bias may be
    // computed after the product. The end of the chain writes the LayerNorm's output.
    Node fused = mm;
    fused.inputs.resize(4, kNoValue);
    fused.inputs.push_back(scale);
    fused.inputs.push_back(ln_bias);
    fused.attrs.set("layer_norm_epsilon", ln.attrs.get_float("epsilon", 1e-5f));
    std::vector<Node>& nodes = run_before[size_t(norm)];
    nodes.push_back(std::move(fused));
    for (int r : reshapes) nodes.push_back(graph.nodes[size_t(r)]);
    const ValueId end = nodes.back().outputs[0];
    nodes.back().outputs[0] = out;
    Value& o = graph.value(out);
    o.dtype = graph.value(end).dtype;
    if (!o.shape.is_known() || o.shape.rank() == 0) {
      o.shape = shapes[size_t(end)];
      o.dim_params = graph.value(end).dim_params;
    }
    ix.taken[i] = true;
    ix.taken[size_t(norm)] = true;
    for (int r : reshapes) ix.taken[size_t(r)] = true;
  }
  splice_nodes(graph, ix, run_before);
  return graph;
}

}  // namespace vx

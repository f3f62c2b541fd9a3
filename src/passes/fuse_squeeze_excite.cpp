#include "passes/fuse_squeeze_excite.h"

#include <algorithm>

#include "ops/fused_ops.h"
#include "ops/post_ops.h"
#include "passes/fuse_pattern_util.h"

namespace vx {
namespace {

using namespace pattern;

bool all_equal(const std::vector<int64_t>& v, int64_t want) {
  return std::all_of(v.begin(), v.end(), [&](int64_t e) { return e == want; });
}

// A vx.FusedConv that is a plain 1x1 convolution (any ReLU and post-ops), not yet taken.
int pointwise_conv(const Graph& g, const Index& ix, ValueId y) {
  if (y == kNoValue) return -1;
  const int p = ix.producers[size_t(y)];
  if (p < 0 || ix.taken[size_t(p)]) return -1;
  const Node& n = g.nodes[size_t(p)];
  if (n.op != kFusedConv || n.outputs.size() != 1 || n.inputs.size() < 2 || n.input(1) == kNoValue) return -1;
  if (n.attrs.get_int("group", 1) != 1 || n.attrs.get_int("pool", 0) != 0 || n.attrs.get_int("upsample_concat", 0) != 0)
    return -1;
  if (!all_equal(n.attrs.get_ints("kernel_shape"), 1) || !all_equal(n.attrs.get_ints("strides"), 1) ||
      !all_equal(n.attrs.get_ints("dilations"), 1) || !all_equal(n.attrs.get_ints("pads"), 0))
    return -1;
  return p;
}

}  // namespace

Graph fuse_squeeze_excite(Graph graph) {
  Index ix(graph);
  const std::vector<Shape> shapes = inferred_shapes(graph);
  auto shape = [&](ValueId v) -> const Shape& { return shapes[size_t(v)]; };
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& mul = graph.nodes[i];
    if (!is_op(mul, "Mul") || ix.taken[i] || mul.inputs.size() != 2 || mul.outputs.size() != 1) continue;
    for (int side : {1, 0}) {
      const ValueId s = mul.inputs[size_t(side)], x = mul.inputs[size_t(1 - side)];
      const int excite = pointwise_conv(graph, ix, s);
      if (excite < 0 || !read_only_by(graph, ix, s, int(i)) || s == x) continue;
      const ValueId h = graph.nodes[size_t(excite)].inputs[0];
      const int squeeze = pointwise_conv(graph, ix, h);
      if (squeeze < 0 || !read_only_by(graph, ix, h, excite)) continue;
      const Node& sq = graph.nodes[size_t(squeeze)];
      if (!read_post_ops(sq.attrs, sq.name).empty()) continue;
      const ValueId p = sq.inputs[0];
      const int pool = producer_op(graph, ix, p, "GlobalAveragePool");
      if (pool < 0 || graph.nodes[size_t(pool)].input(0) != x) continue;
      const Shape& xs = shape(x);
      const Shape& ss = shape(s);
      if (!xs.is_known() || xs.rank() < 3 || !ss.is_known() || ss.rank() != xs.rank() || ss[0] != xs[0] ||
          ss[1] != xs[1] || ss.numel() != xs[0] * xs[1] || !(shape(mul.outputs[0]) == xs))
        continue;
      if (graph.value(x).dtype != DType::f32 || graph.value(s).dtype != DType::f32) continue;

      const Node& ex = graph.nodes[size_t(excite)];
      Node fused;
      fused.op = kExcite;
      fused.name = mul.name;
      fused.inputs = {x, p, sq.input(1), sq.input(2), ex.input(1), ex.input(2)};
      fused.attrs.set("squeeze_relu", sq.attrs.get_int("relu", 0));
      fused.attrs.set("relu", ex.attrs.get_int("relu", 0));
      write_post_ops(fused.attrs, read_post_ops(ex.attrs, ex.name));
      size_t last = i;
      // A residual Add of the scaled X (PaddleOCR's RSE layers: X + X * E).
      if (const int add = sole_consumer_op(graph, ix, mul.outputs[0], "Add"); add >= 0) {
        const Node& a = graph.nodes[size_t(add)];
        const ValueId r = a.inputs.size() == 2 ? a.inputs[a.inputs[0] == mul.outputs[0] ? 1 : 0] : kNoValue;
        if (r != kNoValue && r != mul.outputs[0] && shape(r) == xs && graph.value(r).dtype == DType::f32 &&
            shape(a.outputs[0]) == xs) {
          fused.inputs.push_back(r);
          last = size_t(add);
        }
      }
      fused.outputs = {graph.nodes[last].outputs[0]};
      ix.taken[size_t(squeeze)] = ix.taken[size_t(excite)] = true;
      if (last != i) ix.taken[i] = true;
      graph.nodes[last] = std::move(fused);  // where the Mul (or Add) was: every input is ready
      break;
    }
  }
  erase_marked_nodes(graph, ix.taken);
  return graph;
}

}  // namespace vx

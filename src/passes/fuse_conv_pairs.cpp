#include "passes/fuse_conv_pairs.h"

#include <algorithm>
#include <string>

#include "ops/fused_ops.h"
#include "passes/fuse_pattern_util.h"

namespace vx {

namespace {

using namespace pattern;

bool all_equal(const std::vector<int64_t>& v, int64_t value) {
  return std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == value; });
}

// A vx.FusedConv without pool or upsample_concat, of group 1, reading X and constant-or-not W of
// known rank >= 3 (W's spatial extents in `kernel`).
bool plain_conv(const Graph& g, const Node& n, std::vector<int64_t>& kernel) {
  if (n.op != kFusedConv || n.outputs.size() != 1 || n.inputs.size() < 2 || n.input(0) == kNoValue ||
      n.input(1) == kNoValue)
    return false;
  if (n.attrs.get_int("pool", 0) != 0 || n.attrs.get_int("upsample_concat", 0) != 0 || n.attrs.get_int("group", 1) != 1)
    return false;
  const Shape& w = g.value(n.input(1)).shape;
  if (!w.is_known() || w.rank() < 3) return false;
  kernel.assign(w.begin() + 2, w.end());
  return true;
}

// Whether `n` (a plain_conv with a 1x1 kernel) reads its input pixel for pixel: stride 1, no padding.
bool pixelwise(const Node& n) {
  const std::string auto_pad = n.attrs.get_string("auto_pad", "NOTSET");
  return (auto_pad == "NOTSET" || auto_pad == "VALID") && all_equal(n.attrs.get_ints("strides"), 1) &&
         all_equal(n.attrs.get_ints("pads"), 0);
}

}  // namespace

Graph fuse_conv_pairs(Graph graph) {
  Index ix(graph);
  const std::vector<Shape> shapes = inferred_shapes(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& second = graph.nodes[i];
    std::vector<int64_t> k2, k1;
    if (ix.taken[i] || !plain_conv(graph, second, k2)) continue;
    if (all_equal(k2, 1) && pixelwise(second)) continue;  // a plain 1x1: no im2col matrix to write
    const ValueId mid = second.input(0);
    const int p = ix.producers[size_t(mid)];
    if (p < 0 || ix.taken[size_t(p)] || size_t(p) == i) continue;
    const Node& first = graph.nodes[size_t(p)];
    if (!plain_conv(graph, first, k1) || !all_equal(k1, 1) || !pixelwise(first) || first.attrs.has("post_ops")) continue;
    if (!read_only_by(graph, ix, mid, int(i)) || second.input(1) == mid) continue;
    if (second.inputs.size() > 2 && second.input(2) == mid) continue;
    const Shape& m = shapes[size_t(mid)];
    if (graph.value(mid).dtype != DType::f32 || !m.is_known() || m.rank() != k1.size() + 2) continue;
    Node pair = second;
    pair.op = kConvPair;
    pair.inputs = {first.input(0), first.input(1), first.inputs.size() > 2 ? first.input(2) : kNoValue, second.input(1),
                   second.inputs.size() > 2 ? second.input(2) : kNoValue};
    pair.attrs.set("first_relu", first.attrs.get_int("relu", 0));
    ix.taken[size_t(p)] = true;
    graph.nodes[i] = std::move(pair);
  }
  erase_marked_nodes(graph, ix.taken);
  return graph;
}

}  // namespace vx

#include "passes/fold_attention_transposes.h"

#include <algorithm>
#include <array>
#include <optional>

#include "ops/fused_ops.h"
#include "ops/shape_rules.h"
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
  if (!read_only_by(g, ix, id, reader)) return -1;
  const int t = producer_op(g, ix, id, "Transpose");
  return t >= 0 && swaps_heads(g.nodes[size_t(t)]) ? t : -1;
}

// The axes of extent other than 1.
std::vector<size_t> real_axes(const Shape& s) {
  std::vector<size_t> axes;
  for (size_t i = 0; i < s.rank(); ++i)
    if (s[i] != 1) axes.push_back(i);
  return axes;
}

// The extents of the axes other than 1, in order.
std::vector<int64_t> real_extents(const Shape& s) {
  std::vector<int64_t> d;
  for (size_t i = 0; i < s.rank(); ++i)
    if (s[i] != 1) d.push_back(s[i]);
  return d;
}

// Whether a Transpose's permutation, unit axes aside, swaps the two real axes before the last real
// one of its input `in` and keeps the others in place: PyTorch's attention exports [S, H, D] ->
// [H, S, D] -> [1, H, S, D] and [1, H, S, D] -> [S, 1, H, D]. Its output's real extents are returned
// through `out`.
bool swaps_heads_of_real_axes(const Node& t, const Shape& in, std::vector<int64_t>* out) {
  if (!in.is_known()) return false;
  const std::vector<int64_t> perm = transpose_perm(t.attrs.get_ints("perm"), in.rank());
  if (perm.size() != in.rank()) return false;
  const std::vector<size_t> in_real = real_axes(in);
  std::vector<size_t> order;  // per real output axis: its input axis's rank among the real ones
  out->clear();
  for (int64_t axis : perm) {
    if (axis < 0 || axis >= int64_t(in.rank())) return false;
    if (in[size_t(axis)] == 1) continue;
    order.push_back(size_t(std::find(in_real.begin(), in_real.end(), size_t(axis)) - in_real.begin()));
    out->push_back(in[size_t(axis)]);
  }
  const size_t n = order.size();
  if (n < 3) return false;
  for (size_t i = 0; i + 3 < n; ++i)
    if (order[i] != i) return false;
  return order[n - 3] == n - 2 && order[n - 2] == n - 3 && order[n - 1] == n - 1;
}

// Whether the last three axes of the attention-side shape [..., H, S, D] are real (> 1), so that
// they are the last three real axes too.
bool heads_are_real(const Shape& heads) {
  const size_t r = heads.rank();
  return r >= 3 && heads.is_known() && heads[r - 3] > 1 && heads[r - 2] > 1 && heads[r - 1] > 1;
}

// `heads` with its axes rank-3 and rank-2 swapped: [..., H, S, D] -> [..., S, H, D].
Shape interleaved(const Shape& heads) {
  std::vector<int64_t> d = heads.dims();
  std::swap(d[d.size() - 3], d[d.size() - 2]);
  return Shape(d);
}

// Q, K or V as a head Transpose of an interleaved tensor, unit axes aside, optionally followed by a
// Reshape that only adds or drops unit axes: the Transpose, the Reshape (or -1) and the interleaved
// tensor. Each is read by nothing but the next.
struct HeadsView {
  int transpose = -1, reshape = -1;
  ValueId source = kNoValue;
};
std::optional<HeadsView> heads_view(const Graph& g, const Index& ix, const std::vector<Shape>& shapes, ValueId id,
                                    int reader) {
  if (!read_only_by(g, ix, id, reader)) return std::nullopt;
  HeadsView view;
  ValueId t_out = id;
  if (const int r = producer_op(g, ix, id, "Reshape"); r >= 0) {
    view.reshape = r;
    t_out = g.nodes[size_t(r)].input(0);
    if (!read_only_by(g, ix, t_out, r)) return std::nullopt;
  }
  view.transpose = producer_op(g, ix, t_out, "Transpose");
  if (view.transpose < 0) return std::nullopt;
  const Node& t = g.nodes[size_t(view.transpose)];
  view.source = t.input(0);
  std::vector<int64_t> out;
  if (!heads_are_real(shapes[size_t(id)]) || !swaps_heads_of_real_axes(t, shapes[size_t(view.source)], &out) ||
      out != real_extents(shapes[size_t(id)]))
    return std::nullopt;
  return view;
}

}  // namespace

Graph fold_attention_transposes(Graph graph) {
  Index ix(graph);
  const std::vector<Shape> shapes = inferred_shapes(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (graph.nodes[i].op != kAttention || graph.nodes[i].inputs.size() < 3) continue;
    // Inputs: all three or none.
    if (graph.nodes[i].attrs.get_int("k_transposed", 0) == 0 &&
        graph.nodes[i].attrs.get_string("qkv_layout", "bhsd") == "bhsd") {
      std::array<int, 3> transposes{};
      std::array<std::optional<HeadsView>, 3> views;
      bool all = true, all_views = true;
      for (size_t j = 0; j < 3; ++j) {
        transposes[j] = head_transpose_for(graph, ix, graph.nodes[i].inputs[j], int(i));
        all = all && transposes[j] >= 0;
        views[j] = heads_view(graph, ix, shapes, graph.nodes[i].inputs[j], int(i));
        all_views = all_views && views[j];
      }
      if (all) {
        Node& attention = graph.nodes[i];
        for (size_t j = 0; j < 3; ++j) {
          attention.inputs[j] = graph.nodes[size_t(transposes[j])].input(0);
          ix.taken[size_t(transposes[j])] = true;  // Q, K and V may share one Transpose
        }
        attention.attrs.set("qkv_layout", std::string("bshd"));
      } else if (all_views) {
        // Each Transpose becomes a Reshape of its source to the interleaved shape (an alias on
        // every backend) read by the attention; the Reshape after it goes.
        for (size_t j = 0; j < 3; ++j) {
          const HeadsView& v = *views[j];
          const ValueId read = graph.nodes[i].inputs[j];
          Node& t = graph.nodes[size_t(v.transpose)];
          if (t.op == "Transpose") {  // not yet rewritten for another of Q, K, V
            const ValueId target = shape_constant(graph, t.name + "/interleaved", interleaved(shapes[size_t(read)]));
            t = Node{"Reshape", t.name, "", {v.source, target}, t.outputs, {}};
          }
          if (v.reshape >= 0) ix.taken[size_t(v.reshape)] = true;
          graph.nodes[i].inputs[j] = t.outputs[0];
        }
        graph.nodes[i].attrs.set("qkv_layout", std::string("bshd"));
      }
    }
    // The output.
    if (graph.nodes[i].outputs.size() != 1 || graph.nodes[i].attrs.get_string("out_layout", "bhsd") != "bhsd") continue;
    const int t = sole_consumer_op(graph, ix, graph.nodes[i].outputs[0], "Transpose");
    if (t < 0 || graph.nodes[size_t(t)].outputs.size() != 1) continue;
    if (swaps_heads(graph.nodes[size_t(t)])) {
      // The Transpose runs after the attention, so its output may take the attention's place.
      Node& attention = graph.nodes[i];
      attention.outputs[0] = graph.nodes[size_t(t)].outputs[0];
      attention.attrs.set("out_layout", std::string("bshd"));
      ix.taken[size_t(t)] = true;
      continue;
    }
    // Unit axes aside: the attention writes the interleaved order and the Transpose becomes a
    // Reshape of it to the Transpose's output shape.
    const Shape& y = shapes[size_t(graph.nodes[i].outputs[0])];
    const Shape& out = shapes[size_t(graph.nodes[size_t(t)].outputs[0])];
    std::vector<int64_t> real_out;
    if (!heads_are_real(y) || !out.is_known() || out.rank() == 0 ||
        !swaps_heads_of_real_axes(graph.nodes[size_t(t)], y, &real_out))
      continue;
    graph.nodes[i].attrs.set("out_layout", std::string("bshd"));
    Node& transpose = graph.nodes[size_t(t)];
    const ValueId target = shape_constant(graph, transpose.name + "/interleaved", out);
    transpose = Node{"Reshape", transpose.name, "", {graph.nodes[i].outputs[0], target}, transpose.outputs, {}};
  }
  erase_marked_nodes(graph, ix.taken);
  return graph;
}

}  // namespace vx

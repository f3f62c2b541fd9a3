#include "passes/fuse_attention_projection.h"

#include <string>
#include <vector>

#include "ops/fused_ops.h"
#include "passes/fuse_pattern_util.h"

namespace vx {

namespace {

using namespace pattern;

// Whether the attention's operands are of whole 16 x 16 fragments (ops/fused_ops.h's logical
// shapes: Sk and D of K, Dv of V) and the output's Dv columns divide W's K rows of N columns.
bool tensor_core_shapes(const Node& attention, const std::vector<Shape>& shapes, const Shape& w) {
  const bool bshd = attention.attrs.get_string("qkv_layout", "bhsd") == "bshd";
  const bool k_transposed = attention.attrs.get_int("k_transposed", 0) != 0;
  const Shape& k = shapes[size_t(attention.input(1))];
  const Shape& v = shapes[size_t(attention.input(2))];
  if (!k.is_known() || !v.is_known() || k.rank() < (bshd ? 3u : 2u) || v.rank() < 2) return false;
  const size_t r = k.rank();
  const int64_t sk = bshd ? k[r - 3] : k_transposed ? k[r - 1] : k[r - 2];
  const int64_t d = k_transposed ? k[r - 2] : k[r - 1];
  const int64_t dv = v[v.rank() - 1];
  return sk % 16 == 0 && d % 16 == 0 && dv % 16 == 0 && w[1] % 16 == 0 && w[0] % dv == 0;
}

}  // namespace

Graph fuse_attention_projection(Graph graph) {
  Index ix(graph);
  const std::vector<Shape> shapes = inferred_shapes(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& product = graph.nodes[i];
    if (ix.taken[i] || product.op != kFusedMatMul || product.inputs.size() < 2 || product.input(1) == kNoValue) continue;
    if (product.attrs.get_string("activation", "none") != "none" || product.input(1) == product.input(0)) continue;
    const Value& w = graph.value(product.input(1));
    if (!w.is_constant() || w.constant.rank() != 2 || w.dtype != DType::f32) continue;
    // Back from A through Reshapes, each read only by the next, to the attention.
    std::vector<int> reshapes;
    ValueId a = product.input(0);
    int reader = int(i), p = -1;
    bool chain = true;
    while (chain) {
      if (a == kNoValue || !read_only_by(graph, ix, a, reader)) chain = false;
      else if ((p = producer_op(graph, ix, a, "Reshape")) >= 0) {
        reshapes.push_back(p);
        reader = p;
        a = graph.nodes[size_t(p)].input(0);
      } else {
        break;
      }
    }
    if (!chain) continue;
    const int at = ix.producers[size_t(a)];
    if (at < 0 || ix.taken[size_t(at)] || graph.nodes[size_t(at)].op != kAttention) continue;
    const Node& attention = graph.nodes[size_t(at)];
    const Shape& a_shape = shapes[size_t(product.input(0))];
    if (!a_shape.is_known() || a_shape.rank() < 1 || !tensor_core_shapes(attention, shapes, w.constant.shape())) continue;
    if (graph.value(a).dtype != DType::f32) continue;
    Node fused = product;
    fused.op = kAttentionProjection;
    fused.inputs = {attention.input(0), attention.input(1), attention.input(2),
                    attention.inputs.size() > 3 ? attention.input(3) : kNoValue};
    for (size_t j = 1; j < 6; ++j) fused.inputs.push_back(j < product.inputs.size() ? product.input(j) : kNoValue);
    fused.attrs.erase("activation");
    for (const char* attr : {"scale", "k_transposed", "qkv_layout", "out_layout"})
      if (attention.attrs.has(attr)) fused.attrs.set(attr, attention.attrs.all().at(attr));
    fused.attrs.set("a_shape", a_shape.dims());
    ix.taken[size_t(at)] = true;
    for (int r : reshapes) ix.taken[size_t(r)] = true;
    graph.nodes[i] = std::move(fused);
  }
  erase_marked_nodes(graph, ix.taken);
  return graph;
}

}  // namespace vx

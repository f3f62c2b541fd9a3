#include "passes/fuse_matmul_int8_weights.h"

#include <algorithm>
#include <cmath>

#include "ops/fused_ops.h"
#include "passes/fuse_pattern_util.h"
#include "passes/remove_dead_nodes.h"

namespace vx {

namespace {

using namespace pattern;

struct Quantized {
  Tensor q, scales;
};

// Per-column symmetric int8 of a row-major [K, N] matrix (transposed: stored [N, K]).
Quantized quantize(const Tensor& w, bool transposed) {
  const int64_t k = transposed ? w.dim(1) : w.dim(0), n = transposed ? w.dim(0) : w.dim(1);
  const float* src = w.data<float>();
  auto at = [&](int64_t r, int64_t c) { return transposed ? src[c * k + r] : src[r * n + c]; };
  Quantized out{Tensor(DType::i8, Shape({k, n})), Tensor(DType::f32, Shape({n}))};
  std::vector<float> peak(size_t(n), 0.0f);
  for (int64_t r = 0; r < k; ++r)
    for (int64_t c = 0; c < n; ++c) peak[size_t(c)] = std::max(peak[size_t(c)], std::abs(at(r, c)));
  float* scales = out.scales.data<float>();
  for (int64_t c = 0; c < n; ++c) scales[c] = peak[size_t(c)] > 0.0f ? peak[size_t(c)] / 127.0f : 1.0f;
  int8_t* q = out.q.data<int8_t>();
  for (int64_t r = 0; r < k; ++r)
    for (int64_t c = 0; c < n; ++c)
      q[r * n + c] = int8_t(std::clamp(std::lround(at(r, c) / scales[c]), -127L, 127L));
  return out;
}

bool constant_matrix(const Graph& g, ValueId id, int64_t min_elements) {
  if (id == kNoValue || !g.value(id).is_constant()) return false;
  const Tensor& t = g.value(id).constant;
  return t.dtype() == DType::f32 && t.rank() == 2 && t.numel() >= min_elements && t.numel() > 0;
}

}  // namespace

Graph quantize_weights_int8(Graph graph, int64_t min_elements) {
  std::vector<ValueId> replaced;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Node& n = graph.nodes[i];
    const bool matmul = is_op(n, "MatMul"), fused = n.op == kFusedMatMul, gemm = is_op(n, "Gemm");
    if ((!matmul && !fused && !gemm) || n.outputs.size() != 1) continue;
    if (fused && n.input(3) != kNoValue) continue;  // vx.MatMulInt8W has no residual input
    if (graph.value(n.input(0)).dtype != DType::f32 || !constant_matrix(graph, n.input(1), min_elements)) continue;
    bool transposed = false;
    ValueId bias = fused ? n.input(2) : kNoValue;
    if (gemm) {
      if (!gemm_is_linear_layer(graph, n)) continue;
      transposed = n.attrs.get_int("transB", 0) != 0;
      bias = n.input(2);
    }
    replaced.push_back(n.input(1));
    Quantized qz = quantize(graph.value(n.input(1)).constant, transposed);
    const std::string base = graph.value(n.input(1)).name;
    const ValueId wq = graph.add_constant(base + "/int8", qz.q);
    const ValueId scales = graph.add_constant(base + "/int8_scales", qz.scales);
    Node& node = graph.nodes[i];
    const std::string activation = fused ? node.attrs.get_string("activation", "none") : "none";
    node.op = kMatMulInt8W;
    node.domain.clear();
    node.inputs = {node.input(0), wq, scales, bias};
    node.attrs = Attributes();
    node.attrs.set("activation", activation);
  }
  graph = remove_dead_nodes(std::move(graph));
  // Float weights nobody reads any more are dropped, so that the memory is really saved.
  const auto consumers = graph.consumers();
  for (ValueId id : replaced)
    if (consumers[size_t(id)].empty() && !is_graph_output(graph, id)) graph.value(id).constant = Tensor();
  return graph;
}

Graph fuse_dequantize_matmul(Graph graph) {
  Index ix(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& dq = graph.nodes[i];
    if (!is_op(dq, "DequantizeLinear") || dq.outputs.size() != 1 || is_graph_output(graph, dq.outputs[0])) continue;
    const Value& wq = graph.value(dq.input(0));
    if (!wq.is_constant() || wq.constant.dtype() != DType::i8 || wq.constant.rank() != 2) continue;
    const int64_t n = wq.constant.dim(1);
    const Value& sv = graph.value(dq.input(1));
    if (!sv.is_constant() || sv.constant.dtype() != DType::f32) continue;
    const int64_t axis = dq.attrs.get_int("axis", 1);
    const bool per_tensor = sv.constant.numel() == 1 && sv.constant.rank() <= 1;
    if (!per_tensor && !(sv.constant.rank() == 1 && sv.constant.numel() == n && (axis == 1 || axis == -1))) continue;
    if (dq.input(2) != kNoValue) {
      const Value& zp = graph.value(dq.input(2));
      if (!zp.is_constant() || zp.constant.dtype() != DType::i8) continue;
      bool zero = true;
      for (int64_t k = 0; k < zp.constant.numel(); ++k) zero &= zp.constant.get(k) == 0.0;
      if (!zero) continue;
    }
    const auto& readers = ix.consumers[size_t(dq.outputs[0])];
    bool all_matmul_b = !readers.empty();
    for (int r : readers)
      all_matmul_b &= is_op(graph.nodes[size_t(r)], "MatMul") && graph.nodes[size_t(r)].input(1) == dq.outputs[0] &&
                      graph.nodes[size_t(r)].input(0) != dq.outputs[0] &&
                      graph.value(graph.nodes[size_t(r)].input(0)).dtype == DType::f32;
    if (!all_matmul_b) continue;
    Tensor scales(DType::f32, Shape({n}));
    for (int64_t c = 0; c < n; ++c) scales.data<float>()[c] = float(sv.constant.get(per_tensor ? 0 : c));
    const ValueId weights = dq.input(0);
    const ValueId scale_id = graph.add_constant(graph.value(weights).name + "/scales", scales);
    for (int r : readers) {
      Node& mm = graph.nodes[size_t(r)];
      mm.op = kMatMulInt8W;
      mm.inputs = {mm.input(0), weights, scale_id};
      mm.attrs = Attributes();
      mm.attrs.set("activation", std::string("none"));
    }
    ix.taken[i] = true;
  }
  erase_marked_nodes(graph, ix.taken);
  return graph;
}

}  // namespace vx

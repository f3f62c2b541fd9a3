#include "passes/gemm_as_fused_matmul.h"

#include "ops/fused_ops.h"
#include "passes/fuse_pattern_util.h"

namespace vx {

namespace {

using namespace pattern;

// The rank-2 f32 tensor `b` transposed: [N, K] -> [K, N].
Tensor transposed(const Tensor& b) {
  const int64_t n = b.dim(0), k = b.dim(1);
  Tensor t(DType::f32, Shape{k, n});
  const float* in = b.data<float>();
  float* out = t.data<float>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) out[j * n + i] = in[i * k + j];
  return t;
}

}  // namespace

Graph gemm_as_fused_matmul(Graph graph) {
  const std::vector<Shape> shapes = inferred_shapes(graph);
  for (Node& gemm : graph.nodes) {
    if (!is_op(gemm, "Gemm") || gemm.outputs.size() != 1 || gemm.inputs.size() < 2 || !gemm_is_linear_layer(graph, gemm))
      continue;
    const ValueId a = gemm.input(0), b = gemm.input(1), c = gemm.input(2);
    if (graph.value(a).dtype != DType::f32 || shapes[size_t(a)].rank() != 2 || graph.value(b).constant.dtype() != DType::f32)
      continue;
    const bool trans_b = gemm.attrs.get_int("transB", 0) != 0;
    // A new constant rather than the old one rewritten: another node may read B as it is.
    const ValueId weights =
        trans_b ? graph.add_constant(gemm.name + "/b_transposed", transposed(graph.value(b).constant)) : b;
    Node fused{kFusedMatMul, gemm.name, "", {a, weights}, gemm.outputs, {}};
    if (c != kNoValue) fused.inputs.push_back(c);
    fused.attrs.set("activation", std::string("none"));
    gemm = std::move(fused);
  }
  return graph;
}

}  // namespace vx

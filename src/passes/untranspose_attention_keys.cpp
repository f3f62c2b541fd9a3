#include "passes/untranspose_attention_keys.h"

#include <algorithm>

#include "ops/fused_ops.h"

namespace vx {

Graph untranspose_attention_keys(Graph g) {
  const std::vector<std::vector<int>> consumers = g.consumers();
  const std::vector<int> producers = g.producers();
  for (Node& attention : g.nodes) {
    if (attention.op != kAttention || attention.attrs.get_int("k_transposed", 0) == 0) continue;
    const ValueId k = attention.input(1);
    if (k == kNoValue || producers[size_t(k)] < 0 || consumers[size_t(k)].size() != 1) continue;
    if (std::find(g.outputs.begin(), g.outputs.end(), k) != g.outputs.end()) continue;
    Node& transpose = g.nodes[size_t(producers[size_t(k)])];
    if (transpose.op != "Transpose" || !transpose.domain.empty()) continue;
    std::vector<int64_t> perm = transpose.attrs.get_ints("perm");
    const size_t rank = perm.size();
    // Only when the swap makes the innermost axis the input's innermost (a contiguous copy).
    if (rank < 2 || perm[rank - 2] != int64_t(rank) - 1) continue;
    std::swap(perm[rank - 2], perm[rank - 1]);
    transpose.attrs.set("perm", perm);
    Value& kv = g.value(k);
    if (kv.shape.rank() == rank) {
      std::vector<int64_t> dims = kv.shape.dims();
      std::swap(dims[rank - 2], dims[rank - 1]);
      kv.shape = Shape(dims);
      if (kv.dim_params.size() == rank) std::swap(kv.dim_params[rank - 2], kv.dim_params[rank - 1]);
    }
    attention.attrs.set("k_transposed", int64_t(0));
  }
  return g;
}

}  // namespace vx

#include "passes/fuse_matmul_residual.h"

#include "ops/fused_ops.h"
#include "passes/fuse_pattern_util.h"

namespace vx {

namespace {

using namespace pattern;

// Whether `r` broadcasts onto `y` (numpy rules) leaving y's shape as it is; every extent known.
bool broadcasts_onto(const Shape& r, const Shape& y) {
  if (!r.is_known() || !y.is_known() || y.rank() == 0 || r.rank() > y.rank()) return false;
  for (size_t i = 0; i < r.rank(); ++i) {
    const int64_t e = r[r.rank() - 1 - i];
    if (e != 1 && e != y[y.rank() - 1 - i]) return false;
  }
  return true;
}

}  // namespace

Graph fuse_matmul_residual(Graph graph) {
  Index ix(graph);
  const std::vector<Shape> shapes = inferred_shapes(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& add = graph.nodes[i];
    if (!is_op(add, "Add") || add.inputs.size() != 2 || add.outputs.size() != 1 || ix.taken[i]) continue;
    for (size_t side = 0; side < 2; ++side) {
      const ValueId product = add.inputs[side], residual = add.inputs[1 - side];
      if (product == residual || !has_single_private_consumer(graph, ix.consumers, product)) continue;
      const int p = ix.producers[size_t(product)];
      if (p < 0 || ix.taken[size_t(p)]) continue;
      const Node& mm = graph.nodes[size_t(p)];
      if (mm.op != kFusedMatMul || mm.outputs.size() != 1 || mm.inputs.size() > 3) continue;
      if (mm.attrs.get_string("activation", "none") != "none") continue;
      if (graph.value(product).dtype != DType::f32 || graph.value(residual).dtype != DType::f32) continue;
      if (!broadcasts_onto(shapes[size_t(residual)], shapes[size_t(product)])) continue;
      // The fused node takes the Add's place: R may be computed after the MatMul.
      Node fused{kFusedMatMul, mm.name, "", {mm.input(0), mm.input(1), mm.input(2), residual}, {add.outputs[0]}, mm.attrs};
      ix.taken[size_t(p)] = true;
      graph.nodes[i] = std::move(fused);
      break;
    }
  }
  erase_marked_nodes(graph, ix.taken);
  return graph;
}

}  // namespace vx

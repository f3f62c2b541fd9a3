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

// The value that reaches the Add's `operand` through a chain of Reshapes (none or more), each value
// read by the next node alone and no graph output; the Reshapes go to `reshapes`, the Add's side
// first. kNoValue when a value of the chain is read elsewhere.
ValueId through_reshapes(const Graph& g, const Index& ix, ValueId operand, std::vector<int>* reshapes) {
  for (ValueId v = operand;;) {
    if (!has_single_private_consumer(g, ix.consumers, v)) return kNoValue;
    const int r = producer_op(g, ix, v, "Reshape");
    if (r < 0) return v;
    reshapes->push_back(r);
    v = g.nodes[size_t(r)].input(0);
  }
}

}  // namespace

Graph fuse_matmul_residual(Graph graph) {
  Index ix(graph);
  const std::vector<Shape> shapes = inferred_shapes(graph);
  std::vector<std::vector<Node>> run_before(graph.nodes.size());  // new nodes, to run just before node i
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& add = graph.nodes[i];
    if (!is_op(add, "Add") || add.inputs.size() != 2 || add.outputs.size() != 1 || ix.taken[i]) continue;
    for (size_t side = 0; side < 2; ++side) {
      const ValueId operand = add.inputs[side], residual = add.inputs[1 - side];
      std::vector<int> reshapes;
      const ValueId product = through_reshapes(graph, ix, operand, &reshapes);
      if (operand == residual || product == kNoValue) continue;
      const int p = ix.producers[size_t(product)];
      if (p < 0 || ix.taken[size_t(p)]) continue;
      const Node& mm = graph.nodes[size_t(p)];
      if (mm.op != kFusedMatMul || mm.outputs.size() != 1 || mm.inputs.size() > 3) continue;
      if (mm.attrs.get_string("activation", "none") != "none") continue;
      if (graph.value(product).dtype != DType::f32 || graph.value(residual).dtype != DType::f32) continue;
      if (reshapes.empty()) {
        if (!broadcasts_onto(shapes[size_t(residual)], shapes[size_t(product)])) continue;
        // The fused node takes the Add's place: R may be computed after the MatMul.
        Node fused{kFusedMatMul, mm.name, "", {mm.input(0), mm.input(1), mm.input(2), residual}, {add.outputs[0]}, mm.attrs};
        ix.taken[size_t(p)] = true;
        graph.nodes[i] = std::move(fused);
        break;
      }
      // Behind Reshapes (PyTorch's out-projection, [T, E] -> [T, 1, E]): only an elementwise Add, so
      // that R reshaped to the product's shape lines up element for element.
      const Shape product_shape = shapes[size_t(product)], y_shape = shapes[size_t(add.outputs[0])];
      if (!product_shape.is_known() || !y_shape.is_known() || y_shape.rank() == 0 ||
          shapes[size_t(residual)] != y_shape || product_shape.numel() != y_shape.numel())
        continue;
      // Reshape(R), the fused node and a Reshape to the Add's shape take the Add's place: R may be
      // computed after the MatMul.
      const std::string name = mm.name;
      const ValueId r_target = shape_constant(graph, name + "/residual_shape", product_shape);
      const ValueId r_reshaped = graph.add_value(name + "/residual", DType::f32, product_shape);
      const ValueId y_target = shape_constant(graph, name + "/output_shape", y_shape);
      run_before[i].push_back(Node{"Reshape", name + "/residual_reshape", "", {residual, r_target}, {r_reshaped}, {}});
      run_before[i].push_back(
          Node{kFusedMatMul, name, "", {mm.input(0), mm.input(1), mm.input(2), r_reshaped}, {product}, mm.attrs});
      Node reshape{"Reshape", add.name, "", {product, y_target}, add.outputs, {}};
      ix.taken[size_t(p)] = true;
      for (int r : reshapes) ix.taken[size_t(r)] = true;
      graph.nodes[i] = std::move(reshape);
      break;
    }
  }
  splice_nodes(graph, ix, run_before);
  return graph;
}

}  // namespace vx

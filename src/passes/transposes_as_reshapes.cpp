#include "passes/transposes_as_reshapes.h"

#include "ops/shape_rules.h"
#include "passes/fuse_pattern_util.h"

namespace vx {

namespace {

// Whether `perm` keeps the axes of extent other than 1 in their order.
bool moves_only_unit_axes(const std::vector<int64_t>& perm, const Shape& in) {
  if (perm.size() != in.rank()) return false;
  int64_t last = -1;
  for (int64_t axis : perm) {
    if (axis < 0 || axis >= int64_t(in.rank())) return false;
    if (in[size_t(axis)] == 1) continue;
    if (axis < last) return false;
    last = axis;
  }
  return true;
}

}  // namespace

Graph transposes_as_reshapes(Graph graph) {
  // Shape inference takes an input declared [] for a scalar; binding takes it for any rank.
  for (ValueId id : graph.inputs)
    if (graph.value(id).shape.rank() == 0) return graph;
  const std::vector<Shape> shapes = pattern::inferred_shapes(graph);
  for (Node& node : graph.nodes) {
    if (!pattern::is_op(node, "Transpose") || node.inputs.size() != 1 || node.outputs.size() != 1) continue;
    const Shape& in = shapes[size_t(node.input(0))];
    const Shape& out = shapes[size_t(node.outputs[0])];
    if (in.rank() == 0 || !in.is_known() || out.rank() != in.rank() || !out.is_known()) continue;
    if (!moves_only_unit_axes(transpose_perm(node.attrs.get_ints("perm"), in.rank()), in)) continue;
    const ValueId target = pattern::shape_constant(graph, node.name + "/as_reshape", out);
    node = Node{"Reshape", node.name, "", {node.input(0), target}, node.outputs, {}};
  }
  return graph;
}

}  // namespace vx

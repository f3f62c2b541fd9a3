#include "passes/fuse_matmul_bias_act.h"

#include "ops/fused_ops.h"
#include "ops/shape_fn.h"
#include "passes/fuse_pattern_util.h"

namespace vx {

namespace {

using namespace pattern;

// The activation a node applies, or "" when it is none we fuse.
std::string activation_of(const Node& n) {
  if (is_op(n, "Relu")) return "relu";
  if (n.op == kGelu || is_op(n, "Gelu"))
    return n.attrs.get_string("approximate", "none") == "tanh" ? "gelu_tanh" : "gelu_erf";
  return "";
}

}  // namespace

Graph fuse_matmul_bias_act(Graph graph) {
  Index ix(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& mm = graph.nodes[i];
    if (!is_op(mm, "MatMul") || ix.taken[i] || mm.outputs.size() != 1) continue;
    if (graph.value(mm.input(0)).dtype != DType::f32 || graph.value(mm.input(1)).dtype != DType::f32) continue;
    const Shape& b_shape = graph.value(mm.input(1)).shape;
    const int64_t n = b_shape.rank() >= 2 ? b_shape.dims().back() : -1;
    std::vector<int> nodes = {int(i)};
    ValueId y = mm.outputs[0], bias = kNoValue;
    int last = int(i);
    if (const int add = sole_consumer_op(graph, ix, y, "Add"); add >= 0 && n > 0) {
      const ValueId b = other_input(graph.nodes[size_t(add)], y);
      const Value& bv = graph.value(b);
      if (b != kNoValue && bv.is_constant() && bv.constant.dtype() == DType::f32 && bv.constant.rank() == 1 &&
          bv.constant.numel() == n) {
        bias = b;
        y = graph.nodes[size_t(add)].outputs[0];
        nodes.push_back(add);
        last = add;
      }
    }
    std::string activation = "none";
    if (has_single_private_consumer(graph, ix.consumers, y)) {
      const int reader = ix.consumers[size_t(y)][0];
      const Node& r = graph.nodes[size_t(reader)];
      if (!ix.taken[size_t(reader)] && r.outputs.size() == 1 && !activation_of(r).empty() && r.input(0) == y) {
        activation = activation_of(r);
        y = r.outputs[0];
        nodes.push_back(reader);
        last = reader;
      }
    }
    if (nodes.size() == 1) continue;
    const ValueId a = mm.input(0), b = mm.input(1);
    for (int k : nodes)
      if (k != last) ix.taken[size_t(k)] = true;
    Node& out = graph.nodes[size_t(last)];
    out = Node{kFusedMatMul, out.name, "", {a, b}, {y}, {}};
    if (bias != kNoValue) out.inputs.push_back(bias);
    out.attrs.set("activation", activation);
  }
  erase_marked_nodes(graph, ix.taken);
  return graph;
}

}  // namespace vx

#include "passes/additive_attention_masks.h"

#include "passes/fuse_pattern_util.h"

namespace vx {

using namespace pattern;

Graph additive_attention_masks(Graph graph) {
  Index ix(graph);
  std::vector<Node> out;
  out.reserve(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Node node = graph.nodes[i];
    if (is_op(node, "Where") && node.inputs.size() == 3 && node.outputs.size() == 1 &&
        sole_consumer_op(graph, ix, node.outputs[0], "Softmax") >= 0) {
      // Which branch is the fill: the scores keep their place in the Add.
      for (size_t fill_at : {size_t(2), size_t(1)}) {
        const ValueId fill = node.input(fill_at), scores = node.input(3 - fill_at);
        const std::optional<double> f = scalar_constant(graph, fill);
        if (!f || *f > -1e30 || graph.value(fill).dtype != DType::f32 || graph.value(scores).dtype != DType::f32)
          continue;
        const ValueId zero = graph.add_constant(node.name + "/mask_zero", Tensor::from<float>(Shape{}, {0.0f}));
        const ValueId mask = graph.add_value(node.name + "/additive_mask", DType::f32, {});
        std::vector<ValueId> select = {node.input(0), zero, fill};
        if (fill_at == 1) std::swap(select[1], select[2]);
        out.push_back(Node{"Where", node.name + "/additive_mask", "", select, {mask}, {}});
        node = Node{"Add", node.name, "", {scores, mask}, node.outputs, {}};
        break;
      }
    }
    out.push_back(std::move(node));
  }
  graph.nodes = std::move(out);
  return graph;
}

}  // namespace vx

#include "passes/graph_queries.h"

#include <algorithm>

namespace vx {

bool is_graph_output(const Graph& graph, ValueId id) {
  return std::find(graph.outputs.begin(), graph.outputs.end(), id) != graph.outputs.end();
}

bool has_single_private_consumer(const Graph& graph, const std::vector<std::vector<int>>& consumers, ValueId id) {
  return id != kNoValue && consumers[size_t(id)].size() == 1 && !is_graph_output(graph, id);
}

bool is_nearest_upsample_2x(const Node& resize, const Graph& graph) {
  if (resize.op != "Resize" || resize.outputs.size() != 1) return false;
  if (resize.attrs.get_string("mode", "nearest") != "nearest") return false;
  const std::string ctm = resize.attrs.get_string("coordinate_transformation_mode", "half_pixel");
  const std::string rounding = resize.attrs.get_string("nearest_mode", "round_prefer_floor");
  // Output pixel x reads input floor-or-round(f(x)); for scale 2 and these pairs that is x / 2.
  const bool maps_to_half = (ctm == "asymmetric" && (rounding == "floor" || rounding == "round_prefer_floor")) ||
                            ((ctm == "half_pixel" || ctm == "pytorch_half_pixel") &&
                             (rounding == "round_prefer_floor" || rounding == "round_prefer_ceil"));
  if (!maps_to_half) return false;
  const bool opset10 = resize.inputs.size() == 2;
  ValueId scales = opset10 ? resize.input(1) : resize.input(2);
  ValueId sizes = opset10 ? kNoValue : resize.input(3);
  const Value& x = graph.value(resize.input(0));
  if (sizes != kNoValue && graph.value(sizes).is_constant() && graph.value(sizes).constant.numel() > 0) {
    const Tensor& s = graph.value(sizes).constant;
    if (s.numel() != 4 || x.shape.rank() != 4 || !x.shape.is_known()) return false;
    return s.get(0) == double(x.shape[0]) && s.get(1) == double(x.shape[1]) && s.get(2) == 2.0 * double(x.shape[2]) &&
           s.get(3) == 2.0 * double(x.shape[3]);
  }
  if (scales == kNoValue || !graph.value(scales).is_constant()) return false;
  const Tensor& s = graph.value(scales).constant;
  return s.numel() == 4 && s.get(0) == 1.0 && s.get(1) == 1.0 && s.get(2) == 2.0 && s.get(3) == 2.0;
}

void erase_marked_nodes(Graph& graph, const std::vector<bool>& marked) {
  std::vector<Node> kept;
  kept.reserve(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    if (!marked[i]) kept.push_back(std::move(graph.nodes[i]));
  graph.nodes = std::move(kept);
}

}  // namespace vx

#include "passes/merge_sibling_slices.h"

#include <algorithm>
#include <map>
#include <optional>

#include "ops/slice_geometry.h"
#include "passes/fuse_pattern_util.h"

namespace vx {

namespace {

struct Cut {
  int node = -1;
  int64_t axis = 0, start = 0, count = 0;
};

// The one axis a Slice of `dims` cuts (step 1, constant operands), else nullopt; a Slice that
// cuts nothing is no cut.
std::optional<Cut> cut_of(const Graph& g, const Node& n, const std::vector<int64_t>& dims) {
  std::optional<SliceOperands> o = constant_slice_operands(n, g);
  if (!o) return std::nullopt;
  std::vector<SliceAxis> geometry;
  try {
    geometry = slice_geometry(dims, std::move(*o), n.name);
  } catch (const Error&) {
    return std::nullopt;  // the node's own error, when it runs
  }
  std::optional<Cut> cut;
  for (size_t a = 0; a < geometry.size(); ++a) {
    const SliceAxis& s = geometry[a];
    if (s.step != 1) return std::nullopt;
    if (s.start == 0 && s.count == dims[a]) continue;
    if (cut || s.count == 0) return std::nullopt;  // two cut axes, or an empty piece
    cut = Cut{-1, int64_t(a), s.start, s.count};
  }
  return cut;
}

}  // namespace

Graph merge_sibling_slices(Graph graph) {
  // Shapes and dtypes as inference tells them (an imported graph's intermediate values have none).
  Graph inferred = graph;  // constants share their buffers: cheap
  try {
    infer_shapes(inferred);
  } catch (const std::exception&) {
    return graph;  // inconsistent shapes somewhere: nothing to go by
  }
  const pattern::Index ix(graph);
  const bool split_sizes_as_input = graph.opset("") >= 13;
  std::vector<bool> removed(graph.nodes.size(), false);
  const size_t values = graph.values.size();  // the sizes constants come after
  for (size_t v = 0; v < values; ++v) {
    const Shape& shape = inferred.values[v].shape;
    // Activations only: a shape computation's Slices stay as the shape folds know them.
    const DType dtype = inferred.values[v].dtype;
    if (shape.rank() == 0 || !shape.is_known() || (dtype != DType::f32 && dtype != DType::f16)) continue;
    // The value's Slices by the axis they cut.
    std::map<int64_t, std::vector<Cut>> by_axis;
    for (int c : ix.consumers[v]) {
      const Node& n = graph.nodes[size_t(c)];
      if (removed[size_t(c)] || !pattern::is_op(n, "Slice") || n.input(0) != ValueId(v) || n.outputs.size() != 1) continue;
      if (std::optional<Cut> cut = cut_of(graph, n, shape.dims())) {
        cut->node = c;
        by_axis[cut->axis].push_back(*cut);
      }
    }
    for (auto& [axis, cuts] : by_axis) {
      if (cuts.size() < 2) continue;
      std::sort(cuts.begin(), cuts.end(), [](const Cut& a, const Cut& b) { return a.start < b.start; });
      int64_t end = 0;
      bool covers = true;
      for (const Cut& c : cuts) {
        covers = covers && c.start == end;
        end = c.start + c.count;
      }
      if (!covers || end != shape[size_t(axis)]) continue;
      // The Split takes the place of the first of the Slices (each reads only the value and
      // constants, so every reader of a piece still comes after it).
      const int first = std::min_element(cuts.begin(), cuts.end(), [](const Cut& a, const Cut& b) {
                          return a.node < b.node;
                        })->node;
      Tensor sizes(DType::i64, Shape{int64_t(cuts.size())});
      std::vector<ValueId> outputs;
      for (size_t i = 0; i < cuts.size(); ++i) {
        sizes.data<int64_t>()[i] = cuts[i].count;
        outputs.push_back(graph.nodes[size_t(cuts[i].node)].outputs[0]);
        removed[size_t(cuts[i].node)] = true;
      }
      Node split{"Split", graph.nodes[size_t(first)].name + "/merged_split", "", {ValueId(v)}, outputs, {}};
      split.attrs.set("axis", axis);
      if (split_sizes_as_input) {
        split.inputs.push_back(graph.add_constant(split.name + "/sizes", std::move(sizes)));
      } else {
        split.attrs.set("split", std::vector<int64_t>(sizes.data<int64_t>(), sizes.data<int64_t>() + sizes.numel()));
      }
      graph.nodes[size_t(first)] = std::move(split);
      removed[size_t(first)] = false;
    }
  }
  erase_marked_nodes(graph, removed);
  return graph;
}

}  // namespace vx

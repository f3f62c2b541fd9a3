#include "passes/matmul_column_panels.h"

#include <optional>

#include "ops/fused_ops.h"
#include "passes/fuse_pattern_util.h"

namespace vx {

namespace {

using namespace pattern;

// A batch of many narrow panels would be a poor GEMM (a Transpose that moves the last axis to the
// front is a cut into N panels of one column): only a few panels of some width.
constexpr int64_t kMaxPanels = 8;
constexpr int64_t kMinPanelWidth = 4;

bool keeps_element_order(const Node& n) {
  return is_op(n, "Reshape") || is_op(n, "Squeeze") || is_op(n, "Unsqueeze") || is_op(n, "Flatten");
}

// The number of equal panels a Split of the product (n columns) cuts its last axis into, read from
// the pieces' inferred shapes (the Split's shape function resolves its sizes); else nullopt.
std::optional<int64_t> split_panels(const Node& split, const std::vector<Shape>& shapes, int64_t n) {
  const int64_t panels = int64_t(split.outputs.size());
  if (panels < 2 || n % panels != 0) return std::nullopt;
  for (ValueId o : split.outputs) {
    if (o == kNoValue) return std::nullopt;
    const Shape& piece = shapes[size_t(o)];
    if (!piece.is_known() || piece.rank() == 0 || piece[piece.rank() - 1] != n / panels) return std::nullopt;
  }
  return panels;
}

// The number of panels when Transpose `t` of x (x the product [R, N] reshaped to `x_dims`, R
// `rows`) moves an axis of x that cuts N into panels to the front and keeps the order of every
// other axis of extent > 1: then its output is the product in panel order, [P, R, N / P].
std::optional<int64_t> transpose_panels(const Node& t, const std::vector<int64_t>& x_dims, int64_t rows, int64_t n) {
  const size_t rank = x_dims.size();
  std::vector<int64_t> perm = t.attrs.get_ints("perm", {});
  if (perm.empty())
    for (size_t a = rank; a-- > 0;) perm.push_back(int64_t(a));
  if (perm.size() != rank) return std::nullopt;
  // The panel axis: the first of extent > 1 after axes whose extents multiply to R.
  size_t panel = 0;
  while (panel < rank && (x_dims[panel] == 1 || extents_product(x_dims, 0, panel) < rows)) ++panel;
  if (panel == rank || extents_product(x_dims, 0, panel) != rows || x_dims[panel] < 2) return std::nullopt;
  const int64_t panels = x_dims[panel];
  if (extents_product(x_dims, panel, rank) != n) return std::nullopt;
  // The non-unit axes in output order: the panel axis, then the others ascending.
  std::vector<int64_t> order;
  for (int64_t a : perm) {
    if (a < 0 || a >= int64_t(rank)) return std::nullopt;
    if (x_dims[size_t(a)] != 1) order.push_back(a);
  }
  if (order.empty() || order[0] != int64_t(panel)) return std::nullopt;
  for (size_t i = 2; i < order.size(); ++i)
    if (order[i] < order[i - 1]) return std::nullopt;
  return panels;
}

}  // namespace

Graph matmul_column_panels(Graph graph) {
  const Index ix(graph);
  const std::vector<Shape> shapes = inferred_shapes(graph);
  std::vector<std::vector<Node>> replacement(graph.nodes.size());
  std::vector<bool> removed(graph.nodes.size(), false);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& mm = graph.nodes[i];
    if (mm.op != kFusedMatMul || mm.outputs.size() != 1 || mm.inputs.size() < 2 || mm.inputs.size() > 3) continue;
    const ValueId a = mm.input(0), b = mm.input(1), bias = mm.input(2), y = mm.outputs[0];
    if (!graph.value(b).is_constant() || graph.value(b).constant.dtype() != DType::f32) continue;
    const Tensor w = graph.value(b).constant;  // a copy (shared buffer): values grow below
    if (w.rank() != 2) continue;
    const int64_t k = w.dim(0), n = w.dim(1);
    if (bias != kNoValue && (!graph.value(bias).is_constant() || graph.value(bias).constant.dtype() != DType::f32 ||
                             graph.value(bias).constant.numel() != n))
      continue;
    const Shape &a_shape = shapes[size_t(a)], &y_shape = shapes[size_t(y)];
    if (!a_shape.is_known() || !y_shape.is_known() || a_shape.rank() == 0 || y_shape.rank() == 0) continue;
    if (a_shape[a_shape.rank() - 1] != k || y_shape[y_shape.rank() - 1] != n || graph.value(y).dtype != DType::f32) continue;
    const int64_t rows = y_shape.numel() / n;
    if (rows == 0 || a_shape.numel() != rows * k) continue;

    // The cut: a Split of the last axis, or a Transpose behind element-order-keeping nodes.
    std::vector<int> chain;
    ValueId v = y;
    int cut = -1;
    std::optional<int64_t> panels;
    while (has_single_private_consumer(graph, ix.consumers, v)) {
      const int c = ix.consumers[size_t(v)][0];
      const Node& node = graph.nodes[size_t(c)];
      if (node.input(0) != v || node.outputs.size() < 1) break;
      if (is_op(node, "Split") && v == y) {
        panels = split_panels(node, shapes, n);
      } else if (is_op(node, "Transpose") && shapes[size_t(v)].is_known() && shapes[size_t(node.outputs[0])].is_known()) {
        panels = transpose_panels(node, shapes[size_t(v)].dims(), rows, n);
      } else if (keeps_element_order(node) && node.outputs.size() == 1) {
        chain.push_back(c);
        v = node.outputs[0];
        continue;
      }
      if (panels) cut = c;
      break;
    }
    if (cut < 0 || *panels > kMaxPanels || n / *panels < kMinPanelWidth) continue;
    const Node& cut_node = graph.nodes[size_t(cut)];
    const int64_t p = *panels, e = n / p;

    // The panel product: A as [R, K] rows, B as [P, K, E], the bias as a [P, 1, E] residual.
    const std::string name = mm.name;
    std::vector<Node>& nodes = replacement[i];
    ValueId rows_a = a;
    if (a_shape.rank() != 2) {
      rows_a = graph.add_value(name + "/rows", DType::f32, Shape{rows, k});
      nodes.push_back(Node{"Reshape", name + "/rows", "", {a, shape_constant(graph, name + "/rows_shape", Shape{rows, k})}, {rows_a}, {}});
    }
    Tensor wp(DType::f32, Shape{p, k, e});
    for (int64_t q = 0; q < p; ++q)
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t j = 0; j < e; ++j) wp.data<float>()[(q * k + kk) * e + j] = w.data<float>()[kk * n + q * e + j];
    std::vector<ValueId> inputs = {rows_a, graph.add_constant(name + "/panel_weights", std::move(wp))};
    if (bias != kNoValue) {
      Tensor bp = graph.value(bias).constant.reshaped(Shape{p, 1, e});
      inputs.push_back(kNoValue);
      inputs.push_back(graph.add_constant(name + "/panel_bias", bp));
    }
    const ValueId panel_y = graph.add_value(name + "/panels", DType::f32, Shape{p, rows, e});
    nodes.push_back(Node{kFusedMatMul, name, "", inputs, {panel_y}, mm.attrs});
    if (is_op(cut_node, "Split")) {
      std::vector<int64_t> out_dims = y_shape.dims();  // each piece: the product's shape, E columns
      out_dims.back() = e;
      for (int64_t q = 0; q < p; ++q) {
        const ValueId out = cut_node.outputs[size_t(q)];
        const std::string piece = cut_node.name + "/panel" + std::to_string(q);
        Tensor index(DType::i64, Shape{});
        index.data<int64_t>()[0] = q;
        const ValueId gathered = graph.add_value(piece, DType::f32, Shape{rows, e});
        nodes.push_back(Node{"Gather", piece, "", {panel_y, graph.add_constant(piece + "/index", std::move(index))}, {gathered}, {}});
        nodes.back().attrs.set("axis", int64_t(0));
        nodes.push_back(Node{"Reshape", piece + "/reshape", "", {gathered, shape_constant(graph, piece + "/shape", Shape(out_dims))}, {out}, {}});
      }
    } else {
      const ValueId out = cut_node.outputs[0];
      nodes.push_back(Node{"Reshape", cut_node.name, "", {panel_y, shape_constant(graph, cut_node.name + "/shape", shapes[size_t(out)])}, {out}, {}});
    }
    removed[i] = true;
    removed[size_t(cut)] = true;
    for (int c : chain) removed[size_t(c)] = true;
  }
  std::vector<Node> nodes;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (Node& n : replacement[i]) nodes.push_back(std::move(n));
    if (!removed[i]) nodes.push_back(std::move(graph.nodes[i]));
  }
  graph.nodes = std::move(nodes);
  return graph;
}

}  // namespace vx

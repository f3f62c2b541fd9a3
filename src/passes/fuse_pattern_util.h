// Small pattern-matching helpers shared by the ONNX fusion passes (fuse_gelu, fuse_layer_norm,
// fuse_attention, fuse_matmul_bias_act, fuse_matmul_int8_weights, gemm_as_fused_matmul, ...):
// which node produces a value, whether a node is a given plain ONNX op, who reads a value, which
// Gemms are linear layers, scalar and shape constants, the other operand of a binary op.
#pragma once
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "passes/graph_queries.h"
#include "passes/shape_inference.h"

namespace vx::pattern {

// The graph's producer and consumer tables, and which nodes a pass has already taken.
struct Index {
  explicit Index(const Graph& g) : producers(g.producers()), consumers(g.consumers()), taken(g.nodes.size(), false) {}
  std::vector<int> producers;
  std::vector<std::vector<int>> consumers;
  std::vector<bool> taken;
};

inline bool is_op(const Node& n, const char* op) { return n.op == op && n.domain.empty(); }

// graph.nodes rebuilt: run_before[i] (new nodes) just before node i, the taken nodes dropped.
inline void splice_nodes(Graph& graph, const Index& ix, std::vector<std::vector<Node>>& run_before) {
  std::vector<Node> nodes;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (Node& n : run_before[i]) nodes.push_back(std::move(n));
    if (!ix.taken[i]) nodes.push_back(std::move(graph.nodes[i]));
  }
  graph.nodes = std::move(nodes);
}

// The node (index) producing `id` when it is the plain ONNX `op` and not yet taken, else -1.
inline int producer_op(const Graph& g, const Index& ix, ValueId id, const char* op) {
  if (id == kNoValue) return -1;
  const int p = ix.producers[size_t(id)];
  if (p < 0 || ix.taken[size_t(p)] || !is_op(g.nodes[size_t(p)], op)) return -1;
  return p;
}

// The single node reading `id` (which is not a graph output), when it is the plain ONNX `op`; else -1.
inline int sole_consumer_op(const Graph& g, const Index& ix, ValueId id, const char* op) {
  if (!has_single_private_consumer(g, ix.consumers, id)) return -1;
  const int c = ix.consumers[size_t(id)][0];
  if (ix.taken[size_t(c)] || !is_op(g.nodes[size_t(c)], op)) return -1;
  return c;
}

// Whether `id` is read by node `reader` only (maybe through several of its inputs) and is no graph
// output.
inline bool read_only_by(const Graph& g, const Index& ix, ValueId id, int reader) {
  if (id == kNoValue || is_graph_output(g, id)) return false;
  for (int c : ix.consumers[size_t(id)])
    if (c != reader) return false;
  return true;
}

// Whether the Gemm `n` is a linear layer, A x B plus a bias: transA = 0, alpha = 1, B a constant
// matrix (stored [N, K] with transB = 1), and C absent or, with beta = 1, an f32 constant of N
// values (added to every row). The element type of B is the caller's to check.
inline bool gemm_is_linear_layer(const Graph& g, const Node& n) {
  if (n.attrs.get_int("transA", 0) != 0 || n.attrs.get_float("alpha", 1.0f) != 1.0f) return false;
  if (n.input(1) == kNoValue || !g.value(n.input(1)).is_constant()) return false;
  const Tensor& b = g.value(n.input(1)).constant;
  if (b.rank() != 2) return false;
  if (n.input(2) == kNoValue) return true;
  const Value& c = g.value(n.input(2));
  return n.attrs.get_float("beta", 1.0f) == 1.0f && c.is_constant() && c.constant.dtype() == DType::f32 &&
         c.constant.rank() == 1 && c.constant.numel() == b.dim(n.attrs.get_int("transB", 0) != 0 ? 0 : 1);
}

// A new int64 constant holding the extents of `s` (a Reshape's target).
inline ValueId shape_constant(Graph& g, const std::string& name, const Shape& s) {
  Tensor t(DType::i64, Shape{int64_t(s.rank())});
  for (size_t i = 0; i < s.rank(); ++i) t.data<int64_t>()[i] = s[i];
  return g.add_constant(name, std::move(t));
}

// The shape of every value as far as shape inference on a copy of the graph can tell (intermediate
// values of an imported graph usually have no shape yet); rank 0 where unknown.
inline std::vector<Shape> inferred_shapes(const Graph& g) {
  Graph copy = g;  // constants share their buffers: cheap
  try {
    infer_shapes(copy);
  } catch (const std::exception&) {
    // inconsistent shapes somewhere: fall back to what the graph itself says
    copy = g;
  }
  std::vector<Shape> shapes(copy.values.size());
  for (size_t i = 0; i < shapes.size(); ++i) shapes[i] = copy.values[i].shape;
  return shapes;
}

// The value of a one-element float constant.
inline std::optional<double> scalar_constant(const Graph& g, ValueId id) {
  if (id == kNoValue || !g.value(id).is_constant()) return std::nullopt;
  const Tensor& t = g.value(id).constant;
  if (t.numel() != 1 || (t.dtype() != DType::f32 && t.dtype() != DType::f16)) return std::nullopt;
  return t.get(0);
}

inline bool near(std::optional<double> v, double want, double rel = 1e-3) {
  return v && std::abs(*v - want) <= rel * std::abs(want);
}

// For a two-input node with `known` as one operand: the other operand, else kNoValue.
inline ValueId other_input(const Node& n, ValueId known) {
  if (n.inputs.size() != 2) return kNoValue;
  if (n.inputs[0] == known) return n.inputs[1];
  if (n.inputs[1] == known) return n.inputs[0];
  return kNoValue;
}

}  // namespace vx::pattern

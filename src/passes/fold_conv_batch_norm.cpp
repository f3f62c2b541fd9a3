#include "passes/fold_conv_batch_norm.h"

#include <cmath>

#include "passes/graph_queries.h"

namespace vx {
namespace {

const Tensor* f32_constant(const Graph& graph, ValueId id) {
  if (id == kNoValue || !graph.value(id).is_constant()) return nullptr;
  const Tensor& t = graph.value(id).constant;
  return t.dtype() == DType::f32 ? &t : nullptr;
}

// True when the BN's optional outputs (training-mode mean / variance) are absent or unread.
bool only_first_output_used(const Node& bn, const Graph& graph, const std::vector<std::vector<int>>& consumers) {
  for (size_t i = 1; i < bn.outputs.size(); ++i) {
    const ValueId id = bn.outputs[i];
    if (id != kNoValue && (!consumers[size_t(id)].empty() || is_graph_output(graph, id))) return false;
  }
  return true;
}

// Folds graph.nodes[bn_index] into graph.nodes[conv_index]; false (graph untouched) when the
// constants do not fit.
bool fold(Graph& graph, size_t conv_index, size_t bn_index) {
  const Node& conv = graph.nodes[conv_index];
  const Node& bn = graph.nodes[bn_index];
  const Tensor* w = f32_constant(graph, conv.input(1));
  const Tensor* b = conv.input(2) == kNoValue ? nullptr : f32_constant(graph, conv.input(2));
  const Tensor* scale = f32_constant(graph, bn.input(1));
  const Tensor* beta = f32_constant(graph, bn.input(2));
  const Tensor* mean = f32_constant(graph, bn.input(3));
  const Tensor* var = f32_constant(graph, bn.input(4));
  if (!w || (conv.input(2) != kNoValue && !b) || !scale || !beta || !mean || !var) return false;
  if (w->rank() < 3) return false;
  const int64_t m = w->dim(0);
  for (const Tensor* t : {scale, beta, mean, var})
    if (t->numel() != m) return false;
  if (b && b->numel() != m) return false;
  const double epsilon = bn.attrs.get_float("epsilon", 1e-5f);

  Tensor new_w = w->clone();
  Tensor new_b(DType::f32, Shape({m}));
  const int64_t per_channel = w->numel() / m;
  float* wp = new_w.data<float>();
  for (int64_t c = 0; c < m; ++c) {
    const double s = double(scale->data<float>()[c]) / std::sqrt(double(var->data<float>()[c]) + epsilon);
    for (int64_t k = 0; k < per_channel; ++k) wp[c * per_channel + k] = float(wp[c * per_channel + k] * s);
    const double bias = b ? double(b->data<float>()[c]) : 0.0;
    new_b.data<float>()[c] = float((bias - double(mean->data<float>()[c])) * s + double(beta->data<float>()[c]));
  }
  const std::string conv_name = conv.name;
  const ValueId bn_output = bn.outputs[0];
  const ValueId w_id = graph.add_constant(conv_name + ".bn_folded_weight", std::move(new_w));
  const ValueId b_id = graph.add_constant(conv_name + ".bn_folded_bias", std::move(new_b));
  Node& c = graph.nodes[conv_index];
  c.inputs.resize(3);
  c.inputs[1] = w_id;
  c.inputs[2] = b_id;
  c.outputs[0] = bn_output;
  return true;
}

}  // namespace

Graph fold_conv_batch_norm(Graph graph) {
  const std::vector<std::vector<int>> consumers = graph.consumers();
  const std::vector<int> producers = graph.producers();
  std::vector<bool> erased(graph.nodes.size(), false);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& bn = graph.nodes[n];
    if (bn.op != "BatchNormalization" || !bn.domain.empty() || bn.attrs.get_int("training_mode", 0) != 0) continue;
    if (bn.outputs.empty() || bn.outputs[0] == kNoValue || bn.input(0) == kNoValue) continue;
    const int p = producers[size_t(bn.input(0))];
    if (p < 0 || graph.nodes[size_t(p)].op != "Conv" || !graph.nodes[size_t(p)].domain.empty()) continue;
    if (!has_single_private_consumer(graph, consumers, bn.input(0)) || !only_first_output_used(bn, graph, consumers))
      continue;
    if (fold(graph, size_t(p), n)) erased[n] = true;
  }
  erase_marked_nodes(graph, erased);
  return graph;
}

}  // namespace vx

#include "passes/fold_conv_affine.h"

#include <cmath>
#include <optional>

#include "passes/graph_queries.h"

namespace vx {
namespace {

const Tensor* f32_constant(const Graph& graph, ValueId id) {
  if (id == kNoValue || !graph.value(id).is_constant()) return nullptr;
  const Tensor& t = graph.value(id).constant;
  return t.dtype() == DType::f32 ? &t : nullptr;
}

// y = x * scale[m] + shift[m] per output channel m.
struct ChannelAffine {
  std::vector<double> scale, shift;
  explicit ChannelAffine(int64_t channels) : scale(size_t(channels), 1.0), shift(size_t(channels), 0.0) {}
  // this, then `next`.
  void then(const ChannelAffine& next) {
    for (size_t m = 0; m < scale.size(); ++m) {
      scale[m] *= next.scale[m];
      shift[m] = shift[m] * next.scale[m] + next.shift[m];
    }
  }
};

// The constant's value per channel when, broadcast onto a conv output of rank `rank` with
// `channels` channels, it varies at most along axis 1 and does not change the output's shape.
std::optional<std::vector<double>> per_channel(const Tensor& c, size_t rank, int64_t channels) {
  if (c.rank() > rank) return std::nullopt;
  const size_t lead = rank - c.rank();  // c's axis j lines up with the output's axis lead + j
  bool varies = false;
  for (size_t j = 0; j < c.rank(); ++j) {
    if (c.dim(j) == 1) continue;
    if (lead + j != 1 || c.dim(j) != channels) return std::nullopt;
    varies = true;
  }
  std::vector<double> v(static_cast<size_t>(channels));
  for (int64_t m = 0; m < channels; ++m) v[size_t(m)] = c.get(varies ? m : 0);
  return v;
}

// True when the BN's optional outputs (training-mode mean / variance) are absent or unread.
bool only_first_output_used(const Node& bn, const Graph& graph, const std::vector<std::vector<int>>& consumers) {
  for (size_t i = 1; i < bn.outputs.size(); ++i) {
    const ValueId id = bn.outputs[i];
    if (id != kNoValue && (!consumers[size_t(id)].empty() || is_graph_output(graph, id))) return false;
  }
  return true;
}

std::optional<ChannelAffine> batch_norm_affine(const Node& bn, const Graph& graph,
                                               const std::vector<std::vector<int>>& consumers, int64_t channels) {
  if (bn.attrs.get_int("training_mode", 0) != 0 || !only_first_output_used(bn, graph, consumers)) return std::nullopt;
  const Tensor* gamma = f32_constant(graph, bn.input(1));
  const Tensor* beta = f32_constant(graph, bn.input(2));
  const Tensor* mean = f32_constant(graph, bn.input(3));
  const Tensor* var = f32_constant(graph, bn.input(4));
  if (!gamma || !beta || !mean || !var) return std::nullopt;
  for (const Tensor* t : {gamma, beta, mean, var})
    if (t->numel() != channels) return std::nullopt;
  const double epsilon = bn.attrs.get_float("epsilon", 1e-5f);
  ChannelAffine a(channels);
  for (int64_t m = 0; m < channels; ++m) {
    const double s = gamma->get(m) / std::sqrt(var->get(m) + epsilon);
    a.scale[size_t(m)] = s;
    a.shift[size_t(m)] = beta->get(m) - mean->get(m) * s;
  }
  return a;
}

// The affine map that `node` applies to `x` (the conv's output), if it is one.
std::optional<ChannelAffine> affine_of(const Node& node, ValueId x, const Graph& graph,
                                       const std::vector<std::vector<int>>& consumers, size_t rank, int64_t channels) {
  if (!node.domain.empty() || node.outputs.empty() || node.outputs[0] == kNoValue || node.input(0) == kNoValue)
    return std::nullopt;
  if (node.op == "BatchNormalization")
    return node.input(0) == x ? batch_norm_affine(node, graph, consumers, channels) : std::nullopt;
  if ((node.op != "Mul" && node.op != "Div" && node.op != "Add" && node.op != "Sub") || node.inputs.size() != 2)
    return std::nullopt;
  const bool x_first = node.inputs[0] == x;
  const Tensor* c = f32_constant(graph, node.inputs[x_first ? 1 : 0]);
  if (!c || node.inputs[x_first ? 0 : 1] != x) return std::nullopt;
  const std::optional<std::vector<double>> v = per_channel(*c, rank, channels);
  if (!v) return std::nullopt;
  ChannelAffine a(channels);
  for (size_t m = 0; m < v->size(); ++m) {
    const double k = (*v)[m];
    if (node.op == "Mul") {
      a.scale[m] = k;
    } else if (node.op == "Div") {
      if (!x_first || k == 0.0) return std::nullopt;  // c / x is not affine
      a.scale[m] = 1.0 / k;
    } else if (node.op == "Add") {
      a.shift[m] = k;
    } else {  // Sub: x - c, or c - x
      a.scale[m] = x_first ? 1.0 : -1.0;
      a.shift[m] = x_first ? -k : k;
    }
  }
  return a;
}

// Scales the weights of output channel m by a.scale[m]. Conv weights are [M, C/group, k...];
// ConvTranspose weights are [C, M/group, k...], output channel (c / (C/group)) * (M/group) + j.
Tensor scaled_weights(const Tensor& w, bool transposed, int64_t group, const ChannelAffine& a) {
  Tensor out = w.clone();
  float* p = out.data<float>();
  const int64_t rows = w.dim(0), cols = w.dim(1), kernel = w.numel() / (rows * cols);
  const int64_t rows_per_group = rows / group;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t m = transposed ? (r / rows_per_group) * cols + c : r;
      float* k = p + (r * cols + c) * kernel;
      for (int64_t i = 0; i < kernel; ++i) k[i] = float(double(k[i]) * a.scale[size_t(m)]);
    }
  return out;
}

}  // namespace

Graph fold_conv_affine(Graph graph) {
  const std::vector<std::vector<int>> consumers = graph.consumers();
  std::vector<bool> erased(graph.nodes.size(), false);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& conv = graph.nodes[n];
    const bool transposed = conv.op == "ConvTranspose";
    if ((conv.op != "Conv" && !transposed) || !conv.domain.empty() || conv.outputs.size() != 1) continue;
    const Tensor* w = f32_constant(graph, conv.input(1));
    const Tensor* b = conv.input(2) == kNoValue ? nullptr : f32_constant(graph, conv.input(2));
    if (!w || (conv.input(2) != kNoValue && !b) || w->rank() < 3) continue;
    const int64_t group = conv.attrs.get_int("group", 1);
    if (group < 1 || w->dim(0) % group != 0) continue;
    const int64_t channels = transposed ? w->dim(1) * group : w->dim(0);
    if (b && b->numel() != channels) continue;

    ChannelAffine total(channels);
    ValueId y = conv.outputs[0];
    bool folded = false;
    while (has_single_private_consumer(graph, consumers, y)) {
      const int reader = consumers[size_t(y)][0];
      const std::optional<ChannelAffine> a = affine_of(graph.nodes[size_t(reader)], y, graph, consumers, w->rank(), channels);
      if (!a || erased[size_t(reader)]) break;
      total.then(*a);
      erased[size_t(reader)] = true;
      y = graph.nodes[size_t(reader)].outputs[0];
      folded = true;
    }
    if (!folded) continue;

    Tensor new_b(DType::f32, Shape({channels}));
    for (int64_t m = 0; m < channels; ++m)
      new_b.data<float>()[m] = float((b ? double(b->get(m)) : 0.0) * total.scale[size_t(m)] + total.shift[size_t(m)]);
    const std::string name = conv.name;
    const ValueId w_id = graph.add_constant(name + ".folded_weight", scaled_weights(*w, transposed, group, total));
    const ValueId b_id = graph.add_constant(name + ".folded_bias", std::move(new_b));
    Node& c = graph.nodes[n];
    c.inputs.resize(3, kNoValue);
    c.inputs[1] = w_id;
    c.inputs[2] = b_id;
    c.outputs[0] = y;  // the last folded node's output: its readers all come after it
  }
  erase_marked_nodes(graph, erased);
  return graph;
}

}  // namespace vx

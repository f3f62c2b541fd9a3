#include "backends/cpu/fast/cpu_layout.h"

#include <algorithm>
#include <span>
#include <string_view>

#include "backends/cpu/fast/fused_conv_onednn.h"
#include "core/error.h"
#include "ops/fused_ops.h"
#include "passes/graph_queries.h"

namespace vx::cpu {

namespace {

// What a step is to the layout decision: a oneDNN convolution, a follower (unary, binary, global
// pool: their fast kernels; window: the fast MaxPool / AveragePool, whose output is smaller but in
// its input's layout), or anything else (reads and writes NCHW only).
enum class Role { other, conv, unary, binary, pool, window };

// The ops of the fast kernels in eltwise_unary.cpp (and quantize.cpp's vx.FakeQuantize) and
// eltwise_binary.cpp (variant "fast").
constexpr std::string_view kUnaryOps[] = {"Relu",     "LeakyRelu", "Elu",   "Selu",  "Clip",       "Sigmoid",
                                          "HardSigmoid", "HardSwish", "Softplus", "Softsign", "Tanh", "Exp",
                                          "Log",      "Erf",       "Sin",   "Cos",   "Neg",        "Abs",
                                          "Sqrt",     "Reciprocal", "Floor", "Ceil", "Round",      kFakeQuantize};
constexpr std::string_view kBinaryOps[] = {"Add", "Sub", "Mul", "Div", "Sum", "Mean", "Min", "Max"};

bool one_of(const std::string& op, std::span<const std::string_view> ops) {
  return std::find(ops.begin(), ops.end(), std::string_view(op)) != ops.end();
}

// The inputs a oneDNN conv reads as activations (in any layout): X (X_low, X_skip), and R.
std::vector<size_t> data_inputs(const Node& n) {
  if (n.op == kFusedConvResidual) return {0, 3};
  if (n.attrs.get_int("upsample_concat", 0) != 0) return {0, 1};
  return {0};
}
bool is_data_input(const Node& n, size_t i) {
  const std::vector<size_t> d = data_inputs(n);
  return std::find(d.begin(), d.end(), i) != d.end();
}

// A step's role and the inputs it reads as activations (in any layout).
struct StepRole {
  Role role = Role::other;
  std::vector<size_t> act;
};

class LayoutDecision {
 public:
  explicit LayoutDecision(const Plan& plan) : plan_(plan), g_(plan.graph) {
    roles_.resize(plan.steps.size());
    for (size_t s = 0; s < plan.steps.size(); ++s) roles_[s] = role_of(s);
    const std::vector<int> producers = g_.producers();
    std::vector<int> step_of_node(g_.nodes.size(), -1);
    for (size_t s = 0; s < plan.steps.size(); ++s) step_of_node[size_t(plan.steps[s].node)] = int(s);
    // Only a full-size 4-D f32 value written by a conv or a follower may leave NCHW.
    forced_.assign(g_.values.size(), 1);
    layout_.assign(g_.values.size(), Layout::nchw);
    for (size_t v = 0; v < g_.values.size(); ++v) {
      const int p = producers[v];
      if (p < 0 || step_of_node[size_t(p)] < 0 || !rank4_f32(ValueId(v)) || layout_free(ValueId(v)) ||
          is_graph_output(g_, ValueId(v)))
        continue;
      const Role r = roles_[size_t(step_of_node[size_t(p)])].role;
      if (r == Role::conv || r == Role::unary || r == Role::binary || r == Role::window) forced_[v] = 0;
    }
    // Layouts flow forward, NCHW is forced backward; forcing only grows, so this ends.
    for (bool changed = true; changed;) {
      propagate();
      changed = force();
    }
    propagate();
  }

  const StepRole& role(size_t s) const { return roles_[s]; }
  const Node& node(size_t s) const { return g_.nodes[size_t(plan_.steps[s].node)]; }

  // The layout a node reading or writing `id` names for it, preferring `preferred` where the value
  // is layout-free (1x1 spatially: the same bytes in NCHW, NHWC, and nChw16c / nChw8c when the
  // channels fill whole blocks).
  Layout claim(ValueId id, Layout preferred) const {
    if (id == kNoValue || !rank4_f32(id)) return Layout::nchw;
    if (layout_free(id)) {
      const int64_t block = channel_block(preferred);
      return block != 0 && g_.value(id).shape[1] % block != 0 ? Layout::nchw : preferred;
    }
    return layout_[size_t(id)];
  }
  // The layout a follower step works in: its activation inputs' (all alike once decided).
  Layout follower_layout(size_t s) const {
    const StepRole& r = roles_[s];
    const Node& n = node(s);
    const Layout l = layout_[size_t(n.inputs[r.act[0]])];
    for (size_t i : r.act)
      VX_CHECK(layout_[size_t(n.inputs[i])] == l, Internal, "node '", n.name,
               "' reads its activations in different layouts");
    if (r.role != Role::pool && rank4_f32(n.outputs[0]) && !layout_free(n.outputs[0]))
      VX_CHECK(layout_[size_t(n.outputs[0])] == l, Internal, "node '", n.name,
               "' writes another layout than it reads");
    return l;
  }

 private:
  bool rank4_f32(ValueId id) const {
    if (id == kNoValue) return false;
    const Value& v = g_.value(id);
    const bool known = plan_.shape_known.empty() || plan_.shape_known[size_t(id)];
    return known && v.dtype == DType::f32 && v.shape.is_known() && v.shape.rank() == 4;
  }
  bool layout_free(ValueId id) const {
    const Shape& s = g_.value(id).shape;
    return s[2] == 1 && s[3] == 1;
  }

  StepRole role_of(size_t s) const {
    const PlanStep& step = plan_.steps[s];
    const Node& n = g_.nodes[size_t(step.node)];
    if ((n.op == kFusedConv || n.op == kFusedConvResidual) && step.variant == kOneDnnVariant)
      return {Role::conv, data_inputs(n)};
    if ((n.op == "MaxPool" || n.op == "AveragePool") && step.variant == kFastVariant && n.outputs.size() == 1 &&
        rank4_f32(n.inputs[0]) && rank4_f32(n.outputs[0]))
      return {Role::window, {0}};
    if (step.variant != kFastVariant || n.outputs.size() != 1 || n.inputs.empty() || n.outputs[0] == kNoValue)
      return {};
    const ValueId x = n.inputs[0], y = n.outputs[0];
    if ((n.op == "GlobalAveragePool" || n.op == "GlobalMaxPool") && rank4_f32(x)) return {Role::pool, {0}};
    if (!rank4_f32(y)) return {};
    const Shape& out = g_.value(y).shape;
    if (one_of(n.op, kUnaryOps)) {
      if (rank4_f32(x) && g_.value(x).shape == out) return {Role::unary, {0}};
      return {};
    }
    if (!one_of(n.op, kBinaryOps) || n.inputs.size() != 2 || n.inputs[1] == kNoValue) return {};
    std::vector<size_t> full;
    for (size_t i = 0; i < 2; ++i)
      if (rank4_f32(n.inputs[i]) && g_.value(n.inputs[i]).shape == out) full.push_back(i);
    if (full.size() == 2) return {Role::binary, full};
    if (full.size() == 1 && spatially_trivial(n.inputs[1 - full[0]], out)) return {Role::binary, full};
    return {};
  }

  // A known f32 shape of rank <= 4 that, right-aligned against `out`, is 1x1 spatially and spans
  // all or one of the images and of the channels: [N,C,1,1], [1,C,1,1], [C,1,1], [1], a scalar.
  bool spatially_trivial(ValueId id, const Shape& out) const {
    const Value& v = g_.value(id);
    if (v.dtype != DType::f32 || !v.shape.is_known() || v.shape.rank() > 4) return false;
    int64_t d[4] = {1, 1, 1, 1};
    for (size_t i = 0; i < v.shape.rank(); ++i) d[4 - v.shape.rank() + i] = v.shape[i];
    return d[2] == 1 && d[3] == 1 && (d[0] == 1 || d[0] == out[0]) && (d[1] == 1 || d[1] == out[1]);
  }

  // Whether the activations of a follower are all in one layout.
  bool consistent(size_t s) const {
    const Node& n = node(s);
    for (size_t i : roles_[s].act)
      if (layout_[size_t(n.inputs[i])] != layout_[size_t(n.inputs[roles_[s].act[0]])]) return false;
    return true;
  }

  void propagate() {
    for (size_t s = 0; s < plan_.steps.size(); ++s) {
      const StepRole& r = roles_[s];
      if (r.role == Role::other || r.role == Role::pool) continue;
      const Node& n = node(s);
      const ValueId y = n.outputs[0];
      if (forced_[size_t(y)]) {
        layout_[size_t(y)] = Layout::nchw;
      } else if (r.role == Role::conv) {
        layout_[size_t(y)] = fast::onednn_working_layout(n, g_);
      } else {
        layout_[size_t(y)] = consistent(s) ? layout_[size_t(n.inputs[r.act[0]])] : Layout::nchw;
      }
    }
  }

  bool force() {
    bool changed = false;
    auto force_value = [&](ValueId id) {
      if (id != kNoValue && !forced_[size_t(id)]) {
        forced_[size_t(id)] = 1;
        changed = true;
      }
    };
    for (size_t s = 0; s < plan_.steps.size(); ++s) {
      const StepRole& r = roles_[s];
      const Node& n = node(s);
      const bool follower =
          r.role == Role::unary || r.role == Role::binary || r.role == Role::pool || r.role == Role::window;
      const bool same = follower && consistent(s);
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        const ValueId id = n.inputs[i];
        if (id == kNoValue || layout_[size_t(id)] == Layout::nchw) continue;
        const bool act = std::find(r.act.begin(), r.act.end(), i) != r.act.end();
        const bool accepted = r.role == Role::conv ? is_data_input(n, i) : act && same;
        if (!accepted) force_value(id);
      }
      // A follower writes the layout it reads: an NCHW output needs NCHW activations.
      const bool same_layout_out = r.role == Role::unary || r.role == Role::binary || r.role == Role::window;
      if (same_layout_out && forced_[size_t(n.outputs[0])])
        for (size_t i : r.act) force_value(n.inputs[i]);
    }
    return changed;
  }

  const Plan& plan_;
  const Graph& g_;
  std::vector<StepRole> roles_;
  std::vector<char> forced_;     // per value: must be NCHW
  std::vector<Layout> layout_;   // per value: the layout it is stored in (NCHW for layout-free ones)
};

}  // namespace

void prepare_cpu_plan(Plan& plan) {
  const LayoutDecision decision(plan);
  Graph& g = plan.graph;
  std::vector<size_t> last_reader(g.values.size(), 0);
  for (size_t s = 0; s < plan.steps.size(); ++s)
    for (ValueId id : g.nodes[size_t(plan.steps[s].node)].inputs)
      if (id != kNoValue) last_reader[size_t(id)] = s;
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const StepRole& r = decision.role(s);
    Node& n = g.nodes[size_t(plan.steps[s].node)];
    n.attrs.erase(kLayoutInputsAttr);  // clear what an earlier decision may have left
    n.attrs.erase(kLayoutOutputAttr);
    n.attrs.erase(kResidualInPlaceAttr);
    plan.steps[s].scratch_bytes = 0;
    plan.steps[s].output_reuses_input = -1;
    if (r.role == Role::conv) {
      const Layout work = fast::onednn_working_layout(n, g);
      std::vector<int64_t> in_layouts;
      for (size_t i : r.act) in_layouts.push_back(int64_t(decision.claim(n.inputs[i], work)));
      const Layout out = decision.claim(n.outputs[0], work);
      n.attrs.set(kLayoutInputsAttr, in_layouts);
      n.attrs.set(kLayoutOutputAttr, int64_t(out));
      // R in the output's layout, read here for the last time: the convolution adds into R's own
      // buffer (oneDNN's sum post-op, which its brgemm 1x1 kernels take and its binary add not).
      const ValueId r_id = n.op == kFusedConvResidual ? n.inputs[3] : kNoValue;
      if (r_id != kNoValue && Layout(in_layouts.back()) == work && out == work && last_reader[size_t(r_id)] == s &&
          std::count(n.inputs.begin(), n.inputs.end(), r_id) == 1 && !is_graph_output(g, r_id)) {
        n.attrs.set(kResidualInPlaceAttr, int64_t(1));
        plan.steps[s].output_reuses_input = 3;
      }
      plan.steps[s].scratch_bytes = fast::onednn_fused_conv_scratch_bytes(n, g);
    } else if (r.role != Role::other) {
      const Layout l = decision.follower_layout(s);
      if (l == Layout::nchw) continue;
      std::vector<int64_t> in_layouts;
      for (ValueId id : n.inputs) in_layouts.push_back(int64_t(decision.claim(id, l)));
      n.attrs.set(kLayoutInputsAttr, in_layouts);
      n.attrs.set(kLayoutOutputAttr, int64_t(decision.claim(n.outputs[0], l)));
    }
  }
  plan.prepared_by = "cpu";
}

Layout follower_input_layout(const Node& node, size_t i) {
  const std::vector<int64_t> layouts = node.attrs.get_ints(kLayoutInputsAttr);
  return i < layouts.size() ? Layout(layouts[i]) : Layout::nchw;
}

Layout follower_output_layout(const Node& node) { return Layout(node.attrs.get_int(kLayoutOutputAttr, 0)); }

}  // namespace vx::cpu

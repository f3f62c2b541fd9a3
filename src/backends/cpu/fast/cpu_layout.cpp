#include "backends/cpu/fast/cpu_layout.h"

#include <algorithm>

#include "backends/cpu/fast/fused_conv_onednn.h"
#include "ops/fused_ops.h"
#include "passes/graph_queries.h"

namespace vx::cpu {

namespace {
bool is_onednn_conv(const Plan& plan, int step) {
  const Node& n = plan.graph.nodes[size_t(plan.steps[size_t(step)].node)];
  return (n.op == kFusedConv || n.op == kFusedConvResidual) && plan.steps[size_t(step)].variant == kOneDnnVariant;
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
}  // namespace

void prepare_cpu_plan(Plan& plan) {
  Graph& g = plan.graph;
  std::vector<int> step_of_node(g.nodes.size(), -1);
  for (size_t s = 0; s < plan.steps.size(); ++s) step_of_node[size_t(plan.steps[s].node)] = int(s);
  const std::vector<int> producers = g.producers();
  std::vector<char> internal(g.values.size(), 0);
  for (size_t v = 0; v < g.values.size(); ++v) {
    const int producer = producers[v];
    if (producer >= 0 && !is_graph_output(g, ValueId(v)) && is_onednn_conv(plan, step_of_node[size_t(producer)]))
      internal[v] = 1;
  }
  // A reader that is not a oneDNN conv, or reads the value other than as data, forces NCHW.
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const Node& n = g.nodes[size_t(plan.steps[s].node)];
    const bool onednn = is_onednn_conv(plan, int(s));
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (n.inputs[i] != kNoValue && (!onednn || !is_data_input(n, i))) internal[size_t(n.inputs[i])] = 0;
  }
  // An internal value is kept in the layout its producer computes in, so producing it costs nothing.
  auto layout_of = [&](ValueId id) {
    if (!internal[size_t(id)]) return Layout::nchw;
    return fast::onednn_working_layout(g.nodes[size_t(producers[size_t(id)])], g);
  };
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    Node& n = g.nodes[size_t(plan.steps[s].node)];
    if (!is_onednn_conv(plan, int(s))) {  // clear what an earlier decision may have left
      n.attrs.erase(kLayoutInputsAttr);
      n.attrs.erase(kLayoutOutputAttr);
      plan.steps[s].scratch_bytes = 0;
      continue;
    }
    std::vector<int64_t> in_layouts;
    for (size_t i : data_inputs(n)) in_layouts.push_back(int64_t(layout_of(n.inputs[i])));
    n.attrs.set(kLayoutInputsAttr, in_layouts);
    n.attrs.set(kLayoutOutputAttr, int64_t(layout_of(n.outputs[0])));
    plan.steps[s].scratch_bytes = fast::onednn_fused_conv_scratch_bytes(n, g);
  }
  plan.prepared_by = "cpu";
}

}  // namespace vx::cpu

#include "backends/cpu/fast/cpu_layout.h"

#include "backends/cpu/fast/onednn_fused_conv.h"
#include "passes/fused_ops.h"
#include "passes/graph_queries.h"

namespace vx::cpu {

namespace {
bool is_onednn_conv(const Plan& plan, int step) {
  const Node& n = plan.graph.nodes[size_t(plan.steps[size_t(step)].node)];
  return n.op == kFusedConv && plan.steps[size_t(step)].variant == kOneDnnVariant;
}
size_t data_inputs(const Node& n) { return n.attrs.get_int("upsample_concat", 0) != 0 ? 2 : 1; }
}  // namespace

void prepare_cpu_plan(Plan& plan) {
  Graph& g = plan.graph;
  std::vector<int> step_of_node(g.nodes.size(), -1);
  for (size_t s = 0; s < plan.steps.size(); ++s) step_of_node[size_t(plan.steps[s].node)] = int(s);
  const std::vector<int> producers = g.producers();
  std::vector<char> nhwc(g.values.size(), 0);
  for (size_t v = 0; v < g.values.size(); ++v) {
    const int producer = producers[v];
    if (producer < 0 || is_graph_output(g, ValueId(v)) || !is_onednn_conv(plan, step_of_node[size_t(producer)]))
      continue;
    nhwc[v] = 1;
  }
  // A reader that is not a oneDNN conv, or reads the value other than as data, forces NCHW.
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const Node& n = g.nodes[size_t(plan.steps[s].node)];
    const bool onednn = is_onednn_conv(plan, int(s));
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (n.inputs[i] != kNoValue && (!onednn || i >= data_inputs(n))) nhwc[size_t(n.inputs[i])] = 0;
  }
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    Node& n = g.nodes[size_t(plan.steps[s].node)];
    if (!is_onednn_conv(plan, int(s))) {  // clear what an earlier decision may have left
      n.attrs.erase(kNhwcInputsAttr);
      n.attrs.erase(kNhwcOutputAttr);
      plan.steps[s].scratch_bytes = 0;
      continue;
    }
    std::vector<int64_t> in_flags;
    for (size_t i = 0; i < data_inputs(n); ++i) in_flags.push_back(nhwc[size_t(n.inputs[i])]);
    n.attrs.set(kNhwcInputsAttr, in_flags);
    n.attrs.set(kNhwcOutputAttr, int64_t(nhwc[size_t(n.outputs[0])]));
    plan.steps[s].scratch_bytes = fast::onednn_fused_conv_scratch_bytes(n, g);
  }
  plan.prepared_by = "cpu";
}

}  // namespace vx::cpu

#include "passes/fold_constants.h"

#include <set>

#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "passes/graph_queries.h"

namespace vx {
namespace {

// Evaluates one node on constant inputs, outside any plan.
class FoldContext final : public cpu::KernelContext {
 public:
  FoldContext(const Graph& graph, const Node& node) : graph_(graph), node_(node), outputs_(node.outputs.size()) {}

  const Node& node() const override { return node_; }
  int64_t opset() const override { return graph_.opset(""); }
  size_t num_inputs() const override { return node_.inputs.size(); }
  bool has_input(size_t i) const override { return node_.input(i) != kNoValue; }
  const Tensor& input(size_t i) const override {
    VX_CHECK(has_input(i), InvalidArgument, "input ", i, " is missing");
    return graph_.value(node_.inputs[i]).constant;
  }
  size_t num_outputs() const override { return node_.outputs.size(); }
  Tensor& output(size_t i, DType dtype, const Shape& shape) override {
    VX_CHECK(i < outputs_.size(), Internal, "output ", i, " requested but the node has ", outputs_.size());
    outputs_[i] = Tensor(dtype, shape);
    return outputs_[i];
  }
  ThreadPool& pool() override { return ThreadPool::global(); }
  std::vector<Tensor>& outputs() { return outputs_; }

 private:
  const Graph& graph_;
  const Node& node_;
  std::vector<Tensor> outputs_;
};

bool foldable(const Node& node, const Graph& graph) {
  static const std::set<std::string> random_ops = {"RandomNormal", "RandomUniform", "RandomNormalLike",
                                                   "RandomUniformLike", "Bernoulli", "Multinomial"};
  if (!node.domain.empty() || random_ops.count(node.op) || node.outputs.empty()) return false;
  bool any_input = false;
  for (ValueId id : node.inputs) {
    if (id == kNoValue) continue;
    if (!graph.value(id).is_constant()) return false;
    any_input = true;
  }
  return any_input;  // a node without inputs (e.g. a generator) is left alone
}

}  // namespace

Graph fold_constants(Graph graph, int64_t max_elements) {
  std::vector<bool> folded(graph.nodes.size(), false);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (!foldable(node, graph)) continue;
    const cpu::KernelEntry* kernel = cpu::find_reference_kernel(node.op);
    if (kernel == nullptr || (kernel->supports && !kernel->supports(node, graph))) continue;
    FoldContext ctx(graph, node);
    try {
      cpu::KernelFn run = kernel->create ? kernel->create(node, graph) : kernel->run;
      run(ctx);
    } catch (const Error&) {
      continue;  // invalid here means invalid at run time too: let the run report it with context
    }
    bool fits = true;
    for (size_t i = 0; i < node.outputs.size(); ++i)
      if (node.outputs[i] != kNoValue && (!ctx.outputs()[i].defined() || ctx.outputs()[i].numel() > max_elements))
        fits = false;
    if (!fits) continue;
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (node.outputs[i] == kNoValue) continue;
      Value& v = graph.value(node.outputs[i]);
      v.constant = std::move(ctx.outputs()[i]);
      v.dtype = v.constant.dtype();
      v.shape = v.constant.shape();
      v.dim_params.clear();
    }
    folded[n] = true;
  }
  erase_marked_nodes(graph, folded);
  return graph;
}

}  // namespace vx

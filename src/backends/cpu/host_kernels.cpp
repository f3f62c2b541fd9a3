// The CPU backend's answers to the layers below it (ops/host_kernels.h): installed when the library
// is loaded.
#include <optional>

#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/host_kernels.h"

namespace vx::cpu {
namespace {

// Evaluates one node on constant inputs, outside any plan.
class FoldContext final : public KernelContext {
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

std::optional<std::vector<Tensor>> evaluate_constant(const Node& node, const Graph& graph) {
  const KernelEntry* kernel = find_reference_kernel(node.op);
  if (kernel == nullptr || (kernel->supports && !kernel->supports(node, graph))) return std::nullopt;
  FoldContext ctx(graph, node);
  try {
    KernelFn run = kernel->create ? kernel->create(node, graph) : kernel->run;
    run(ctx);
  } catch (const Error&) {
    return std::nullopt;
  }
  return std::move(ctx.outputs());
}

const bool installed = (install_host_kernels({[](const Node& node, const Graph& graph) {
                                                return find_kernel(node, graph) != nullptr;
                                              },
                                              evaluate_constant}),
                        true);

}  // namespace
}  // namespace vx::cpu

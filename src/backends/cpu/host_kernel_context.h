// The CPU kernels' view of one node over host tensors indexed by value id: inputs read from, and
// outputs freshly allocated into, one vector (omitted optional outputs go to private scratch).
// The eager runner and the Vulkan executor's CPU nodes both run kernels through it.
#pragma once
#include <vector>

#include "backends/cpu/kernel_registry.h"

namespace vx {

class HostKernelContext final : public cpu::KernelContext {
 public:
  HostKernelContext(const Graph& graph, const Node& node, std::vector<Tensor>& values)
      : graph_(graph), node_(node), values_(values) {}

  const Node& node() const override { return node_; }
  int64_t opset() const override { return graph_.opset(""); }
  size_t num_inputs() const override { return node_.inputs.size(); }
  bool has_input(size_t i) const override { return i < node_.inputs.size() && node_.inputs[i] != kNoValue; }
  const Tensor& input(size_t i) const override;
  size_t num_outputs() const override { return node_.outputs.size(); }
  Tensor& output(size_t i, DType dtype, const Shape& shape) override;
  ThreadPool& pool() override { return ThreadPool::global(); }

 private:
  const Graph& graph_;
  const Node& node_;
  std::vector<Tensor>& values_;
  std::vector<Tensor> scratch_;
};

}  // namespace vx

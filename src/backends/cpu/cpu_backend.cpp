#include "backends/cpu/cpu_backend.h"

#include <chrono>

#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/host_kernel_context.h"
#include "core/error.h"

namespace vx::cpu {
namespace {

class CpuSegments final : public runtime::CompiledSegments {
 public:
  CpuSegments(const Graph& graph, std::vector<std::vector<size_t>> segments, std::vector<KernelFn> kernels)
      : graph_(graph), segments_(std::move(segments)), kernels_(std::move(kernels)) {}

  void run(size_t k, runtime::HostValues& host, std::vector<double>& node_ms) override {
    using Clock = std::chrono::steady_clock;
    for (size_t n : segments_[k]) {
      const Node& node = graph_.nodes[n];
      const auto start = Clock::now();
      HostKernelContext context(graph_, node, host);
      try {
        kernels_[n](context);
      } catch (const Error& e) {
        throw e.with_context(cat("node '", node.name, "' (", node.op, ", on the CPU)"));
      }
      node_ms[n] = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      for (ValueId id : node.outputs)
        VX_CHECK(id == kNoValue || host[size_t(id)].defined(), Internal, "node '", node.name, "' did not write '",
                 graph_.value(id).name, "'");
    }
  }

 private:
  const Graph& graph_;
  std::vector<std::vector<size_t>> segments_;
  std::vector<KernelFn> kernels_;  // per graph node (empty for nodes elsewhere)
};

// A whole graph planned into one arena (the CPU is the device, not a fallback).
class WholeGraph final : public runtime::CompiledSegments {
 public:
  WholeGraph(const Graph& graph, std::unique_ptr<CpuExecutable> executable)
      : graph_(graph), executable_(std::move(executable)) {}

  void run(size_t k, runtime::HostValues& host, std::vector<double>& node_ms) override {
    VX_CHECK(k == 0, Internal, "a whole graph is one segment");
    inputs_.clear();
    for (ValueId id : graph_.inputs) inputs_.push_back(host[size_t(id)]);
    std::vector<Tensor> outputs;
    executable_->run(inputs_, outputs, step_ms_);
    inputs_.clear();
    for (size_t i = 0; i < graph_.outputs.size(); ++i) host[size_t(graph_.outputs[i])] = std::move(outputs[i]);
    // Steps are the graph's nodes in order (make_plan).
    const std::vector<PlanStep>& steps = executable_->plan().steps;
    for (size_t s = 0; s < step_ms_.size() && s < steps.size(); ++s) node_ms[size_t(steps[s].node)] = step_ms_[s];
  }
  MemoryNeeds memory_needs() const override {
    const Plan& plan = executable_->plan();
    return {plan.arena_bytes, 0, plan.sum_activation_bytes};
  }

 private:
  const Graph& graph_;
  std::unique_ptr<CpuExecutable> executable_;
  std::vector<Tensor> inputs_;   // kept across runs: no allocation per call
  std::vector<double> step_ms_;  // each step's time in the last run
};

}  // namespace

runtime::NodeSupport CpuBackend::supports(const runtime::BoundGraph& bound, size_t n) {
  const Node& node = bound.graph.nodes[n];
  if (chosen_.size() < bound.graph.nodes.size()) chosen_.resize(bound.graph.nodes.size(), nullptr);
  chosen_[n] = choose_kernel(node, bound.graph, options_.reference_only);
  if (!chosen_[n]) return {false, "", "no CPU kernel"};
  return {true, chosen_[n]->variant, ""};
}

std::unique_ptr<runtime::CompiledSegments> CpuBackend::compile(const runtime::BoundGraph& bound,
                                                               const std::vector<const runtime::Segment*>& segments) {
  const Graph& g = bound.graph;
  if (segments.size() == 1 && segments[0]->nodes.size() == g.nodes.size()) {
    std::map<std::string, Shape> input_shapes;
    for (ValueId id : g.inputs) input_shapes[g.value(id).name] = g.value(id).shape;
    Plan plan = make_cpu_plan(g, input_shapes, options_.reference_only);
    const MemoryNeeds needs{plan.arena_bytes, 0, plan.sum_activation_bytes};
    if (options_.needs) *options_.needs = needs;
    check_memory_limit(needs, options_.max_memory_mb, input_shapes);
    CpuOptions o;
    o.reference_only = options_.reference_only;
    o.pool = options_.pool;
    return std::make_unique<WholeGraph>(g, std::make_unique<CpuExecutable>(std::move(plan), o));
  }
  std::vector<KernelFn> kernels(g.nodes.size());
  std::vector<std::vector<size_t>> nodes;
  fast::set_onednn_threads((options_.pool ? *options_.pool : ThreadPool::global()).size());  // as CpuExecutable
  for (const runtime::Segment* seg : segments) {
    nodes.push_back(seg->nodes);
    for (size_t n : seg->nodes) {
      const Node& node = g.nodes[n];
      const KernelEntry* kernel = n < chosen_.size() ? chosen_[n] : nullptr;
      VX_CHECK(kernel != nullptr, Internal, "node '", node.name, "' was scheduled on the CPU without a kernel");
      // Factory kernels (the oneDNN ones) prepare their weights and primitives once, here.
      VX_WITH_CONTEXT(cat("node '", node.name, "' (", node.op, ")"),
                      kernels[n] = kernel->create ? kernel->create(node, g) : kernel->run);
    }
  }
  return std::make_unique<CpuSegments>(g, std::move(nodes), std::move(kernels));
}

}  // namespace vx::cpu

// The CPU backend's kernel registry: op type -> kernel function (like ncnn's layer factory and
// ONNX Runtime's kernel registry). Reference kernels (simple, exact, NCHW, float64 accumulation
// where it helps) register under the plain op name; fast kernels register under the same op with a
// higher priority and may decline a node (supports() false), in which case the next one is used.
//
// A kernel reads its inputs from the context and asks it for outputs; the context hands out arena
// memory when the planner placed that output (its shape known at plan time), else allocates. Shape
// inference for planning (the ops' shape functions, ops/shape_fn.h) lives outside the backends.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"
#include "core/thread_pool.h"

namespace vx::cpu {

class KernelContext {
 public:
  virtual ~KernelContext() = default;
  virtual const Node& node() const = 0;
  virtual int64_t opset() const = 0;  // the graph's ai.onnx opset (0 when not an ONNX graph)
  virtual size_t num_inputs() const = 0;
  // False for an omitted optional input (kNoValue) or an index past the end.
  virtual bool has_input(size_t i) const = 0;
  virtual const Tensor& input(size_t i) const = 0;
  virtual size_t num_outputs() const = 0;
  // The i-th output with this dtype and shape, zero-filled only if freshly allocated (arena memory
  // holds stale data: write every element).
  virtual Tensor& output(size_t i, DType dtype, const Shape& shape) = 0;
  virtual ThreadPool& pool() = 0;
  // Temporary memory for this node's run only (64-byte aligned, stale contents). The executor
  // hands out arena bytes the planner reserved for the node (Plan's per-step scratch); this
  // default allocates.
  virtual void* scratch(size_t bytes) {
    if (fallback_scratch_.nbytes() < bytes) fallback_scratch_ = Tensor(DType::u8, Shape({int64_t(bytes)}));
    return fallback_scratch_.raw();
  }

 private:
  Tensor fallback_scratch_;
};

using KernelFn = std::function<void(KernelContext&)>;
using SupportsFn = std::function<bool(const Node&, const Graph&)>;
// Makes a kernel instance for one node of a shape-bound graph, once per executable, so that work
// that depends only on the node (weights reordered into the layout a fast path reads, primitives
// built for the planned shapes) is done once and not per run.
using KernelFactory = std::function<KernelFn(const Node&, const Graph&)>;

struct KernelEntry {
  std::string op;
  std::string variant;  // "reference", "onednn", ... (recorded in the plan and the profile)
  int priority = 0;     // higher tried first; reference kernels are 0
  SupportsFn supports;  // null = supports every node of this op
  KernelFn run;                    // may be null when `create` is set
  KernelFactory create = nullptr;  // optional; when set the executor uses create(node, graph), not run
  std::string domain = "";         // "" for ai.onnx and our own vx.* ops; a custom op's domain otherwise
};

void register_kernel(KernelEntry entry);
// The chosen kernel for a node, or nullptr when none supports it.
const KernelEntry* find_kernel(const Node& node, const Graph& graph);
// The reference (priority 0) kernel for an op, or nullptr; tests compare fast paths against it.
const KernelEntry* find_reference_kernel(const std::string& op, const std::string& domain = "");
std::vector<std::string> registered_ops();
// Every kernel of an op, highest priority first (the reference one last); the op table lists the
// ops with fast paths from it.
std::vector<const KernelEntry*> find_kernels(const std::string& op, const std::string& domain = "");

// Static registration from a kernel's .cpp file:
//   VX_REGISTER_CPU_KERNEL(relu, {"Relu", "reference", 0, nullptr, relu_kernel});
// The library is linked as a whole archive so these registrations are never dropped.
#define VX_REGISTER_CPU_KERNEL(tag, ...) \
  static const bool vx_cpu_kernel_registered_##tag = (::vx::cpu::register_kernel(::vx::cpu::KernelEntry __VA_ARGS__), true)

}  // namespace vx::cpu

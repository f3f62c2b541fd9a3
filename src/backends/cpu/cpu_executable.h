// Runs a Plan on the CPU: one kernel per node from the CPU kernel registry (fast variants first,
// reference otherwise), activations in one arena allocated once, graph outputs freshly allocated
// per run and handed to the caller.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/cpu/kernel_registry.h"
#include "core/tensor.h"
#include "core/thread_pool.h"
#include "plan/plan.h"
#include "runtime/profile.h"
#include "runtime/value_table.h"

namespace vx::cpu {

struct CpuOptions {
  bool reference_only = false;  // use only the reference kernels (tests, debugging)
  ThreadPool* pool = nullptr;   // null: ThreadPool::global(); its size also sets oneDNN's threads
};

// The kernel the CPU backend picks for a node (nullptr when none), honouring reference_only.
const KernelEntry* choose_kernel(const Node& node, const Graph& graph, bool reference_only);
// make_plan with the CPU backend's kernel variants recorded.
Plan make_cpu_plan(const Graph& graph, const std::map<std::string, Shape>& input_shapes, bool reference_only = false);

class CpuExecutable {
 public:
  // Picks a kernel for every node (throws Unsupported naming the node and op when none fits) and
  // allocates the arena (throws OutOfMemory when it cannot).
  explicit CpuExecutable(Plan plan, CpuOptions options = {});

  // Inputs in the order of the graph's inputs, with the dtypes and shapes the plan was made for
  // (InvalidArgument otherwise). Returns the graph outputs in order. Runs are serialised.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, Profile* profile = nullptr);
  // The same, writing into `outputs` where an entry already has the output's dtype and shape (a
  // buffer the caller reuses across runs: fresh large allocations are slow to fault in); other
  // entries are replaced by new tensors. `outputs` is resized to the number of graph outputs.
  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, Profile* profile = nullptr);
  // The same, with each step's milliseconds in step_ms (resized to the steps): a profile's times
  // without its names, for a caller that runs often and only adds the times up.
  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, std::vector<double>& step_ms);

  const Plan& plan() const { return plan_; }
  size_t arena_bytes() const { return plan_.arena_bytes; }

 private:
  Plan plan_;
  CpuOptions options_;
  std::vector<KernelFn> kernels_;             // per step
  std::vector<std::vector<ValueId>> release_;  // per step: values read for the last time
  runtime::ValueTable values_;    // the runs' values (runtime/value_table.h)
  runtime::ValueTable provided_;  // per value: a caller's output buffer during a run
  std::unique_ptr<uint8_t, void (*)(void*)> arena_{nullptr, nullptr};
  std::mutex run_mutex_;

  void run_steps(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, Profile* profile,
                 std::vector<double>* step_ms);
};

}  // namespace vx::cpu

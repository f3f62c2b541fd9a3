// The convenience session over the CPU backend: optimises a graph once, then plans and compiles
// it per set of input shapes (kept in an LRU cache) and runs it.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/cpu/cpu_executable.h"
#include "core/graph.h"
#include "core/thread_pool.h"
#include "plan/plan_cache.h"
#include "runtime/memory_limit.h"
#include "runtime/profile.h"

namespace vx {

struct RunnerOptions {
  bool optimize = true;         // run optimize_for_inference once
  bool reference_only = false;  // CPU reference kernels only
  size_t plan_cache_capacity = 8;
  int threads = 0;              // > 0: a private pool of that many threads; else the global pool
  // > 0: a plan whose activation arena exceeds this many MiB is refused (OutOfMemory, before the
  // arena is allocated; check_memory_limit). 0: no limit.
  uint64_t max_memory_mb = 0;
};

class GraphRunner {
 public:
  GraphRunner(Graph graph, RunnerOptions options = {});

  // Inputs in the order of the graph's inputs; their shapes select (or make) the plan.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, Profile* profile = nullptr);
  // Writes into the caller's reusable output buffers where they fit (CpuExecutable::run).
  void run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, Profile* profile = nullptr);

  const Graph& graph() const { return graph_; }  // after optimisation
  // The executable for these input shapes (planned now if new).
  std::shared_ptr<cpu::CpuExecutable> executable(const std::map<std::string, Shape>& input_shapes);
  const ShapeLruCache<cpu::CpuExecutable>& cache() const { return cache_; }
  // Applies to later runs, cached plans included.
  void set_max_memory_mb(uint64_t mb);
  uint64_t max_memory_mb() const;
  // The arena of the plan the last executable() call asked for, also when the limit refused it.
  MemoryNeeds last_memory_needs() const;

 private:
  Graph graph_;
  RunnerOptions options_;
  std::unique_ptr<ThreadPool> pool_;
  // run() may be called from several threads; each executable serialises its runs.
  mutable std::mutex cache_mutex_;
  ShapeLruCache<cpu::CpuExecutable> cache_;
  MemoryNeeds last_needs_;  // under cache_mutex_
};

}  // namespace vx

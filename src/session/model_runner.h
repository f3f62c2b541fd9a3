// The library's entry point for running an imported (ONNX) model on the CPU: the CPU compute
// device (backends/cpu/cpu_device.h) through the scheduler, like any other device
// (DeviceModelRunner: the device's graph passes once, one executable per set of input shapes, LRU;
// on the CPU an executable is the whole graph planned into one arena). When that fails for a set
// of input shapes (an op the planner cannot handle, a kernel that declines the planned graph) that
// set falls back to the eager runner; the reason is kept. Errors in the run itself are not retried.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"
#include "runtime/profile.h"
#include "runtime/scheduled_executable.h"
#include "session/device_model_runner.h"

namespace vx {

struct ModelRunnerOptions {
  bool optimize = true;       // run the CPU device's graph passes (optimize_onnx) once
  bool planned = true;        // false: always the eager runner
  bool reference_only = false;
  int threads = 0;            // > 0: a private pool of that many threads
  size_t plan_cache_capacity = 8;
  // > 0: refuse (OutOfMemory) a plan whose activation arena exceeds this many MiB, before
  // allocating it. The eager runner cannot be bounded, so with a limit set a model that cannot be
  // planned is refused too (Unsupported) instead of silently running eagerly. 0: no limit.
  uint64_t max_memory_mb = 0;
};

class ModelRunner {
 public:
  explicit ModelRunner(Graph graph, ModelRunnerOptions options = {});

  // Inputs in the order of graph().inputs. `profile` (planned runs only) gets per-node timings
  // and kernel variants ("cpu:<variant>"); an eager run leaves it with one entry for the whole graph.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, Profile* profile = nullptr);

  const Graph& graph() const { return runner_.graph(); }
  // How the last run went: planned, or eager with the reason planning failed.
  bool last_run_planned() const { return last_planned_; }
  const std::string& fallback_reason() const { return last_reason_; }
  // Applies from the next run (plans made under another limit included).
  void set_max_memory_mb(uint64_t mb) { runner_.set_max_memory_mb(mb); }
  // The activation arena the last run's plan needs (also when the limit refused it); 0 before a
  // planned run.
  uint64_t last_arena_bytes() { return runner_.last_memory_needs().arena_bytes; }
  // The executable of the last planned run (null before one).
  std::shared_ptr<runtime::ScheduledExecutable> last_executable() const { return last_executable_; }
  const ShapeLruCache<runtime::ScheduledExecutable>& cache() const { return runner_.cache(); }

 private:
  bool planned_;
  DeviceModelRunner runner_;
  std::map<std::string, std::string> planning_failures_;  // shape key -> reason
  bool last_planned_ = false;
  std::string last_reason_;
  std::shared_ptr<runtime::ScheduledExecutable> last_executable_;
};

// One-shot convenience: ModelRunner(graph).run(inputs).
std::vector<Tensor> run_model(const Graph& graph, const std::vector<Tensor>& inputs);

}  // namespace vx

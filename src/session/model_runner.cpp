#include "session/model_runner.h"

#include <chrono>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/eager_runner.h"
#include "core/error.h"
#include "plan/plan.h"

namespace vx {
namespace {

std::shared_ptr<const runtime::ComputeDevice> cpu_device(int threads) {
  return threads > 0 ? cpu::make_cpu_compute_device(threads) : cpu::cpu_compute_device();
}

DeviceRunnerOptions device_runner_options(const ModelRunnerOptions& o) {
  DeviceRunnerOptions r;
  r.optimize = o.optimize;
  r.kernels = o.reference_only ? "reference" : "auto";
  r.plan_cache_capacity = o.plan_cache_capacity;
  r.max_memory_mb = o.max_memory_mb;
  return r;
}

}  // namespace

ModelRunner::ModelRunner(Graph graph, ModelRunnerOptions options)
    : planned_(options.planned),
      runner_(cpu_device(options.threads), std::move(graph), device_runner_options(options)) {}

std::vector<Tensor> ModelRunner::run(const std::vector<Tensor>& inputs, Profile* profile) {
  const Graph& g = runner_.graph();
  const uint64_t max_memory_mb = runner_.max_memory_mb();
  std::shared_ptr<runtime::ScheduledExecutable> executable;
  std::string reason = planned_ ? "" : "planning disabled";
  bool inputs_usable = true;
  if (planned_) {
    // Bad inputs are reported by the eager runner's checks, which name the input.
    inputs_usable = inputs.size() == g.inputs.size();
    std::map<std::string, Shape> shapes;
    for (size_t i = 0; inputs_usable && i < inputs.size(); ++i) {
      if (!inputs[i].defined() || inputs[i].dtype() != g.value(g.inputs[i]).dtype) inputs_usable = false;
      else shapes[g.value(g.inputs[i]).name] = inputs[i].shape();
    }
    if (!inputs_usable) {
      reason = "inputs do not match the graph";
    } else {
      const std::string key = shape_key(shapes);
      auto failed = planning_failures_.find(key);
      if (failed != planning_failures_.end()) {
        reason = failed->second;
      } else {
        try {
          executable = runner_.executable(inputs);
        } catch (const Error& e) {
          // Over the limit: the eager runner would need at least as much, so it is no way out.
          if (e.code() == ErrorCode::OutOfMemory && max_memory_mb > 0) throw;
          reason = e.what();
          planning_failures_[key] = reason;
        }
      }
    }
  }
  // The eager runner allocates as it goes, unbounded: with a limit set it is refused, not a
  // silent way around the limit (bad inputs still get the eager runner's error naming them).
  VX_CHECK(executable != nullptr || !inputs_usable || max_memory_mb == 0, Unsupported, "maxMemoryMB is set (",
           max_memory_mb, " MB) but this model cannot be planned for these inputs, and the eager runner ",
           "cannot bound its memory: ", reason);
  last_planned_ = executable != nullptr;
  last_reason_ = reason;
  if (executable) {
    last_executable_ = executable;
    return executable->run(inputs, profile);
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<Tensor> outputs = run_graph_eager(g, inputs);
  if (profile) {
    const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start;
    profile->entries = {{"(whole graph)", "eager", "eager", ms.count()}};
  }
  return outputs;
}

std::vector<Tensor> run_model(const Graph& graph, const std::vector<Tensor>& inputs) {
  return ModelRunner(graph).run(inputs);
}

}  // namespace vx

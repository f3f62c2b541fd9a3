// A model as the C API holds it: the imported graph and the runner for the device it was loaded on
// (the CPU's ModelRunner, or the Vulkan model runner on a Vulkan device).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"
#include "denoise/filter.h"
#include "runtime/profile.h"
#include "runtime/scheduled_executable.h"

namespace vx::api {

class ModelSession {
 public:
  virtual ~ModelSession() = default;
  // The graph as it runs (optimised); inputs and outputs keep the model's names and order.
  virtual const Graph& graph() const = 0;
  virtual void set_precision(std::optional<Precision> precision) = 0;
  // 0: no limit (runtime/memory_limit.h).
  virtual void set_max_memory_mb(uint64_t mb) = 0;
  // Per-node times in run()'s profile from the next run (on a GPU: timestamps, so the plans are
  // made again when this changes).
  virtual void set_profiling(bool on) = 0;
  virtual std::vector<Tensor> run(const std::vector<Tensor>& inputs) = 0;
  // IO binding (runtime::ScheduledExecutable::run): the named inputs are placeholders read from
  // device buffers, the named outputs are written to theirs. Unsupported on the CPU. `profile`
  // (optional) gets the run's per-node times while profiling is on.
  virtual std::vector<Tensor> run(const std::vector<Tensor>& inputs,
                                  const std::vector<runtime::ScheduledExecutable::NamedDeviceValue>& device_values,
                                  Profile* profile = nullptr) = 0;
};

std::unique_ptr<ModelSession> make_model_session(std::shared_ptr<denoise::Device> device, Graph graph);

}  // namespace vx::api

// Runs an imported ONNX model on a compute device (runtime/device.h): optimises the graph once with
// the device's passes, then, per set of input shapes (kept in an LRU cache), binds it and
// schedules it on the device's backend with the CPU as host backend (scheduled_executable.h):
// nodes the device does not run fall back to the CPU (see the executable's placements()).
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"
#include "plan/plan_cache.h"
#include "runtime/device.h"
#include "runtime/profile.h"
#include "runtime/scheduled_executable.h"
#include "runtime/timestamps.h"

namespace vx {

struct DeviceRunnerOptions {
  Precision precision = Precision::fp32;  // fp16: the device must have fp16_available()
  runtime::Timestamps timestamps = runtime::Timestamps::none;  // per_node: per-node device times in run()'s profile
  bool optimize = true;     // run the device's graph passes once
  std::string kernels = "auto";  // the device's kernel choice (runtime::ExecutableOptions::kernels)
  size_t plan_cache_capacity = 8;
  // > 0: refuse (OutOfMemory, before any device allocation) an executable whose activation arena
  // plus constants and staging buffers exceed this many MiB. 0: no limit. Nodes that fall back to
  // the CPU use host tensors, which this does not count.
  uint64_t max_memory_mb = 0;
};

// `graph` bound to `input_shapes` and scheduled on `device`'s backend, with the CPU as host
// backend (unless the device is the CPU). `sample_inputs` (optional, graph input order) serve to
// observe the shapes shape inference cannot tell (bind_graph.h).
std::unique_ptr<runtime::ScheduledExecutable> make_executable(const std::shared_ptr<const runtime::ComputeDevice>& device,
                                                              const Graph& graph,
                                                              const std::map<std::string, Shape>& input_shapes,
                                                              const runtime::ExecutableOptions& options = {},
                                                              const std::vector<Tensor>* sample_inputs = nullptr);

// Whether an input of `graph` leaves a dimension open: a runner then keeps the imported graph and
// runs the device's passes again for each input shape (DeviceModelRunner::graph()).
bool has_open_input(const Graph& graph);

class DeviceModelRunner {
 public:
  DeviceModelRunner(std::shared_ptr<const runtime::ComputeDevice> device, Graph graph,
                    DeviceRunnerOptions options = {});

  // Inputs in graph input order (dtypes as declared); their shapes select (or build) the executable.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, Profile* profile = nullptr);
  // With IO binding (ScheduledExecutable::run): inputs named in `device_values` are placeholders
  // (Tensor::wrap(dtype, shape, nullptr)) read from their device buffers; outputs named there are
  // written to theirs and come back as placeholders.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, Profile* profile,
                          const std::vector<runtime::ScheduledExecutable::NamedDeviceValue>& device_values);
  // The executable for these inputs' shapes (built now if new; the inputs also serve to observe
  // shapes that shape inference cannot tell).
  std::shared_ptr<runtime::ScheduledExecutable> executable(const std::vector<Tensor>& inputs);

  // The graph after the device's passes, for every input shape. Where inputs have dimensions the
  // model leaves open, each executable runs those passes again on the imported graph with its input
  // shapes declared (fusions that need known shapes then apply: a residual Add into its
  // convolution), so its bound graph may hold fewer nodes than this one.
  const Graph& graph() const { return graph_; }
  // Applies from the next run (executables built under another limit included).
  void set_max_memory_mb(uint64_t mb);
  uint64_t max_memory_mb();
  // What the last run's executable needs on the device (also when the limit refused it).
  MemoryNeeds last_memory_needs();
  std::shared_ptr<runtime::ScheduledExecutable> last_executable() const { return last_; }
  const ShapeLruCache<runtime::ScheduledExecutable>& cache() const { return cache_; }

 private:
  std::shared_ptr<runtime::ScheduledExecutable> build(const std::vector<Tensor>& inputs,
                                                   const std::map<std::string, Shape>& shapes);
  void set_last_needs(const MemoryNeeds& needs);
  Graph specialized(const std::map<std::string, Shape>& shapes) const;
  std::shared_ptr<const runtime::ComputeDevice> device_;
  Graph graph_;
  std::optional<Graph> imported_;  // before the passes, kept where an input's shape is open
  DeviceRunnerOptions options_;
  std::mutex mutex_;
  ShapeLruCache<runtime::ScheduledExecutable> cache_;
  std::shared_ptr<runtime::ScheduledExecutable> last_;
  std::mutex needs_mutex_;  // build() also runs outside mutex_ (the data-dependent rebuild)
  MemoryNeeds last_needs_;
};

}  // namespace vx

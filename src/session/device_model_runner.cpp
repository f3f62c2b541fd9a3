#include "session/device_model_runner.h"

#include <algorithm>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/eager_runner.h"
#include "core/error.h"
#include "runtime/bind_graph.h"

namespace vx {

std::unique_ptr<runtime::ScheduledExecutable> make_executable(const std::shared_ptr<const runtime::ComputeDevice>& device,
                                                              const Graph& graph,
                                                              const std::map<std::string, Shape>& input_shapes,
                                                              const runtime::ExecutableOptions& options,
                                                              const std::vector<Tensor>* sample_inputs) {
  VX_CHECK(device != nullptr, InvalidArgument, "null device");
  std::vector<std::unique_ptr<runtime::Backend>> backends;
  backends.push_back(device->make_backend(options));  // checks the options first
  if (!device->on_host()) backends.push_back(std::make_unique<cpu::CpuBackend>());
  // A host device needs no shapes observed in advance: its executable allocates a value of
  // data-dependent shape when it is made (cpu_executable.h).
  if (device->on_host()) sample_inputs = nullptr;
  runtime::BoundGraph bound = runtime::bind_graph(graph, input_shapes, sample_inputs, run_graph_eager);
  return std::make_unique<runtime::ScheduledExecutable>(std::move(bound), std::move(backends));
}

DeviceModelRunner::DeviceModelRunner(std::shared_ptr<const runtime::ComputeDevice> device, Graph graph,
                                     DeviceRunnerOptions options)
    : device_(std::move(device)), graph_(std::move(graph)), options_(options), cache_(options.plan_cache_capacity) {
  VX_CHECK(device_ != nullptr, InvalidArgument, "null device");
  graph_.validate();
  if (!options_.optimize) return;
  if (has_open_input(graph_)) imported_ = graph_;
  device_->optimize(graph_);
}

bool has_open_input(const Graph& graph) {
  return std::any_of(graph.inputs.begin(), graph.inputs.end(),
                     [&](ValueId id) { return !graph.value(id).shape.is_known(); });
}

// The imported graph with these input shapes declared, through the device's passes.
Graph DeviceModelRunner::specialized(const std::map<std::string, Shape>& shapes) const {
  Graph g = *imported_;
  for (ValueId id : g.inputs)
    if (auto it = shapes.find(g.value(id).name); it != shapes.end()) g.value(id).shape = it->second;
  device_->optimize(g);
  return g;
}

std::shared_ptr<runtime::ScheduledExecutable> DeviceModelRunner::build(const std::vector<Tensor>& inputs,
                                                                    const std::map<std::string, Shape>& shapes) {
  runtime::ExecutableOptions o;
  o.precision = options_.precision;
  o.timestamps = options_.timestamps;
  o.kernels = options_.kernels;
  o.max_memory_mb = options_.max_memory_mb;
  MemoryNeeds needs;
  o.needs = &needs;
  // Placeholders of device-bound inputs have no values to observe shapes on.
  const bool all_on_host =
      std::all_of(inputs.begin(), inputs.end(), [](const Tensor& t) { return t.raw() != nullptr || t.numel() == 0; });
  try {
    const std::vector<Tensor>* samples = all_on_host ? &inputs : nullptr;
    return make_executable(device_, imported_ ? specialized(shapes) : graph_, shapes, o, samples);
  } catch (...) {
    // What a refused plan needed (zero when planning failed before that); a built executable's
    // needs are recorded by its caller, which may also have found one in the cache.
    set_last_needs(needs);
    throw;
  }
}

void DeviceModelRunner::set_last_needs(const MemoryNeeds& needs) {
  std::lock_guard<std::mutex> lock(needs_mutex_);
  last_needs_ = needs;
}

void DeviceModelRunner::set_max_memory_mb(uint64_t mb) {
  std::lock_guard<std::mutex> lock(mutex_);
  options_.max_memory_mb = mb;
}

uint64_t DeviceModelRunner::max_memory_mb() {
  std::lock_guard<std::mutex> lock(mutex_);
  return options_.max_memory_mb;
}

MemoryNeeds DeviceModelRunner::last_memory_needs() {
  std::lock_guard<std::mutex> lock(needs_mutex_);
  return last_needs_;
}

std::shared_ptr<runtime::ScheduledExecutable> DeviceModelRunner::executable(const std::vector<Tensor>& inputs) {
  VX_CHECK(inputs.size() == graph_.inputs.size(), InvalidArgument, "the model has ", graph_.inputs.size(),
           " inputs but ", inputs.size(), " were given");
  std::map<std::string, Shape> shapes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = graph_.value(graph_.inputs[i]);
    VX_CHECK(inputs[i].defined(), InvalidArgument, "input '", v.name, "' is empty");
    VX_CHECK(inputs[i].dtype() == v.dtype, InvalidArgument, "input '", v.name, "' must be ", dtype_name(v.dtype),
             ", not ", dtype_name(inputs[i].dtype()));
    shapes[v.name] = inputs[i].shape();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  std::shared_ptr<runtime::ScheduledExecutable> exe = cache_.get_or_create(shapes, [&] { return build(inputs, shapes); });
  set_last_needs(exe->memory_needs());
  // An executable built under a higher limit (or none).
  check_memory_limit(exe->memory_needs(), options_.max_memory_mb, shapes);
  return exe;
}

std::vector<Tensor> DeviceModelRunner::run(const std::vector<Tensor>& inputs, Profile* profile) {
  return run(inputs, profile, {});
}

std::vector<Tensor> DeviceModelRunner::run(const std::vector<Tensor>& inputs, Profile* profile,
                                           const std::vector<runtime::ScheduledExecutable::NamedDeviceValue>& device_values) {
  std::shared_ptr<runtime::ScheduledExecutable> exe = executable(inputs);
  last_ = exe;
  try {
    return exe->run(inputs, profile, device_values);
  } catch (const runtime::ShapeChanged&) {
    // Shapes observed on the first inputs no longer hold (a data-dependent op): rebuild for these.
    std::map<std::string, Shape> shapes;
    for (size_t i = 0; i < inputs.size(); ++i) shapes[graph_.value(graph_.inputs[i]).name] = inputs[i].shape();
    exe = build(inputs, shapes);
    set_last_needs(exe->memory_needs());  // the rebuilt executable replaces the one executable() recorded
    {
      std::lock_guard<std::mutex> lock(mutex_);
      cache_.insert(shapes, exe);
    }
    last_ = exe;
    return exe->run(inputs, profile, device_values);
  }
}

}  // namespace vx

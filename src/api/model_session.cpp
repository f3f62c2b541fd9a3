#include "api/model_session.h"

#include <optional>

#include "session/device_model_runner.h"
#include "session/model_runner.h"

namespace vx::api {
namespace {

class CpuModelSession final : public ModelSession {
 public:
  explicit CpuModelSession(Graph graph) : runner_(std::move(graph)) {}
  const Graph& graph() const override { return runner_.graph(); }
  void set_precision(std::optional<Precision> precision) override {
    VX_CHECK(precision != Precision::fp16, Unsupported,
             "fp16 is supported on the vulkan device only; the cpu device computes in fp32");
  }
  void set_max_memory_mb(uint64_t mb) override { runner_.set_max_memory_mb(mb); }
  void set_profiling(bool on) override { profiling_ = on; }
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) override { return runner_.run(inputs); }
  std::vector<Tensor> run(const std::vector<Tensor>& inputs,
                          const std::vector<runtime::ScheduledExecutable::NamedDeviceValue>& device_values,
                          Profile* profile) override {
    VX_CHECK(device_values.empty(), Unsupported, "'", device_values.empty() ? "" : device_values[0].name,
             "' is bound to a Vulkan buffer, but the model runs on the cpu device");
    // The host clock times each node; nothing to set up beforehand.
    return runner_.run(inputs, profiling_ ? profile : nullptr);
  }

 private:
  ModelRunner runner_;
  bool profiling_ = false;
};

// On a device (a Vulkan GPU): one runner per precision (made on first use), so switching precision
// keeps the plans of the other.
class DeviceModelSession final : public ModelSession {
 public:
  DeviceModelSession(std::shared_ptr<const runtime::ComputeDevice> device, Graph graph)
      : device_(std::move(device)), graph_(std::move(graph)) {
    // Where an input's shape is open the runners get the imported graph and optimise it once per
    // input shape (DeviceModelRunner), as `volvox run` and `volvox bench` do; else the graph
    // optimised here.
    if (has_open_input(graph_)) imported_ = graph_;
    // The graph as the runners optimise it, for graph() (names and order of inputs and outputs).
    device_->optimize(graph_);
  }
  const Graph& graph() const override { return graph_; }
  void set_precision(std::optional<Precision> precision) override {
    if (precision == Precision::fp16)
      VX_CHECK(device_->fp16_available(), Unsupported, "device '", device_->name(),
               "' lacks fp16 arithmetic or 16-bit storage: use fp32");
    // Automatic is fp32: a model's answers should not change with the device unless asked.
    precision_ = precision.value_or(Precision::fp32);
  }
  void set_max_memory_mb(uint64_t mb) override {
    max_memory_mb_ = mb;
    for (auto& runner : runners_)
      if (runner) runner->set_max_memory_mb(mb);
  }
  void set_profiling(bool on) override {
    if (on == profiling_) return;
    // GPU timestamps are recorded into the command buffers: executables made without them cannot
    // be timed, so the runners start afresh.
    profiling_ = on;
    for (auto& runner : runners_) runner.reset();
  }
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) override { return run(inputs, {}, nullptr); }
  std::vector<Tensor> run(const std::vector<Tensor>& inputs,
                          const std::vector<runtime::ScheduledExecutable::NamedDeviceValue>& device_values,
                          Profile* profile) override {
    auto& runner = runners_[size_t(precision_)];
    if (!runner) {
      DeviceRunnerOptions options;
      options.precision = precision_;
      options.optimize = imported_.has_value();  // else done once in the constructor
      options.max_memory_mb = max_memory_mb_;
      options.timestamps = profiling_ ? runtime::Timestamps::per_node : runtime::Timestamps::none;
      runner = std::make_unique<DeviceModelRunner>(device_, imported_ ? *imported_ : graph_, options);
    }
    return runner->run(inputs, profiling_ ? profile : nullptr, device_values);
  }

 private:
  std::shared_ptr<const runtime::ComputeDevice> device_;
  Graph graph_;
  std::optional<Graph> imported_;  // before the passes, kept where an input's shape is open
  Precision precision_ = Precision::fp32;
  uint64_t max_memory_mb_ = 0;
  bool profiling_ = false;
  std::unique_ptr<DeviceModelRunner> runners_[2];  // by Precision: fp32, fp16
};

}  // namespace

std::unique_ptr<ModelSession> make_model_session(std::shared_ptr<denoise::Device> device, Graph graph) {
  VX_CHECK(device != nullptr, InvalidArgument, "null device");
  std::shared_ptr<const runtime::ComputeDevice> compute = device->compute_device();
  // On the CPU the planned executor (one arena for every activation) runs the whole graph.
  if (compute->on_host()) return std::make_unique<CpuModelSession>(std::move(graph));
  return std::make_unique<DeviceModelSession>(std::move(compute), std::move(graph));
}

}  // namespace vx::api

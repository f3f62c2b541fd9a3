#include "denoise/compute_network.h"

#include "core/error.h"
#include "session/device_model_runner.h"

namespace vx::denoise {

namespace {
constexpr size_t kExecutableCacheCapacity = 4;
}

runtime::ExecutableOptions network_options(const runtime::ComputeDevice& device, const NetworkOptions& options) {
  const std::optional<Precision>& precision = options.precision;
  VX_CHECK(precision != Precision::fp16 || device.fp16_available(), Unsupported, "device '", device.name(),
           "' lacks fp16 arithmetic or 16-bit storage buffers: use --precision fp32 (or auto)");
  runtime::ExecutableOptions o;
  o.precision = precision.value_or(device.fp16_available() ? Precision::fp16 : Precision::fp32);
  o.kernels = options.kernels.empty() ? "auto" : options.kernels;
  o.fast_math = options.fast_math;
  o.timestamps = runtime::Timestamps::per_node;
  return o;
}

std::string network_name(const runtime::ComputeDevice& device, const runtime::ExecutableOptions& options) {
  return cat(device.name(), ", ", precision_name(options.precision));
}

ComputeNetwork::ComputeNetwork(std::shared_ptr<const runtime::ComputeDevice> device, Graph unet_graph,
                               runtime::ExecutableOptions options, std::string device_name)
    : device_(std::move(device)),
      graph_(std::move(unet_graph)),
      options_(std::move(options)),
      device_name_(std::move(device_name)),
      cache_(kExecutableCacheCapacity) {
  VX_CHECK(device_ != nullptr, InvalidArgument, "null device");
  VX_CHECK(graph_.inputs.size() == 1 && graph_.outputs.size() == 1, InvalidArgument,
           "the U-Net graph must have one input and one output");
  // A limit would make the cache refuse shapes; the filter sizes its tiles to its own limit.
  options_.max_memory_mb = 0;
  options_.needs = nullptr;
}

std::shared_ptr<runtime::ScheduledExecutable> ComputeNetwork::executable_locked(int height, int width) {
  const Value& input = graph_.value(graph_.inputs[0]);
  const std::map<std::string, Shape> shapes{{input.name, Shape{1, input.shape[1], height, width}}};
  return cache_.get_or_create(shapes, [&] { return make_executable(device_, graph_, shapes, options_); });
}

Tensor ComputeNetwork::run(const Tensor& input, std::vector<LayerTiming>* profile) {
  const int64_t channels = graph_.value(graph_.inputs[0]).shape[1];
  VX_CHECK(input.rank() == 4 && input.dim(0) == 1 && input.dim(1) == channels, InvalidArgument, "network input ",
           input.shape().str(), " is not [1, ", channels, ", H, W]");
  std::lock_guard<std::mutex> lock(mutex_);
  std::shared_ptr<runtime::ScheduledExecutable> exe = executable_locked(int(input.dim(2)), int(input.dim(3)));
  Profile p;
  Tensor out = exe->run({input}, profile ? &p : nullptr).at(0);
  if (profile) {
    const std::vector<runtime::NodePlacement>& placements = exe->placements();
    for (size_t n = 0; n < p.entries.size() && n < placements.size(); ++n)
      profile->push_back({p.entries[n].node, p.entries[n].op, placements[n].variant, p.entries[n].milliseconds});
  }
  return out;
}

size_t ComputeNetwork::arena_bytes(int height, int width) {
  std::lock_guard<std::mutex> lock(mutex_);
  return size_t(executable_locked(height, width)->memory_needs().arena_bytes);
}

size_t ComputeNetwork::sum_activation_bytes(int height, int width) {
  std::lock_guard<std::mutex> lock(mutex_);
  return size_t(executable_locked(height, width)->memory_needs().sum_activation_bytes);
}

}  // namespace vx::denoise

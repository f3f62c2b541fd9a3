// The Vulkan device of the filter. The graph is optimised (fused) once per network; each tile shape
// gets its own VulkanGraphExecutable (planning, weight upload, pipelines, recorded command buffers),
// kept in a small LRU cache because the filter uses at most a couple of tile shapes per image.
#include "denoise/vulkan_device.h"

#include <algorithm>
#include <mutex>

#include "backends/vulkan/context.h"
#include "backends/vulkan/graph_executable.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "core/error.h"
#include "denoise/vulkan_image_runner.h"
#include "passes/optimize.h"
#include "plan/plan_cache.h"

namespace vx::denoise {

namespace {

constexpr size_t kExecutableCacheCapacity = 4;

// What every network of a device shares: the context, and a lock because the executables and
// image runners are not safe to use from several threads at once (submissions to the queue take
// the context's queue lock, shared with the ONNX models on this device).
struct VulkanShared {
  std::unique_ptr<vk::VulkanContext> context;
  bool device_processing = true;
  std::mutex mutex;
};

class VulkanNetwork final : public TileNetwork {
 public:
  VulkanNetwork(std::shared_ptr<VulkanShared> shared, Graph graph, vk::Precision precision, std::string kernels,
                std::string device_name)
      : shared_(std::move(shared)),
        graph_(std::move(graph)),
        precision_(precision),
        kernels_(std::move(kernels)),
        device_name_(std::move(device_name)),
        cache_(kExecutableCacheCapacity) {
    VX_CHECK(graph_.inputs.size() == 1 && graph_.outputs.size() == 1, InvalidArgument,
             "the U-Net graph must have one input and one output");
  }

  Tensor run(const Tensor& input, std::vector<LayerTiming>* profile) override {
    VX_CHECK(input.rank() == 4 && input.dim(0) == 1 && input.dim(1) == channels(), InvalidArgument,
             "network input ", input.shape().str(), " is not [1, ", channels(), ", H, W]");
    std::lock_guard<std::mutex> lock(shared_->mutex);
    vk::VulkanGraphExecutable& exe = *executable_locked(int(input.dim(2)), int(input.dim(3)));
    Tensor out = exe.run(input);
    if (profile) {
      const auto& timings = exe.last_timings();
      const auto& layers = exe.layers();
      for (size_t i = 0; i < layers.size(); ++i)
        profile->push_back({layers[i].name, "vx.FusedConv", layers[i].kernel, i < timings.size() ? timings[i].ms : 0.0});
    }
    return out;
  }

  size_t arena_bytes(int height, int width) override {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    return size_t(executable_locked(height, width)->arena_bytes());
  }

  // Every activation (the input and each layer's output) in the device layout: NHWC with channels
  // padded to blocks of 4, in the storage precision.
  size_t sum_activation_bytes(int height, int width) override {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    const vk::VulkanGraphExecutable& exe = *executable_locked(height, width);
    const size_t element = precision_ == vk::Precision::fp16 ? 2 : 4;
    const Shape& in = exe.input_shape();
    size_t total = size_t(in[2]) * size_t(in[3]) * size_t((in[1] + 3) / 4 * 4) * element;
    for (const vk::LayerInfo& l : exe.layers())
      total += size_t(l.desc.out_height()) * size_t(l.desc.out_width()) * size_t(l.desc.cout4() * 4) * element;
    return total;
  }

  std::string device_name() const override { return device_name_; }

  bool run_image(const ImageJob& job, ImageJobResult& result) override {
    if (!shared_->device_processing) return false;
    std::lock_guard<std::mutex> lock(shared_->mutex);
    if (!runner_) runner_ = std::make_unique<VulkanImageRunner>(*shared_->context, precision_, device_name_);
    return runner_->run(job, result, [&](int height, int width) { return executable_locked(height, width); });
  }

 private:
  int64_t channels() const { return graph_.value(graph_.inputs[0]).shape[1]; }

  std::shared_ptr<vk::VulkanGraphExecutable> executable_locked(int height, int width) {
    const Shape shape{1, channels(), height, width};
    return cache_.get_or_create({{"input", shape}}, [&] {
      vk::ExecutableOptions o;
      o.precision = precision_;
      o.kernels = kernels_;
      o.timestamps = true;  // a handful of queries per tile: cheap, and --profile needs them
      return std::make_shared<vk::VulkanGraphExecutable>(*shared_->context, graph_, shape, o);
    });
  }

  std::shared_ptr<VulkanShared> shared_;
  Graph graph_;
  vk::Precision precision_;
  std::string kernels_;
  std::string device_name_;
  ShapeLruCache<vk::VulkanGraphExecutable> cache_;
  std::unique_ptr<VulkanImageRunner> runner_;  // the whole-image path, made on first use
};

class VulkanDevice final : public Device {
 public:
  explicit VulkanDevice(std::unique_ptr<vk::VulkanContext> context, bool device_processing = true)
      : shared_(std::make_shared<VulkanShared>()) {
    shared_->context = std::move(context);
    shared_->device_processing = device_processing;
    const vk::DeviceInfo& info = shared_->context->info();
    name_ = cat("vulkan:", info.index, " (", info.name, ")");
  }

  std::string name() const override { return name_; }

  // A discrete GPU has memory of its own: half of its largest device-local heap, at most 16 GB, so
  // that 4K frames run untiled there. Devices sharing the host's memory keep OIDN's CPU default.
  int default_max_memory_mb() const override {
    const vk::DeviceInfo& info = shared_->context->info();
    if (info.type != "discrete") return kDefaultMaxMemoryMB;
    uint64_t heap = 0;
    for (const auto& h : info.heaps)
      if (h.device_local) heap = std::max(heap, h.size);
    return int(std::clamp<uint64_t>(heap / 2 >> 20, kDefaultMaxMemoryMB, 16384));
  }

  std::unique_ptr<TileNetwork> make_network(Graph unet_graph, Precision precision,
                                            const std::string& kernels) override {
    const vk::VulkanContext& ctx = *shared_->context;
    vk::Precision p = vk::Precision::fp32;
    if (precision == Precision::fp16) {
      VX_CHECK(ctx.fp16_enabled(), Unsupported, "Vulkan device '", ctx.info().name,
               "' lacks fp16 arithmetic or 16-bit storage buffers: use --precision fp32 (or auto)");
      p = vk::Precision::fp16;
    } else if (precision == Precision::automatic) {
      p = ctx.fp16_enabled() ? vk::Precision::fp16 : vk::Precision::fp32;
    }
    optimize_for_inference(unet_graph);
    return std::make_unique<VulkanNetwork>(shared_, std::move(unet_graph), p, kernels.empty() ? "auto" : kernels,
                                           cat(name_, ", ", p == vk::Precision::fp16 ? "fp16" : "fp32"));
  }

  const vk::VulkanContext& context() const { return *shared_->context; }
  // Aliases the shared state: the context lives as long as the pointer.
  std::shared_ptr<const vk::VulkanContext> shared_context() const {
    return std::shared_ptr<const vk::VulkanContext>(shared_, shared_->context.get());
  }
  std::shared_ptr<const runtime::ComputeDevice> compute_device() const override {
    return vk::compute_device(shared_context());
  }

 private:
  std::shared_ptr<VulkanShared> shared_;
  std::string name_;
};

}  // namespace

std::shared_ptr<Device> make_vulkan_device(const std::string& kind) { return make_vulkan_device(kind, {}); }

std::shared_ptr<Device> make_vulkan_device(const std::string& kind, const VulkanDeviceOptions& options) {
  vk::ContextOptions co;
  co.validation = options.validation;
  if (kind == "auto") {
    // Only a discrete GPU beats the CPU engine; lavapipe ("cpu") and integrated GPUs do not count.
    int discrete = -1;
    for (const vk::DeviceInfo& d : vk::VulkanContext::list_devices())
      if (d.type == "discrete") {
        discrete = d.index;
        break;
      }
    if (discrete < 0) return nullptr;
    co.device_index = discrete;
  } else {
    co.device_index = vk::parse_vulkan_device(kind);
  }
  return std::make_shared<VulkanDevice>(std::make_unique<vk::VulkanContext>(co), options.device_processing);
}

std::shared_ptr<Device> make_vulkan_device(const VulkanExternalDevice& external) {
  vk::ExternalDevice e;
  e.instance = static_cast<VkInstance>(external.instance);
  e.physical_device = static_cast<VkPhysicalDevice>(external.physical_device);
  e.device = static_cast<VkDevice>(external.device);
  e.queue_family = external.queue_family;
  e.queue_index = external.queue_index;
  e.fp16_features_enabled = external.fp16_features_enabled;
  return std::make_shared<VulkanDevice>(std::make_unique<vk::VulkanContext>(e, vk::ContextOptions{}));
}

std::vector<std::string> vulkan_validation_messages(const Device& device) {
  if (auto* vk = dynamic_cast<const VulkanDevice*>(&device)) return vk->context().validation_messages();
  return {};
}

bool vulkan_fp16_available(const Device& device) {
  auto* vk = dynamic_cast<const VulkanDevice*>(&device);
  return vk && vk->context().fp16_enabled();
}

bool vulkan_validation_enabled(const Device& device) {
  auto* vk = dynamic_cast<const VulkanDevice*>(&device);
  return vk && vk->context().validation_enabled();
}

std::shared_ptr<const vk::VulkanContext> vulkan_context_of(const std::shared_ptr<Device>& device) {
  auto* vk = dynamic_cast<const VulkanDevice*>(device.get());
  return vk ? vk->shared_context() : nullptr;
}

}  // namespace vx::denoise

#include "api/model_session.h"

#include "backends/vulkan/context.h"
#include "denoise/vulkan_device.h"
#include "runtime/model_runner.h"
#include "runtime/vulkan_model_runner.h"

namespace vx::api {
namespace {

class CpuModelSession final : public ModelSession {
 public:
  explicit CpuModelSession(Graph graph) : runner_(std::move(graph)) {}
  const Graph& graph() const override { return runner_.graph(); }
  void set_precision(ModelPrecision precision) override {
    VX_CHECK(precision != ModelPrecision::fp16, Unsupported,
             "fp16 is supported on the vulkan device only; the cpu device computes in fp32");
  }
  void set_max_memory_mb(uint64_t mb) override { runner_.set_max_memory_mb(mb); }
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) override { return runner_.run(inputs); }

 private:
  ModelRunner runner_;
};

// On a Vulkan device: one runner per precision (made on first use), so switching precision keeps
// the plans of the other.
class VulkanModelSession final : public ModelSession {
 public:
  VulkanModelSession(std::shared_ptr<const vk::VulkanContext> ctx, Graph graph)
      : ctx_(std::move(ctx)), graph_(std::move(graph)) {
    // The graph as the runners optimise it, for graph() (names and order of inputs and outputs).
    optimize_for_vulkan(graph_);
  }
  const Graph& graph() const override { return graph_; }
  void set_precision(ModelPrecision precision) override {
    if (precision == ModelPrecision::fp16)
      VX_CHECK(ctx_->fp16_enabled(), Unsupported, "Vulkan device '", ctx_->info().name,
               "' lacks fp16 arithmetic or 16-bit storage: use fp32");
    // Automatic is fp32: a model's answers should not change with the device unless asked.
    precision_ = precision == ModelPrecision::fp16 ? vk::Precision::fp16 : vk::Precision::fp32;
  }
  void set_max_memory_mb(uint64_t mb) override {
    max_memory_mb_ = mb;
    for (auto& runner : runners_)
      if (runner) runner->set_max_memory_mb(mb);
  }
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) override {
    auto& runner = runners_[int(precision_)];
    if (!runner) {
      VulkanRunnerOptions options;
      options.precision = precision_;
      options.optimize = false;  // done once in the constructor
      options.max_memory_mb = max_memory_mb_;
      runner = std::make_unique<VulkanModelRunner>(*ctx_, graph_, options);
    }
    return runner->run(inputs);
  }

 private:
  std::shared_ptr<const vk::VulkanContext> ctx_;
  Graph graph_;
  vk::Precision precision_ = vk::Precision::fp32;
  uint64_t max_memory_mb_ = 0;
  std::unique_ptr<VulkanModelRunner> runners_[2];
};

}  // namespace

std::unique_ptr<ModelSession> make_model_session(std::shared_ptr<denoise::Device> device, Graph graph) {
  VX_CHECK(device != nullptr, InvalidArgument, "null device");
  if (auto ctx = denoise::vulkan_context_of(device))
    return std::make_unique<VulkanModelSession>(std::move(ctx), std::move(graph));
  return std::make_unique<CpuModelSession>(std::move(graph));
}

}  // namespace vx::api

// The Vulkan device as a backend of the scheduler (runtime/backend.h). It has two ways to compile:
//
// A fused conv network (graph_executable.h: the denoiser's U-Net, all vx.FusedConv 3x3 layers) is
// compiled whole by VulkanGraphExecutable: activations NHWC with channels in blocks of 4, a conv
// variant per layer (cooperative matrices where the device has them). The backend picks it when
// the bound graph is such a network and the kernel choice allows it.
//
// Any other graph: supports() plans a node with the first registered Vulkan op whose factory accepts it
// (kernels/op_kernel.h) and checks the plan; compile() lays the backend's segments out on the
// device (segment_executable.h): values in one arena by liveness, constants uploaded once,
// pipelines and descriptor sets created, and each segment recorded once into its own command
// buffer. Device storage follows op_kernel.h: dense row-major, floats f32 (or f16 at
// Precision::fp16), integers and bools int32; conversions happen at the segments' borders.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backends/vulkan/context.h"
#include "backends/vulkan/graph_executable.h"
#include "backends/vulkan/kernels/op_kernel.h"
#include "runtime/backend.h"
#include "runtime/memory_limit.h"
#include "runtime/timestamps.h"

namespace vx::vk {

struct VulkanBackendOptions {
  Precision precision = Precision::fp32;
  runtime::Timestamps timestamps = runtime::Timestamps::none;  // (when the queue supports them)
  // > 0: compile() throws OutOfMemory (check_memory_limit) before allocating any device memory
  // when the arena plus the constants and staging buffers exceed this many MiB.
  uint64_t max_memory_mb = 0;
  // Filled with what the segments need before the limit is checked, so also when it refuses.
  MemoryNeeds* needs = nullptr;
  // "auto": a fused conv network whole when the graph is one (and its layers fit the executor),
  // else the per-op kernels; "ops": the per-op kernels only; otherwise a kernel choice for the
  // layers of a fused conv network (graph_executable.h ExecutableOptions::kernels: "coopmat",
  // "auto,enc_conv0=direct"), which then must be one (InvalidArgument otherwise).
  std::string kernels = "auto";
  bool fast_math = false;  // runtime::ExecutableOptions::fast_math
};

class VulkanBackend final : public runtime::Backend {
 public:
  // Throws Unsupported when fp16 is asked of a device without fp16 arithmetic or 16-bit storage.
  VulkanBackend(const VulkanContext& ctx, VulkanBackendOptions options = {});
  std::string name() const override { return "vulkan"; }
  bool on_host() const override { return false; }
  runtime::NodeSupport supports(const runtime::BoundGraph& bound, size_t node) override;
  std::unique_ptr<runtime::CompiledSegments> compile(const runtime::BoundGraph& bound,
                                                     const std::vector<const runtime::Segment*>& segments) override;

 private:
  enum class Engine { undecided, ops, fused_conv_network };
  void choose_engine(const runtime::BoundGraph& bound);

  const VulkanContext& ctx_;
  VulkanBackendOptions options_;
  Engine engine_ = Engine::undecided;
  std::vector<LayerInfo> layers_;  // per node, when the engine is the fused conv network
  std::vector<OpPlan> plans_;      // per node, from supports(), for the per-op kernels
};

}  // namespace vx::vk

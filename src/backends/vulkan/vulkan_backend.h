// The Vulkan device as a backend of the scheduler (runtime/backend.h) for general (ONNX) graphs.
//
// supports() plans a node with the first registered Vulkan op whose factory accepts it
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
#include "backends/vulkan/kernels/op_kernel.h"
#include "runtime/backend.h"
#include "runtime/memory_limit.h"

namespace vx::vk {

struct VulkanBackendOptions {
  Precision precision = Precision::fp32;
  bool timestamps = false;  // per-node GPU timestamps (when the queue supports them)
  // > 0: compile() throws OutOfMemory (check_memory_limit) before allocating any device memory
  // when the arena plus the constants and staging buffers exceed this many MiB.
  uint64_t max_memory_mb = 0;
  // Filled with what the segments need before the limit is checked, so also when it refuses.
  MemoryNeeds* needs = nullptr;
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
  const VulkanContext& ctx_;
  VulkanBackendOptions options_;
  std::vector<OpPlan> plans_;  // per node, from supports()
};

}  // namespace vx::vk

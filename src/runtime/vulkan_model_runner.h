// Runs an imported ONNX model on a Vulkan device: optimises the graph once for the GPU (dead
// nodes, constant folding, Conv+BatchNormalization folding, the transformer fusions), then, per set
// of input shapes (kept in an LRU cache), binds it and schedules it on the Vulkan backend with the
// CPU as host backend (runtime/scheduled_executable.h): nodes no Vulkan op runs fall back to the
// CPU (see the executable's placements()).
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/vulkan/context.h"
#include "backends/vulkan/vulkan_backend.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "plan/plan_cache.h"
#include "runtime/profile.h"
#include "runtime/scheduled_executable.h"

namespace vx {

struct VulkanRunnerOptions {
  vk::Precision precision = vk::Precision::fp32;
  bool timestamps = false;  // per-node GPU times in run()'s profile
  bool optimize = true;     // run optimize_for_vulkan once
  size_t plan_cache_capacity = 8;
  // > 0: refuse (OutOfMemory, before any device allocation) an executable whose activation arena
  // plus constants and staging buffers exceed this many MiB. 0: no limit. Nodes that fall back to
  // the CPU inside the executable use host tensors, which this does not count.
  uint64_t max_memory_mb = 0;
};

// The passes the Vulkan path runs: remove dead nodes, fold constants, fold BatchNormalization into
// Conv, fuse_conv_bias_relu (Conv + Relu -> vx.FusedConv), fuse_gelu, fuse_layer_norm,
// fuse_attention, untranspose_attention_keys, fold_attention_transposes, fuse_matmul_bias_act and
// fuse_matmul_residual (only when vulkan_runs_fused_matmul()), remove dead nodes.
void optimize_for_vulkan(Graph& graph);
// Whether a Vulkan kernel is registered for vx.FusedMatMul (else optimize_for_vulkan leaves
// MatMul + bias + activation unfused, so that they stay on the GPU).
bool vulkan_runs_fused_matmul();

// `graph` bound to `input_shapes` and scheduled on the Vulkan backend, with the CPU as host
// backend. `sample_inputs` (optional, graph input order) serve to observe the shapes shape
// inference cannot tell (bind_graph.h).
std::unique_ptr<runtime::ScheduledExecutable> make_vulkan_executable(const vk::VulkanContext& ctx, const Graph& graph,
                                                                     const std::map<std::string, Shape>& input_shapes,
                                                                     const vk::VulkanBackendOptions& options = {},
                                                                     const std::vector<Tensor>* sample_inputs = nullptr);

class VulkanModelRunner {
 public:
  // `ctx` must outlive the runner.
  VulkanModelRunner(const vk::VulkanContext& ctx, Graph graph, VulkanRunnerOptions options = {});

  // Inputs in graph input order (dtypes as declared); their shapes select (or build) the executable.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, Profile* profile = nullptr);
  // The executable for these inputs' shapes (built now if new; the inputs also serve to observe
  // shapes that shape inference cannot tell).
  std::shared_ptr<runtime::ScheduledExecutable> executable(const std::vector<Tensor>& inputs);

  const Graph& graph() const { return graph_; }
  // Applies from the next run (executables built under another limit included).
  void set_max_memory_mb(uint64_t mb);
  // What the last run's executable needs on the device (also when the limit refused it).
  MemoryNeeds last_memory_needs();
  std::shared_ptr<runtime::ScheduledExecutable> last_executable() const { return last_; }
  const ShapeLruCache<runtime::ScheduledExecutable>& cache() const { return cache_; }

 private:
  std::shared_ptr<runtime::ScheduledExecutable> build(const std::vector<Tensor>& inputs,
                                                   const std::map<std::string, Shape>& shapes);
  void set_last_needs(const MemoryNeeds& needs);
  const vk::VulkanContext& ctx_;
  Graph graph_;
  VulkanRunnerOptions options_;
  std::mutex mutex_;
  ShapeLruCache<runtime::ScheduledExecutable> cache_;
  std::shared_ptr<runtime::ScheduledExecutable> last_;
  std::mutex needs_mutex_;  // build() also runs outside mutex_ (the data-dependent rebuild)
  MemoryNeeds last_needs_;
};

}  // namespace vx

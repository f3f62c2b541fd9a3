#include "runtime/vulkan_model_runner.h"

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/eager_runner.h"
#include "core/error.h"
#include "ops/fused_ops.h"
#include "passes/fold_attention_transposes.h"
#include "passes/fold_constants.h"
#include "passes/fold_conv_batch_norm.h"
#include "passes/fuse_attention.h"
#include "passes/fuse_conv_bias_relu.h"
#include "passes/fuse_gelu.h"
#include "passes/fuse_layer_norm.h"
#include "passes/fuse_matmul_bias_act.h"
#include "passes/fuse_matmul_residual.h"
#include "passes/remove_dead_nodes.h"
#include "passes/untranspose_attention_keys.h"
#include "runtime/bind_graph.h"

namespace vx {

bool vulkan_runs_fused_matmul() { return !vk::find_ops(kFusedMatMul).empty(); }

void optimize_for_vulkan(Graph& graph) {
  Graph g = remove_dead_nodes(std::move(graph));
  g = fold_constants(std::move(g));
  g = fold_conv_batch_norm(std::move(g));
  g = fuse_conv_bias_relu(std::move(g));  // Conv (+ Relu) -> vx.FusedConv: the ReLU in the GEMM epilogue
  // The transformer fusions, in the CPU path's order (optimize_onnx.cpp): each fused op has a
  // Vulkan kernel, so a decoder layer runs a few dispatches instead of dozens.
  g = fuse_gelu(std::move(g));       // before the MatMul fusion, which takes vx.Gelu as its activation
  g = fuse_layer_norm(std::move(g));
  g = fuse_attention(std::move(g));  // before the MatMul fusion, which would take its MatMuls apart
  g = untranspose_attention_keys(std::move(g));
  g = fold_attention_transposes(std::move(g));  // K's Transpose is a head Transpose once untransposed
  // A vx.FusedMatMul without a Vulkan kernel would run on the CPU (host copies both ways): fuse
  // only once a kernel is registered.
  if (vulkan_runs_fused_matmul()) {
    g = fuse_matmul_bias_act(std::move(g));
    g = fuse_matmul_residual(std::move(g));  // the residual Adds into the GEMM epilogue
  }
  g = remove_dead_nodes(std::move(g));
  g.validate();
  graph = std::move(g);
}

std::unique_ptr<runtime::ScheduledExecutable> make_vulkan_executable(const vk::VulkanContext& ctx, const Graph& graph,
                                                                     const std::map<std::string, Shape>& input_shapes,
                                                                     const vk::VulkanBackendOptions& options,
                                                                     const std::vector<Tensor>* sample_inputs) {
  std::vector<std::unique_ptr<runtime::Backend>> backends;
  backends.push_back(std::make_unique<vk::VulkanBackend>(ctx, options));  // checks the precision first
  backends.push_back(std::make_unique<cpu::CpuBackend>());
  runtime::BoundGraph bound = runtime::bind_graph(graph, input_shapes, sample_inputs, run_graph_eager);
  return std::make_unique<runtime::ScheduledExecutable>(std::move(bound), std::move(backends));
}

VulkanModelRunner::VulkanModelRunner(const vk::VulkanContext& ctx, Graph graph, VulkanRunnerOptions options)
    : ctx_(ctx), graph_(std::move(graph)), options_(options), cache_(options.plan_cache_capacity) {
  graph_.validate();
  if (options_.optimize) optimize_for_vulkan(graph_);
}

std::shared_ptr<runtime::ScheduledExecutable> VulkanModelRunner::build(const std::vector<Tensor>& inputs,
                                                                    const std::map<std::string, Shape>& shapes) {
  vk::VulkanBackendOptions o;
  o.precision = options_.precision;
  o.timestamps = options_.timestamps;
  o.max_memory_mb = options_.max_memory_mb;
  MemoryNeeds needs;
  o.needs = &needs;
  try {
    return make_vulkan_executable(ctx_, graph_, shapes, o, &inputs);
  } catch (...) {
    // What a refused plan needed (zero when planning failed before that); a built executable's
    // needs are recorded by its caller, which may also have found one in the cache.
    set_last_needs(needs);
    throw;
  }
}

void VulkanModelRunner::set_last_needs(const MemoryNeeds& needs) {
  std::lock_guard<std::mutex> lock(needs_mutex_);
  last_needs_ = needs;
}

void VulkanModelRunner::set_max_memory_mb(uint64_t mb) {
  std::lock_guard<std::mutex> lock(mutex_);
  options_.max_memory_mb = mb;
}

MemoryNeeds VulkanModelRunner::last_memory_needs() {
  std::lock_guard<std::mutex> lock(needs_mutex_);
  return last_needs_;
}

std::shared_ptr<runtime::ScheduledExecutable> VulkanModelRunner::executable(const std::vector<Tensor>& inputs) {
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

std::vector<Tensor> VulkanModelRunner::run(const std::vector<Tensor>& inputs, Profile* profile) {
  std::shared_ptr<runtime::ScheduledExecutable> exe = executable(inputs);
  last_ = exe;
  try {
    return exe->run(inputs, profile);
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
    return exe->run(inputs, profile);
  }
}

}  // namespace vx

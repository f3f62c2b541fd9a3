// Runs a fused graph (vx.FusedConv nodes only, as the fusion passes produce for the OIDN U-Net) on
// one Vulkan device for one input shape. Construction plans everything once: shapes, kernel variant
// per layer, arena offsets (liveness: values whose lifetimes do not overlap share memory), weights
// repacked and uploaded, pipelines and descriptor sets, and the command buffers (recorded once,
// submitted per run). run() then only copies the input into staging, submits, waits and copies the
// output out: the conversions to and from the kernels' layout and precision run on the device.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/vulkan/command_context.h"
#include "backends/vulkan/context.h"
#include "backends/vulkan/kernels/conv3x3.h"
#include "backends/vulkan/memory.h"
#include "backends/vulkan/pipeline.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "runtime/backend.h"
#include "runtime/memory_limit.h"

namespace vx::vk {

struct ExecutableOptions {
  Precision precision = Precision::fp32;
  // "auto" (by shape and device), or a variant for every layer ("direct", "tiled", "coopmat"),
  // optionally followed by per-layer overrides: "auto,enc_conv0=direct,dec_conv4=tiled".
  std::string kernels = "auto";
  bool fast_math = false;  // ConvDesc::fast_math for every layer (OIDN's fastMath)
  bool timestamps = false;  // record per-layer GPU timestamps (when the queue supports them)
  // > 0: throw OutOfMemory (check_memory_limit) before allocating any device memory when the arena,
  // weights and staging exceed this many MiB.
  uint64_t max_memory_mb = 0;
  MemoryNeeds* needs = nullptr;  // filled with what the executable needs, also when it refuses
};

struct LayerInfo {
  std::string name;
  std::string kernel;  // variant name, e.g. "coopmat"
  std::string shader;  // embedded shader, e.g. "conv_coopmat.n4"
  ConvDesc desc;
};

struct LayerTiming {
  std::string name, kernel;
  double ms = 0;
};

// Whether `graph` is what this executor runs: one rank-4 f32 input, one output, and only
// vx.FusedConv nodes with 3x3 kernels, pads 1, stride 1, no groups, constant weights and bias.
bool is_fused_conv_network(const Graph& graph);
// The layers of such a network for one input shape: each node's ConvDesc and the kernel variant
// `kernels` (ExecutableOptions::kernels) picks, without touching the device. Throws Unsupported
// naming the node for what the executor cannot run, InvalidArgument for inconsistent shapes or a
// kernel choice that names a variant or layer that does not exist. fast_math: ConvDesc::fast_math.
std::vector<LayerInfo> plan_fused_conv_network(const Graph& graph, const Shape& input_shape, Precision precision,
                                               const std::string& kernels, bool fast_math, bool device_has_coopmat);

// Also the Vulkan backend's compiled form of such a graph when the scheduler gives it every node
// (vulkan_backend.h): run(0, host, node_ms) reads the input from and writes the output to `host`.
class VulkanGraphExecutable final : public runtime::CompiledSegments {
 public:
  // `graph`: one input (NCHW f32), one output, nodes vx.FusedConv with 3x3 kernels, pads 1, stride 1.
  // Throws Unsupported naming the node for anything else, InvalidArgument for inconsistent shapes.
  VulkanGraphExecutable(const VulkanContext& ctx, const Graph& graph, const Shape& input_shape,
                        const ExecutableOptions& options = {});
  ~VulkanGraphExecutable() override;
  VulkanGraphExecutable(const VulkanGraphExecutable&) = delete;
  VulkanGraphExecutable& operator=(const VulkanGraphExecutable&) = delete;

  // Input f32 NCHW of the bound shape; returns the output f32 NCHW.
  Tensor run(const Tensor& input);
  // Runs the network again on the input already on the device, without transfers (benchmarks).
  void run_resident();
  // runtime::CompiledSegments: the whole graph is segment 0; node_ms gets the per-layer GPU times.
  void run(size_t segment, runtime::HostValues& host, std::vector<double>& node_ms) override;
  // IO binding: the input read from / the output written to VkBuffers of this device (f32 NCHW at
  // offsets that are multiples of minStorageBufferOffsetAlignment) instead of staging; run() then
  // takes a placeholder input / returns a placeholder output. Records the command buffer again.
  void bind_device_values(const std::vector<runtime::DeviceValue>& values) override;

  const Shape& input_shape() const { return input_shape_; }
  const Shape& output_shape() const { return output_shape_; }
  const std::vector<LayerInfo>& layers() const { return layers_; }
  // Per-layer GPU times of the last run (empty without timestamps), and their total (first
  // dispatch start to last dispatch end).
  const std::vector<LayerTiming>& last_timings() const { return timings_; }
  double last_gpu_ms() const { return gpu_ms_; }
  uint64_t arena_bytes() const { return arena_.size(); }
  uint64_t weight_bytes() const { return weights_.size(); }
  // Every activation's size added up (the arena without sharing), and what the executable allocated.
  uint64_t sum_activation_bytes() const { return sum_activation_bytes_; }
  MemoryNeeds memory_needs() const override {
    return {arena_.size(), weights_.size() + staging_.size() + nchw_io_.size(), sum_activation_bytes_};
  }
  double flops() const;

  // Device-resident use (the denoiser's input/output processing runs on the device around the
  // network): where the input and output activations live in the arena (NHWC, channels in blocks
  // of 4, in the storage precision), and the network's dispatches recorded into the caller's
  // command buffer. The caller orders its own writes of the input before, and its reads of the
  // output after, with barriers; after the submission finished, collect_timings() reads the
  // per-layer timestamps (last_timings()).
  BufferRange input_range() const { return arena_.range(input_.offset, input_.bytes); }
  BufferRange output_range() const { return arena_.range(output_.offset, output_.bytes); }
  Precision precision() const { return options_.precision; }
  void record_network(VkCommandBuffer cmd);
  void collect_timings() { read_timings(); }

 private:
  struct Activation {  // a value living in the arena, NHWC, channels in blocks of 4
    int channels = 0, height = 0, width = 0;
    VkDeviceSize offset = 0, bytes = 0;
  };
  struct Step {
    ComputePipeline* pipeline = nullptr;
    VkDescriptorSet set = VK_NULL_HANDLE;
    std::array<int32_t, 12> push{};
    std::array<uint32_t, 3> groups{};
  };

  void build(const Graph& graph);
  void record(VkCommandBuffer cmd, bool transfers);
  void record_step(VkCommandBuffer cmd, const Step& step);
  void read_timings();
  void release();

  const VulkanContext& ctx_;
  ExecutableOptions options_;
  Shape input_shape_, output_shape_;
  ValueId input_id_ = kNoValue, output_id_ = kNoValue;
  size_t element_bytes_ = 4;
  std::vector<LayerInfo> layers_;
  std::vector<Step> steps_;
  Step to_nhwc4_, from_nhwc4_;  // run(const Tensor&)'s conversions around the network
  VkDeviceSize nchw_input_bytes_ = 0, nchw_output_bytes_ = 0;
  bool input_bound_ = false, output_bound_ = false;  // bind_device_values
  Activation input_, output_;
  std::vector<LayerTiming> timings_;
  double gpu_ms_ = 0;
  bool timestamps_ = false;
  uint64_t sum_activation_bytes_ = 0;

  std::unique_ptr<KernelLayout> layout_;
  std::map<std::string, std::unique_ptr<ComputePipeline>> pipelines_;
  DeviceBuffer weights_, arena_, staging_;
  DeviceBuffer nchw_io_;  // the f32 NCHW input and output, at the offsets they have in staging_
  VkDeviceSize staging_output_offset_ = 0;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  CommandContext commands_;
  VkCommandBuffer cmd_full_ = VK_NULL_HANDLE, cmd_resident_ = VK_NULL_HANDLE;
  VkQueryPool query_pool_ = VK_NULL_HANDLE;
};

}  // namespace vx::vk

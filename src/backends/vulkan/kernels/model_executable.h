// Runs a general ONNX graph (after optimisation) on one Vulkan device for one set of input shapes.
//
// Construction plans everything once: input shapes are bound and propagated (shape inference, then
// bind-time folding of what became constant: Shape/Size of known shapes and the arithmetic on them),
// each node is placed on the GPU (the first registered Vulkan op whose factory accepts it,
// kernels/op_kernel.h) or on the CPU (the CPU kernel registry) with the transfers this needs, device
// values get offsets in one arena by liveness, constants are uploaded once, pipelines and
// descriptor sets are created, and each run of consecutive GPU nodes (a segment) is recorded once
// into its own command buffer. run() converts and copies the inputs into the staging buffer,
// submits the segments in order (running CPU nodes between them) and converts the outputs back.
//
// Placement policy: nodes that compute shapes (every output int64, no input living on the GPU and
// no float input other than constants) run on the CPU by design; every other node runs on the GPU unless no Vulkan op
// accepts it, and then it falls back to the CPU with the reason recorded (fallbacks()).
//
// Device storage follows op_kernel.h: dense row-major, floats f32 (or f16 at Precision::fp16),
// integers and bools int32; conversions happen at the host boundary.
#pragma once
#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/cpu/kernel_registry.h"
#include "backends/vulkan/command_context.h"
#include "backends/vulkan/context.h"
#include "backends/vulkan/memory.h"
#include "backends/vulkan/kernels/op_kernel.h"
#include "backends/vulkan/pipeline.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "runtime/memory_limit.h"
#include "runtime/profile.h"

namespace vx::vk {

struct ModelExecOptions {
  Precision precision = Precision::fp32;
  bool timestamps = false;  // per-node GPU timestamps (when the queue supports them)
  // > 0: construction throws OutOfMemory (check_memory_limit) before allocating any device memory
  // when the arena plus the constants and staging buffers exceed this many MiB.
  uint64_t max_memory_mb = 0;
  // Filled with what the plan needs before the limit is checked, so also when it refuses.
  MemoryNeeds* needs = nullptr;
};

// Where one node runs and why.
struct NodePlacement {
  std::string node, op;
  bool gpu = false;
  bool by_design = false;      // on the CPU by policy (a shape computation), not for lack of a kernel
  bool touches_float = false;  // reads or writes a float tensor
  std::string variant;         // the Vulkan op's variant or the CPU kernel's
  std::string reason;          // why it is on the CPU ("" on the GPU)
};

class VulkanModelExecutable {
 public:
  // `graph`: an imported (and usually optimised) ONNX graph. `input_shapes`: graph input name ->
  // shape (inputs with fully declared shapes may be omitted). `sample_inputs` (optional, in graph
  // input order): when shape inference cannot tell some shapes (ops without a shape function), the
  // graph is run once on the CPU on these inputs to observe them; a later run whose CPU-computed
  // shapes differ throws Unsupported ("data-dependent shape changed").
  VulkanModelExecutable(const VulkanContext& ctx, const Graph& graph, const std::map<std::string, Shape>& input_shapes,
                        const ModelExecOptions& options = {}, const std::vector<Tensor>* sample_inputs = nullptr);
  ~VulkanModelExecutable();
  VulkanModelExecutable(const VulkanModelExecutable&) = delete;
  VulkanModelExecutable& operator=(const VulkanModelExecutable&) = delete;

  // Inputs in graph input order with the bound shapes and the graph's dtypes; returns the outputs
  // in graph output order (host tensors of the graph's dtypes). Runs are serialised.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, Profile* profile = nullptr);

  // Every node in execution order and where it runs.
  const std::vector<NodePlacement>& placements() const { return placements_; }
  // The nodes that fell back to the CPU for lack of a Vulkan op (not the shape computations).
  std::vector<NodePlacement> fallbacks() const;
  // True when no node touching a float tensor fell back to the CPU (shape computations are allowed).
  bool floats_all_on_gpu() const;
  // One line per node: "node (op): gpu variant" / "node (op): cpu (reason)".
  std::string placement_report() const;

  const Graph& bound_graph() const { return graph_; }
  uint64_t arena_bytes() const { return arena_.size(); }
  uint64_t constant_bytes() const { return constants_.size(); }
  // The arena, and the constants and staging buffers (what max_memory_mb limits).
  const MemoryNeeds& memory_needs() const { return needs_; }
  size_t segment_count() const { return segments_.size(); }

 private:
  struct DeviceSlot {  // where a value lives on the device
    enum class Pool { none, arena, constants } pool = Pool::none;
    VkDeviceSize offset = 0, bytes = 0;
    DeviceType type = DeviceType::f32;
  };
  struct Transfer {  // host <-> staging <-> device copy of one value
    ValueId value = kNoValue;
    VkDeviceSize staging_offset = 0;
  };
  struct GpuDispatch {
    const ComputePipeline* pipeline = nullptr;
    VkDescriptorSet set = VK_NULL_HANDLE;
    std::vector<uint8_t> push;
    std::array<uint32_t, 3> groups{};
  };
  struct GpuCopy {  // an alias that could not share memory (e.g. Reshape of a constant): a copy
    DeviceSlot from, to;
  };
  struct Step {
    int node = 0;
    bool gpu = false;
    std::vector<GpuDispatch> dispatches;
    std::vector<GpuCopy> copies;
    cpu::KernelFn cpu_kernel;
    std::vector<VkDeviceSize> scratch_offsets;
  };
  struct Segment {
    bool gpu = false;
    std::vector<size_t> steps;  // indices into steps_
    std::vector<Transfer> uploads, downloads;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    uint32_t first_query = 0;  // timestamps: one before the first step, one after each step
  };

  void build(const Graph& graph, const std::map<std::string, Shape>& input_shapes,
             const std::vector<Tensor>* sample_inputs);
  void bind_and_fold(const Graph& graph, const std::map<std::string, Shape>& input_shapes,
                     const std::vector<Tensor>* sample_inputs);
  void place_nodes();
  void plan_memory();
  void create_gpu_objects();
  void record_segment(Segment& seg);
  VkDescriptorBufferInfo buffer_info(const DeviceSlot& slot) const;
  void upload(const Tensor& host, ValueId id, uint8_t* dst) const;
  Tensor download(ValueId id, const uint8_t* src) const;
  void check_index_status(const Segment& seg) const;
  void run_cpu_step(const Step& step, std::vector<Tensor>& host);
  void release();

  const VulkanContext& ctx_;
  ModelExecOptions options_;
  Graph graph_;                       // bound: shapes inferred, bind-time constants folded
  std::vector<bool> shape_known_;     // per value
  std::vector<NodePlacement> placements_;
  std::vector<OpPlan> plans_;  // per node (GPU nodes only)
  std::vector<std::string> variants_;
  std::vector<Step> steps_;
  std::vector<Segment> segments_;
  std::vector<DeviceSlot> slots_;                                 // per value
  std::vector<bool> on_gpu_;                                      // per node
  std::vector<std::vector<VkDeviceSize>> plan_constant_offsets_;  // per node: its OpPlan constants
  VkDeviceSize staging_bytes_ = 0;
  // Per node: where its index status words lie in staging_ (kNoStatus: it binds none).
  static constexpr VkDeviceSize kNoStatus = ~VkDeviceSize(0);
  std::vector<VkDeviceSize> status_offsets_;
  VkDeviceSize status_begin_ = 0, status_end_ = 0;  // all status words, zeroed before each run
  MemoryNeeds needs_;
  bool timestamps_ = false;
  uint32_t query_count_ = 0;

  std::unique_ptr<KernelLayout> layout_;
  std::map<std::string, std::unique_ptr<ComputePipeline>> pipelines_;
  DeviceBuffer constants_, arena_, staging_, dummy_;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  CommandContext commands_;
  VkQueryPool query_pool_ = VK_NULL_HANDLE;
  std::unique_ptr<std::mutex> run_mutex_ = std::make_unique<std::mutex>();
};

}  // namespace vx::vk

// Compute pipelines from embedded SPIR-V. All our conv kernels share one binding layout (five
// storage buffers: source A, source B, weights, bias, output) and one push-constant block, so one
// descriptor-set layout and one pipeline layout serve every pipeline of an executable.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/vulkan/context.h"

namespace vx::vk {

inline constexpr uint32_t kKernelBindings = 5;
inline constexpr uint32_t kPushConstantBytes = 64;

class KernelLayout {
 public:
  explicit KernelLayout(const VulkanContext& ctx);
  // A layout of `bindings` storage buffers (binding 0..bindings-1) and `push_bytes` of push
  // constants: the ONNX op executor uses 8 and 128 (kernels/op_kernel.h).
  KernelLayout(const VulkanContext& ctx, uint32_t bindings, uint32_t push_bytes);
  ~KernelLayout();
  KernelLayout(const KernelLayout&) = delete;
  KernelLayout& operator=(const KernelLayout&) = delete;
  VkDescriptorSetLayout set_layout() const { return set_layout_; }
  VkPipelineLayout pipeline_layout() const { return pipeline_layout_; }
  // A descriptor set of this layout from `pool` (freed with the pool).
  VkDescriptorSet allocate_set(VkDescriptorPool pool) const;
  // A pool for `sets` descriptor sets of `bindings` storage buffers each (tracked: free it with
  // destroy_tracked(..., vkDestroyDescriptorPool, ObjectKind::DescriptorPool)).
  static VkDescriptorPool create_pool(const VulkanContext& ctx, uint32_t sets, uint32_t bindings);
  // Points bindings 0..buffers.size()-1 of `set` (of such a layout) at `buffers`.
  static void write_set(VkDevice device, VkDescriptorSet set, std::span<const VkDescriptorBufferInfo> buffers);

 private:
  VkDevice device_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
};

class ComputePipeline {
 public:
  // `shader` names an embedded SPIR-V ("conv_direct.f16"); spec constants go to ids 0, 1, ...
  ComputePipeline(const VulkanContext& ctx, const KernelLayout& layout, const std::string& shader,
                  const std::vector<int32_t>& spec_constants = {});
  ~ComputePipeline();
  ComputePipeline(const ComputePipeline&) = delete;
  ComputePipeline& operator=(const ComputePipeline&) = delete;
  VkPipeline pipeline() const { return pipeline_; }
  const std::string& shader() const { return shader_; }

 private:
  void release();
  VkDevice device_;
  std::string shader_;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
};

}  // namespace vx::vk

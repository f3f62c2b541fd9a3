#include "backends/vulkan/pipeline.h"

#include "backends/vulkan/shader_registry.h"

namespace vx::vk {

VkDescriptorSet KernelLayout::allocate_set(VkDescriptorPool pool) const {
  VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  dsai.descriptorPool = pool;
  dsai.descriptorSetCount = 1;
  dsai.pSetLayouts = &set_layout_;
  VkDescriptorSet set = VK_NULL_HANDLE;
  VX_VK_CHECK(vkAllocateDescriptorSets(device_, &dsai, &set));
  return set;
}

VkDescriptorPool KernelLayout::create_pool(const VulkanContext& ctx, uint32_t sets, uint32_t bindings) {
  VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, sets * bindings};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = sets;
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &pool_size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VX_VK_CHECK(vkCreateDescriptorPool(ctx.device(), &dpci, nullptr, &pool));
  track_created(ObjectKind::DescriptorPool);
  return pool;
}

void KernelLayout::write_set(VkDevice device, VkDescriptorSet set, std::span<const VkDescriptorBufferInfo> buffers) {
  std::vector<VkWriteDescriptorSet> writes(buffers.size());
  for (uint32_t k = 0; k < buffers.size(); ++k) {
    writes[k] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[k].dstSet = set;
    writes[k].dstBinding = k;
    writes[k].descriptorCount = 1;
    writes[k].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[k].pBufferInfo = &buffers[k];
  }
  vkUpdateDescriptorSets(device, uint32_t(writes.size()), writes.data(), 0, nullptr);
}

KernelLayout::KernelLayout(const VulkanContext& ctx) : KernelLayout(ctx, kKernelBindings, kPushConstantBytes) {}

KernelLayout::KernelLayout(const VulkanContext& ctx, uint32_t binding_count, uint32_t push_bytes)
    : device_(ctx.device()) {
  std::vector<VkDescriptorSetLayoutBinding> bindings(binding_count);
  for (uint32_t i = 0; i < binding_count; ++i) {
    bindings[i] = {};
    bindings[i].binding = i;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo dci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dci.bindingCount = binding_count;
  dci.pBindings = bindings.data();
  VX_VK_CHECK(vkCreateDescriptorSetLayout(device_, &dci, nullptr, &set_layout_));
  track_created(ObjectKind::DescriptorSetLayout);
  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
  VkPipelineLayoutCreateInfo pci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pci.setLayoutCount = 1;
  pci.pSetLayouts = &set_layout_;
  pci.pushConstantRangeCount = 1;
  pci.pPushConstantRanges = &push;
  VkResult r = vkCreatePipelineLayout(device_, &pci, nullptr, &pipeline_layout_);
  if (r != VK_SUCCESS) {
    vkDestroyDescriptorSetLayout(device_, set_layout_, nullptr);
    track_destroyed(ObjectKind::DescriptorSetLayout);
    VX_VK_CHECK(r);
  }
  track_created(ObjectKind::PipelineLayout);
}

KernelLayout::~KernelLayout() {
  vkDestroyPipelineLayout(device_, pipeline_layout_, nullptr);
  track_destroyed(ObjectKind::PipelineLayout);
  vkDestroyDescriptorSetLayout(device_, set_layout_, nullptr);
  track_destroyed(ObjectKind::DescriptorSetLayout);
}

ComputePipeline::ComputePipeline(const VulkanContext& ctx, const KernelLayout& layout, const std::string& shader,
                                 const std::vector<int32_t>& spec_constants)
    : device_(ctx.device()), shader_(shader) {
  std::span<const uint32_t> code = find_shader(shader);
  VX_CHECK(!code.empty(), Internal, "shader '", shader, "' is neither embedded in this build nor registered");
  try {
    VkShaderModuleCreateInfo mci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mci.codeSize = code.size() * sizeof(uint32_t);
    mci.pCode = code.data();
    VX_VK_CHECK(vkCreateShaderModule(device_, &mci, nullptr, &module_));
    track_created(ObjectKind::ShaderModule);

    std::vector<VkSpecializationMapEntry> entries;
    for (uint32_t i = 0; i < spec_constants.size(); ++i)
      entries.push_back({i, uint32_t(i * sizeof(int32_t)), sizeof(int32_t)});
    VkSpecializationInfo spec{uint32_t(entries.size()), entries.data(), spec_constants.size() * sizeof(int32_t),
                              spec_constants.data()};
    VkComputePipelineCreateInfo pci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    pci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pci.stage.module = module_;
    pci.stage.pName = "main";
    pci.stage.pSpecializationInfo = entries.empty() ? nullptr : &spec;
    pci.layout = layout.pipeline_layout();
    VX_WITH_CONTEXT(cat("creating the pipeline for shader '", shader, "'"),
                    VX_VK_CHECK(vkCreateComputePipelines(device_, ctx.pipeline_cache(), 1, &pci, nullptr, &pipeline_)));
    track_created(ObjectKind::Pipeline);
  } catch (...) {
    release();
    throw;
  }
}

ComputePipeline::~ComputePipeline() { release(); }

void ComputePipeline::release() {
  destroy_tracked(device_, pipeline_, vkDestroyPipeline, ObjectKind::Pipeline);
  destroy_tracked(device_, module_, vkDestroyShaderModule, ObjectKind::ShaderModule);
}

}  // namespace vx::vk

#include "backends/vulkan/kernels/denoise_io.h"

#include <cstring>

namespace vx::vk {

DenoiseIoKernels::DenoiseIoKernels(const VulkanContext& ctx, const KernelLayout& layout, Precision precision)
    : ctx_(ctx), layout_(layout) {
  const bool half = precision == Precision::fp16;
  input_ = std::make_unique<ComputePipeline>(ctx, layout, half ? "denoise_input.f16" : "denoise_input.f32");
  output_ = std::make_unique<ComputePipeline>(ctx, layout, half ? "denoise_output.f16" : "denoise_output.f32");
  bins_ = std::make_unique<ComputePipeline>(ctx, layout, "denoise_autoexposure.bins");
  reduce_ = std::make_unique<ComputePipeline>(ctx, layout, "denoise_autoexposure.reduce");
}

DenoiseIoKernels::~DenoiseIoKernels() = default;

void DenoiseIoKernels::write_set(VkDescriptorSet set, const std::array<BufferRange, kKernelBindings>& bindings) const {
  VkDescriptorBufferInfo infos[kKernelBindings];
  for (uint32_t k = 0; k < kKernelBindings; ++k) {
    VX_CHECK(bindings[k].buffer != VK_NULL_HANDLE && bindings[k].size > 0, Internal, "binding ", k, " has no buffer");
    infos[k] = {bindings[k].buffer, bindings[k].offset, bindings[k].size};
  }
  KernelLayout::write_set(ctx_.device(), set, infos);
}

void DenoiseIoKernels::dispatch(VkCommandBuffer cmd, const ComputePipeline& pipeline, VkDescriptorSet set,
                                const void* push, size_t push_bytes, uint32_t gx, uint32_t gy) const {
  std::array<int32_t, kPushConstantBytes / 4> block{};
  std::memcpy(block.data(), push, push_bytes);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline());
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_.pipeline_layout(), 0, 1, &set, 0, nullptr);
  vkCmdPushConstants(cmd, layout_.pipeline_layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes, block.data());
  vkCmdDispatch(cmd, gx, gy, 1);
}

void DenoiseIoKernels::record_exposure_bins(VkCommandBuffer cmd, VkDescriptorSet set, int bins_h, int bins_w) const {
  const int32_t none = 0;
  dispatch(cmd, *bins_, set, &none, sizeof none, uint32_t(bins_w), uint32_t(bins_h));
}

void DenoiseIoKernels::record_exposure_reduce(VkCommandBuffer cmd, VkDescriptorSet set) const {
  const int32_t none = 0;
  dispatch(cmd, *reduce_, set, &none, sizeof none, 1, 1);
}

void DenoiseIoKernels::record_input(VkCommandBuffer cmd, VkDescriptorSet set, const InputTile& tile,
                                    int input_blocks) const {
  struct {
    InputTile tile;
    int32_t c4;
  } push{tile, input_blocks};
  dispatch(cmd, *input_, set, &push, sizeof push, uint32_t((tile.buffer_w + 7) / 8), uint32_t((tile.buffer_h + 7) / 8));
}

void DenoiseIoKernels::record_output(VkCommandBuffer cmd, VkDescriptorSet set, const OutputTile& tile,
                                     int output_blocks) const {
  struct {
    OutputTile tile;
    int32_t c4;
  } push{tile, output_blocks};
  dispatch(cmd, *output_, set, &push, sizeof push, uint32_t((tile.out_w + 7) / 8), uint32_t((tile.out_h + 7) / 8));
}

}  // namespace vx::vk

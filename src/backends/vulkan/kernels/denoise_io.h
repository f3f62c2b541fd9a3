// The C++ side of the denoiser's image shaders (shaders/denoise_*.comp): OIDN's input processing
// (user images -> the network's input activation), output processing (the network's output ->
// the user's output image) and autoexposure, all on the device. Every shader uses the shared
// KernelLayout (five storage buffers, 64 bytes of push constants):
//   input:        0 color, 1 albedo, 2 normal, 3 job parameters, 4 the network input activation
//   output:       0 the network output activation, 3 job parameters, 4 the output image
//   exposure bins: 0 color, 3 job parameters, 4 bins; reduce: 0 bins, 3 job parameters (writes the scale)
#pragma once
#include <array>
#include <cstdint>
#include <memory>

#include "backends/vulkan/context.h"
#include "backends/vulkan/kernels/conv3x3.h"
#include "backends/vulkan/memory.h"
#include "backends/vulkan/pipeline.h"

namespace vx::vk {

// One user image as the shaders address it (byte offsets inside the bound range).
struct DenoiseImageDesc {
  uint32_t offset = 0, pixel_stride = 0, row_stride = 0;
  int32_t channels = 0, half_type = 0, pad[3] = {};
};

// The job parameters (binding 3), std430 layout of JobParams in denoise_io.glsl.
struct DenoiseJobParams {
  float input_scale = 1;
  int32_t transfer = 0;  // 0 linear, 1 sRGB, 2 PU, 3 log
  int32_t hdr = 0;
  int32_t input_channels = 3;
  int32_t width = 0, height = 0;
  int32_t bins_h = 0, bins_w = 0;
  float pu_norm = 1;
  int32_t snorm = 0;   // the main input is signed, [-1, 1]
  float log_norm = 1;  // 1 / log(65504 + 1)
  int32_t pad = 0;
  DenoiseImageDesc images[4];  // color, albedo, normal, output
};
static_assert(sizeof(DenoiseJobParams) == 48 + 4 * 32, "must match JobParams in denoise_io.glsl");

// Autoexposure bins of an image: ceil(H/16) x ceil(W/16), as OIDN.
inline int exposure_bins(int size) { return (size + 15) / 16; }

struct InputTile {
  int32_t in_x, in_y, in_w, in_h;  // image rectangle
  int32_t buffer_x, buffer_y;      // its place in the tile buffer
  int32_t buffer_w, buffer_h;      // the network input size
};

struct OutputTile {
  int32_t src_x, src_y;  // buffer position of the first owned pixel
  int32_t out_x, out_y;  // its image position
  int32_t out_w, out_h;
  int32_t buffer_w;
};

class DenoiseIoKernels {
 public:
  // `precision`: the storage precision of the network's activations.
  DenoiseIoKernels(const VulkanContext& ctx, const KernelLayout& layout, Precision precision);
  ~DenoiseIoKernels();
  DenoiseIoKernels(const DenoiseIoKernels&) = delete;
  DenoiseIoKernels& operator=(const DenoiseIoKernels&) = delete;

  // Writes the five bindings of `set` (each range must be valid; unused bindings take any buffer).
  void write_set(VkDescriptorSet set, const std::array<BufferRange, kKernelBindings>& bindings) const;

  // Records the dispatches; the caller records the barriers between them.
  void record_exposure_bins(VkCommandBuffer cmd, VkDescriptorSet set, int bins_h, int bins_w) const;
  void record_exposure_reduce(VkCommandBuffer cmd, VkDescriptorSet set) const;
  // input_blocks: vec4 blocks per pixel of the network input (ceil(input_channels / 4)).
  void record_input(VkCommandBuffer cmd, VkDescriptorSet set, const InputTile& tile, int input_blocks) const;
  void record_output(VkCommandBuffer cmd, VkDescriptorSet set, const OutputTile& tile, int output_blocks) const;

 private:
  void dispatch(VkCommandBuffer cmd, const ComputePipeline& pipeline, VkDescriptorSet set, const void* push,
                size_t push_bytes, uint32_t gx, uint32_t gy) const;
  const VulkanContext& ctx_;
  const KernelLayout& layout_;
  std::unique_ptr<ComputePipeline> input_, output_, bins_, reduce_;
};

}  // namespace vx::vk

// How the denoiser's shaders address a user's image (shaders/user_image.glsl): a byte range bound
// to a descriptor and the layout inside it. Images in the user's own Vulkan buffers are bound in
// place; the whole-image path (vulkan_image_runner.h) and the temporal stage
// (vulkan_temporal_stage.h) both bind them here, so that both accept the same layouts.
#pragma once
#include <cstdint>
#include <string>

#include "backends/vulkan/context.h"
#include "backends/vulkan/kernels/denoise_io.h"
#include "backends/vulkan/memory.h"
#include "denoise/network.h"

namespace vx::denoise {

// Bytes from pixel (0, 0) to the end of the last element the shaders read or write, for the whole
// image and for one row.
uint64_t image_span_bytes(const ImageView& view);
uint64_t image_row_span_bytes(const ImageView& view);
// Whether the shaders' element addressing reaches every element (offset and strides are multiples
// of the element size).
bool image_strides_aligned(const ImageView& view, uint64_t offset);
// The alignment of the ranges the denoiser binds (at least the device's storage-buffer offset
// alignment).
VkDeviceSize storage_binding_alignment(const vk::VulkanContext& ctx);
// The largest range one storage-buffer binding may have on this device (at most 4 GiB: byte
// addresses in the shaders are 32-bit).
uint64_t max_storage_binding_bytes(const vk::VulkanContext& ctx);

// An image as its shader binding: `range` starts at the image's offset rounded down to the binding
// alignment; `desc` addresses the pixels inside it.
struct BoundImage {
  vk::BufferRange range;
  vk::DenoiseImageDesc desc;
};

// `view` (its layout; the data pointer is unused) in the user's buffer `image`. Throws Unsupported
// naming `name` when the shaders cannot address it (misaligned offset or strides, a span larger
// than a storage binding).
BoundImage bind_device_image(const vk::VulkanContext& ctx, const ImageView& view, const DeviceImage& image,
                             const std::string& name);

}  // namespace vx::denoise

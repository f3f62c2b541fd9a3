#include "denoise_vulkan/vulkan_device_image.h"

#include <algorithm>

#include "core/error.h"

namespace vx::denoise {

uint64_t image_span_bytes(const ImageView& v) {
  return uint64_t(v.height - 1) * v.row_bytes() + uint64_t(v.width - 1) * v.pixel_bytes() +
         uint64_t(v.channels) * v.element_size();
}

uint64_t image_row_span_bytes(const ImageView& v) {
  return uint64_t(v.width - 1) * v.pixel_bytes() + uint64_t(v.channels) * v.element_size();
}

bool image_strides_aligned(const ImageView& v, uint64_t offset) {
  const size_t e = v.element_size();
  return offset % e == 0 && v.pixel_bytes() % e == 0 && v.row_bytes() % e == 0;
}

VkDeviceSize storage_binding_alignment(const vk::VulkanContext& ctx) {
  return std::max<VkDeviceSize>(256, ctx.properties().limits.minStorageBufferOffsetAlignment);
}

uint64_t max_storage_binding_bytes(const vk::VulkanContext& ctx) {
  return std::min<uint64_t>(ctx.properties().limits.maxStorageBufferRange, 0xffffffffull);
}

BoundImage bind_device_image(const vk::VulkanContext& ctx, const ImageView& view, const DeviceImage& image,
                             const std::string& name) {
  VX_CHECK(image_strides_aligned(view, image.offset), Unsupported, "image '", name, "' in a Vulkan buffer: offset ",
           image.offset, " and strides must be multiples of the element size (", view.element_size(), " bytes)");
  const VkDeviceSize alignment = storage_binding_alignment(ctx);
  const VkDeviceSize bound_offset = image.offset / alignment * alignment;
  BoundImage b;
  b.desc.offset = uint32_t(image.offset - bound_offset);
  b.desc.pixel_stride = uint32_t(view.pixel_bytes());
  b.desc.row_stride = uint32_t(view.row_bytes());
  b.desc.channels = view.channels;
  b.desc.half_type = view.type == PixelType::f16 ? 1 : 0;
  // Whole 32-bit words: the shaders read and write f16 pairs as one word.
  const uint64_t size = (b.desc.offset + image_span_bytes(view) + 3) / 4 * 4;
  const uint64_t max_range = max_storage_binding_bytes(ctx);
  VX_CHECK(view.row_bytes() <= 0xffffffffull && size <= max_range, Unsupported, "image '", name,
           "' in a Vulkan buffer spans ", size, " bytes, more than the device's largest storage buffer range (",
           max_range, " bytes)");
  b.range = {vk::to_vk_buffer(image.buffer), bound_offset, size};
  return b;
}

}  // namespace vx::denoise

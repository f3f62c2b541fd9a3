// A user-owned image as the filter sees it (OIDN's image concept): float or half, 1 to 3 channels,
// with byte strides between pixels and rows, so RGBA buffers or sub-rectangles need no copy.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/image.h"

namespace vx::denoise {

enum class PixelType { f32, f16 };

struct ImageView {
  void* data = nullptr;
  PixelType type = PixelType::f32;
  int channels = 3;        // 1, 2 or 3 used; extra channels (e.g. alpha) skipped via pixel_stride
  int width = 0;
  int height = 0;
  size_t pixel_stride = 0;  // bytes between pixels; 0 = channels * element size
  size_t row_stride = 0;    // bytes between rows; 0 = width * pixel_stride

  bool valid() const { return data != nullptr && width > 0 && height > 0; }
  size_t element_size() const { return type == PixelType::f32 ? 4 : 2; }
  size_t pixel_bytes() const { return pixel_stride ? pixel_stride : size_t(channels) * element_size(); }
  size_t row_bytes() const { return row_stride ? row_stride : size_t(width) * pixel_bytes(); }

  // Channel c (< channels) of pixel (x, y) as float.
  float load(int x, int y, int c) const;
  void store(int x, int y, int c, float v) const;
  // Three channels as OIDN broadcasts them: 1 channel -> (v, v, v), 2 -> (v0, v1, v1).
  void load3(int x, int y, float rgb[3]) const;

  // Throws InvalidArgument naming `what` when the view is unusable (null, bad size, 0 or > 3
  // channels with no stride, strides too small for the pixels).
  void validate(const std::string& what) const;
};

// A view of the first (up to) three channels of a host image; extra channels (alpha) are skipped.
ImageView image_view(Image& image);

}  // namespace vx::denoise

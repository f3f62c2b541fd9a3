#include "denoise/image_view.h"

#include <algorithm>

#include "core/error.h"
#include "core/half.h"

namespace vx::denoise {

namespace {
inline char* address(const ImageView& v, int x, int y, int c) {
  return static_cast<char*>(v.data) + size_t(y) * v.row_bytes() + size_t(x) * v.pixel_bytes() +
         size_t(c) * v.element_size();
}
}  // namespace

float ImageView::load(int x, int y, int c) const {
  const char* p = address(*this, x, y, c);
  if (type == PixelType::f32) return *reinterpret_cast<const float*>(p);
  return half_to_float(*reinterpret_cast<const uint16_t*>(p));
}

void ImageView::store(int x, int y, int c, float v) const {
  char* p = address(*this, x, y, c);
  if (type == PixelType::f32)
    *reinterpret_cast<float*>(p) = v;
  else
    *reinterpret_cast<uint16_t*>(p) = float_to_half(v);
}

void ImageView::load3(int x, int y, float rgb[3]) const {
  if (channels == 1) {
    rgb[0] = rgb[1] = rgb[2] = load(x, y, 0);
  } else if (channels == 2) {
    rgb[0] = load(x, y, 0);
    rgb[1] = rgb[2] = load(x, y, 1);
  } else {
    for (int c = 0; c < 3; ++c) rgb[c] = load(x, y, c);
  }
}

ImageView image_view(Image& image) {
  ImageView v;
  v.data = image.pixels.data();
  v.width = image.width;
  v.height = image.height;
  v.channels = std::min(image.channels, 3);
  v.pixel_stride = size_t(image.channels) * sizeof(float);
  return v;
}

void ImageView::validate(const std::string& what) const {
  VX_CHECK(data != nullptr, InvalidArgument, "image '", what, "' has no data");
  VX_CHECK(width > 0 && height > 0 && width <= (1 << 20) && height <= (1 << 20), InvalidArgument, "image '", what,
           "' has an invalid size ", width, "x", height);
  VX_CHECK(channels >= 1 && channels <= 3, InvalidArgument, "image '", what, "' has ", channels,
           " channels; 1 to 3 are supported (use pixel_stride to skip alpha)");
  VX_CHECK(pixel_bytes() >= size_t(channels) * element_size(), InvalidArgument, "image '", what,
           "': pixel stride ", pixel_bytes(), " is smaller than a pixel");
  VX_CHECK(row_bytes() >= size_t(width) * pixel_bytes(), InvalidArgument, "image '", what, "': row stride ",
           row_bytes(), " is smaller than a row");
}

}  // namespace vx::denoise

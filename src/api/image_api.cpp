// The C API for image files (include/volvox/image.h) over the engine's readers and writers
// (formats/image_io.h). Errors go to the pseudo-device of vxNewDevice, as no device is involved.
#include <cstring>

#include "api/c_api_internal.h"
#include "formats/image_io.h"
#include "volvox/image.h"

struct VXImageImpl {
  vx::Image image;
};

extern "C" {

VXImage vxReadImage(const char* path) {
  VXImage result = nullptr;
  vx::api::guarded(nullptr, [&] {
    VX_CHECK(path != nullptr, InvalidArgument, "null image path");
    result = new VXImageImpl{vx::read_image(path)};
  });
  return result;
}

void vxReleaseImage(VXImage image) { delete image; }

void vxGetImageSize(VXImage image, size_t* width, size_t* height, size_t* channels) {
  if (!image) vx::api::record(nullptr, VX_ERROR_INVALID_ARGUMENT, "null image handle");
  if (width) *width = image ? size_t(image->image.width) : 0;
  if (height) *height = image ? size_t(image->image.height) : 0;
  if (channels) *channels = image ? size_t(image->image.channels) : 0;
}

const float* vxGetImageData(VXImage image) {
  if (!image) {
    vx::api::record(nullptr, VX_ERROR_INVALID_ARGUMENT, "null image handle");
    return nullptr;
  }
  return image->image.pixels.data();
}

bool vxWriteImage(const char* path, const float* pixels, size_t width, size_t height, size_t channels, int png_bits,
                  bool exr_half) {
  bool written = false;
  vx::api::guarded(nullptr, [&] {
    VX_CHECK(path != nullptr, InvalidArgument, "null image path");
    VX_CHECK(channels >= 1 && channels <= 4, InvalidArgument, "cannot write ", channels, " channels to ", path,
             " (1 to 4)");
    VX_CHECK(width >= 1 && height >= 1 && width <= size_t(vx::kMaxImageSide) && height <= size_t(vx::kMaxImageSide),
             InvalidArgument, "cannot write a ", width, "x", height, " image to ", path, " (1 to ", vx::kMaxImageSide,
             " pixels a side)");
    VX_CHECK(int64_t(width * height * channels) <= vx::kMaxImageValues, InvalidArgument, "cannot write a ", width,
             "x", height, "x", channels, " image to ", path, " (at most ", vx::kMaxImageValues, " values)");
    VX_CHECK(pixels != nullptr, InvalidArgument, "null pixels for ", path);
    VX_CHECK(png_bits == 8 || png_bits == 16, InvalidArgument, "png_bits ", png_bits, " (expected 8 or 16)");
    vx::Image image(static_cast<int>(width), static_cast<int>(height), static_cast<int>(channels));
    std::memcpy(image.pixels.data(), pixels, image.pixels.size() * sizeof(float));
    vx::ImageWriteOptions options;
    options.png_bits = png_bits;
    options.exr_half = exr_half;
    vx::write_image(path, image, options);
    written = true;
  });
  return written;
}

}  // extern "C"

// libFuzzer target for the image readers. The first byte picks the format (PFM, PNG, Radiance HDR,
// OpenEXR); the rest is the file. A reader may accept the bytes or throw vx::Error, nothing else:
// any other exception, crash or sanitizer report is a bug. Accepted images are re-encoded and
// decoded again, which must reproduce their size.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "core/error.h"
#include "formats/image_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const vx::ImageFormat kFormats[4] = {vx::ImageFormat::Pfm, vx::ImageFormat::Png,
                                              vx::ImageFormat::RadianceHdr, vx::ImageFormat::Exr};
  const vx::ImageFormat format = kFormats[data[0] % 4];
  vx::Image image;
  try {
    image = vx::decode_image(std::span<const uint8_t>(data + 1, size - 1), format);
  } catch (const vx::Error&) {
    return 0;
  }
  if (image.pixels.size() != size_t(image.width) * size_t(image.height) * size_t(image.channels)) std::abort();
  if (image.channels == 2 && format == vx::ImageFormat::Pfm) std::abort();  // PFM has 1, 3 or 4
  // Small images only, so that each input stays fast.
  if (image.pixels.size() > (1u << 16)) return 0;
  const std::vector<uint8_t> again = vx::encode_image(image, format);
  const vx::Image back = vx::decode_image(again, format);
  if (back.width != image.width || back.height != image.height) std::abort();
  return 0;
}

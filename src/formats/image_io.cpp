// File-level image I/O: picks the codec by extension, reads and writes whole files, and names the
// file in every error.
#include "formats/image_io.h"

#include <algorithm>
#include <cctype>
#include <new>
#include <string>
#include <system_error>

#include "core/error.h"
#include "core/file_io.h"
#include "formats/image_codecs.h"

namespace vx {

namespace image_codecs {

void check_image_size(int64_t width, int64_t height, int64_t channels) {
  VX_CHECK(width >= 1 && height >= 1, InvalidFile, "image size ", width, "x", height, " is empty or negative");
  VX_CHECK(width <= kMaxImageSide && height <= kMaxImageSide, InvalidFile, "image size ", width, "x", height,
           " exceeds the limit of ", kMaxImageSide, " pixels per side");
  VX_CHECK(width * height * channels <= kMaxImageValues, InvalidFile, "image size ", width, "x", height, "x",
           channels, " exceeds the limit of ", kMaxImageValues, " values");
}

void check_writable(const Image& image) {
  VX_CHECK(image.channels >= 1 && image.channels <= 4, InvalidArgument, "cannot write an image with ",
           image.channels, " channels (1 to 4 are supported)");
  VX_CHECK(image.width >= 1 && image.height >= 1, InvalidArgument, "cannot write an empty image (",
           image.width, "x", image.height, ")");
  VX_CHECK(image.pixels.size() == size_t(image.width) * size_t(image.height) * size_t(image.channels),
           InvalidArgument, "image of ", image.width, "x", image.height, "x", image.channels, " holds ",
           image.pixels.size(), " values");
}

}  // namespace image_codecs

const char* image_format_name(ImageFormat format) {
  switch (format) {
    case ImageFormat::Pfm: return "PFM";
    case ImageFormat::Png: return "PNG";
    case ImageFormat::RadianceHdr: return "Radiance HDR";
    case ImageFormat::Exr: return "OpenEXR";
  }
  return "unknown";
}

ImageFormat image_format_for_path(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::string lower = extension;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (lower == ".pfm") return ImageFormat::Pfm;
  if (lower == ".png") return ImageFormat::Png;
  if (lower == ".hdr") return ImageFormat::RadianceHdr;
  if (lower == ".exr") return ImageFormat::Exr;
  fail(ErrorCode::Unsupported, cat("image file ", path, ": unsupported extension '", extension,
                                   "' (supported: .pfm, .png, .hdr, .exr)"));
}

Image decode_image(std::span<const uint8_t> bytes, ImageFormat format) {
  switch (format) {
    case ImageFormat::Pfm: return image_codecs::decode_pfm(bytes);
    case ImageFormat::Png: return image_codecs::decode_png(bytes);
    case ImageFormat::RadianceHdr: return image_codecs::decode_radiance_hdr(bytes);
    case ImageFormat::Exr: return image_codecs::decode_exr(bytes);
  }
  fail(ErrorCode::Internal, "unknown image format");
}

std::vector<uint8_t> encode_image(const Image& image, ImageFormat format, const ImageWriteOptions& options) {
  image_codecs::check_writable(image);
  switch (format) {
    case ImageFormat::Pfm: return image_codecs::encode_pfm(image);
    case ImageFormat::Png: return image_codecs::encode_png(image, options.png_bits);
    case ImageFormat::RadianceHdr: return image_codecs::encode_radiance_hdr(image);
    case ImageFormat::Exr: return image_codecs::encode_exr(image, options.exr_half, options.exr_compression, options.exr_zip_level);
  }
  fail(ErrorCode::Internal, "unknown image format");
}

Image read_image(const std::filesystem::path& path) {
  ImageFormat format = image_format_for_path(path);
  const std::vector<uint8_t> bytes = read_file_bytes(path, "image file", kMaxImageFileBytes);
  const std::string context = cat("image file ", path, " (", image_format_name(format), ")");
  Image image;
  try {
    VX_WITH_CONTEXT(context, image = decode_image(bytes, format));
  } catch (const std::bad_alloc&) {  // decoders check sizes first; this is a machine short of memory
    fail(ErrorCode::OutOfMemory, cat(context, ": out of memory while decoding"));
  }
  return image;
}

void write_image(const std::filesystem::path& path, const Image& image, const ImageWriteOptions& options) {
  ImageFormat format = image_format_for_path(path);
  std::vector<uint8_t> bytes;
  VX_WITH_CONTEXT(cat("writing image file ", path, " (", image_format_name(format), ")"),
                  bytes = encode_image(image, format, options));
  write_file_atomically(path, bytes.data(), bytes.size(), "image file");
}

Image to_rgb(const Image& image) {
  VX_CHECK(image.channels >= 1, InvalidArgument, "to_rgb: image has no channels");
  VX_CHECK(image.pixels.size() == size_t(image.width) * size_t(image.height) * size_t(image.channels),
           InvalidArgument, "to_rgb: image of ", image.width, "x", image.height, "x", image.channels, " holds ",
           image.pixels.size(), " values");
  Image rgb(image.width, image.height, 3);
  // Source channel for each of R, G, B, following OIDN's ImageAccessor::get3.
  const int c = image.channels;
  const int source[3] = {0, std::min(1, c - 1), std::min(2, c - 1)};
  const size_t count = size_t(image.width) * size_t(image.height);
  for (size_t i = 0; i < count; ++i) {
    for (int k = 0; k < 3; ++k) rgb.pixels[i * 3 + k] = image.pixels[i * size_t(c) + size_t(source[k])];
  }
  return rgb;
}

bool same_size(const Image& a, const Image& b) { return a.width == b.width && a.height == b.height; }

}  // namespace vx

// Internal to src/formats: one decoder and encoder per image file format, over bytes in memory.
// Decoders throw Error(InvalidFile) describing the problem; image_io.cpp adds the file name.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "formats/image.h"
#include "formats/image_io.h"

namespace vx::image_codecs {

// Throws Error(InvalidFile) unless 1 <= width, height <= kMaxImageSide and the image holds at most
// kMaxImageValues floats.
void check_image_size(int64_t width, int64_t height, int64_t channels);

// Throws Error(InvalidArgument) unless the image has 1 to 4 channels, positive sides and
// width * height * channels pixels.
void check_writable(const Image& image);

Image decode_pfm(std::span<const uint8_t> bytes);
std::vector<uint8_t> encode_pfm(const Image& image);

Image decode_png(std::span<const uint8_t> bytes);
std::vector<uint8_t> encode_png(const Image& image, int bits);

Image decode_radiance_hdr(std::span<const uint8_t> bytes);
std::vector<uint8_t> encode_radiance_hdr(const Image& image, bool run_length_encoded = true);

Image decode_exr(std::span<const uint8_t> bytes);
std::vector<uint8_t> encode_exr(const Image& image, bool half, ExrCompression compression = ExrCompression::zip,
                                int zip_level = 0);

}  // namespace vx::image_codecs

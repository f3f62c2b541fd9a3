// Reading and writing image files: PFM, PNG, Radiance HDR and OpenEXR, chosen by file extension.
// Every reader validates the header and the data size against the file, so a truncated or corrupt
// file is an Error(InvalidFile) naming the file and the problem, never a crash or an out-of-bounds
// read; a missing or unreadable file, or one that is not a regular file (a FIFO, a directory), is an
// Error(Io). Writing is atomic: a failed write_image is an Error(Io) and leaves the previous file as
// it was.
//
// Values are taken as stored: PNG samples become v/255 or v/65535 (no sRGB linearisation), float
// formats keep their values. Alpha is read as a channel (an RGBA file gives 4 channels, grey+alpha
// gives 2); channel order is R, G, B, A (or Y, A).
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "formats/image.h"

namespace vx {

// OpenEXR's lossless compressions: zip (deflate over 16 rows, the default), zips (one row), piz
// (wavelet; often smaller for noisy renders), rle, none.
enum class ExrCompression { zip, zips, piz, rle, none };

struct ImageWriteOptions {
  int png_bits = 8;       // 8 or 16 bits per PNG sample
  bool exr_half = true;   // OpenEXR channels as half (true) or float (false)
  ExrCompression exr_compression = ExrCompression::zip;
  // zip and zips: deflate's level, 1 (fastest) to 9 (smallest); 0: OpenEXR's default.
  int exr_zip_level = 0;
};

enum class ImageFormat { Pfm, Png, RadianceHdr, Exr };

// Largest image any reader accepts: each side at most kMaxImageSide and at most kMaxImageValues
// floats in all (1 GiB), so that a corrupt header cannot make us allocate without bound.
inline constexpr int kMaxImageSide = 1 << 16;
inline constexpr int64_t kMaxImageValues = int64_t(1) << 28;

// Largest image file read_image reads (1.25 GiB): the largest image's floats stored uncompressed
// (1 GiB), with room for headers and tile tables; larger files are refused before they are read.
inline constexpr uint64_t kMaxImageFileBytes = uint64_t(5) << 28;

const char* image_format_name(ImageFormat format);
// The format for a file name's extension (.pfm .png .hdr .exr, any case); Error(Unsupported)
// naming the extension otherwise.
ImageFormat image_format_for_path(const std::filesystem::path& path);

Image read_image(const std::filesystem::path& path);
// Writes 1 to 4 channels (PFM: 1, 3 or 4). LDR formats clamp to [0, 1] and round; NaN is written as 0.
void write_image(const std::filesystem::path& path, const Image& image, const ImageWriteOptions& options = {});

// The same in memory (used by the file functions and by the fuzz target). Errors do not name a file.
Image decode_image(std::span<const uint8_t> bytes, ImageFormat format);
std::vector<uint8_t> encode_image(const Image& image, ImageFormat format, const ImageWriteOptions& options = {});

// Three colour channels, as OIDN reads images: 1 channel is copied to all three, 2 channels (x, y)
// become (x, y, y), 3 are kept, a 4th (alpha) and further channels are dropped. Note that a
// grey+alpha file therefore gives (grey, alpha, alpha): drop its alpha first if that is not wanted.
Image to_rgb(const Image& image);

// Same width and height (channel counts may differ).
bool same_size(const Image& a, const Image& b);

}  // namespace vx

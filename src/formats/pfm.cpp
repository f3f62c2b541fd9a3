// Portable Float Map: "PF" (RGB) or "Pf" (grey) header, width, height, and a scale whose sign gives
// the byte order (negative: little-endian); float rows stored bottom to top. We write little-endian
// and ignore the scale's magnitude. "PF4" (RGBA) is a non-standard extension: we read it, and write
// it for 4-channel images so that alpha survives, but most other PFM readers reject it.
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>

#include "core/error.h"
#include "core/printable.h"
#include "formats/image_codecs.h"

namespace vx::image_codecs {

namespace {

// Reads the ASCII header tokens one by one; a PFM header ends with one whitespace byte.
class HeaderReader {
 public:
  explicit HeaderReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  std::string token(const char* what) {
    while (pos_ < bytes_.size() && std::isspace(bytes_[pos_])) ++pos_;
    size_t start = pos_;
    while (pos_ < bytes_.size() && !std::isspace(bytes_[pos_]) && pos_ - start < 32) ++pos_;
    VX_CHECK(pos_ > start, InvalidFile, "PFM header ends before the ", what);
    VX_CHECK(pos_ < bytes_.size() && std::isspace(bytes_[pos_]), InvalidFile, "PFM header: bad ", what);
    return std::string(bytes_.begin() + ptrdiff_t(start), bytes_.begin() + ptrdiff_t(pos_));
  }

  int64_t integer(const char* what) {
    std::string text = token(what);
    VX_CHECK(text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos, InvalidFile,
             "PFM header: ", what, " '", printable(text), "' is not a positive integer");
    return std::stoll(text);
  }

  double real(const char* what) {
    std::string text = token(what);
    double value = 0.0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    VX_CHECK(error == std::errc() && end == text.data() + text.size(), InvalidFile, "PFM header: ", what, " '",
             printable(text), "' is not a number (the header ends with one whitespace byte after it)");
    return value;
  }

  // The single whitespace byte after the scale; the pixel data starts after it.
  size_t data_offset() const { return pos_ + 1; }

 private:
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

uint32_t byte_swap(uint32_t x) {
  return (x >> 24) | ((x >> 8) & 0xFF00u) | ((x << 8) & 0xFF0000u) | (x << 24);
}

}  // namespace

Image decode_pfm(std::span<const uint8_t> bytes) {
  HeaderReader header(bytes);
  std::string magic = header.token("magic");
  int channels = magic == "PF" ? 3 : magic == "Pf" ? 1 : magic == "PF4" ? 4 : 0;
  VX_CHECK(channels != 0, InvalidFile, "not a PFM file (magic '", printable(magic, 8), "', expected PF, Pf or PF4)");
  int64_t width = header.integer("width");
  int64_t height = header.integer("height");
  double scale = header.real("scale");
  VX_CHECK(std::isfinite(scale) && scale != 0.0, InvalidFile, "PFM header: scale ", scale,
           " must be finite and non-zero (its sign gives the byte order)");
  check_image_size(width, height, channels);
  const bool little_endian = scale < 0.0;

  const size_t count = size_t(width) * size_t(height) * size_t(channels);
  const size_t offset = header.data_offset();
  VX_CHECK(bytes.size() >= offset && bytes.size() - offset >= count * 4, InvalidFile, "PFM data is truncated: ",
           width, "x", height, "x", channels, " needs ", count * 4, " bytes, the file has ",
           bytes.size() >= offset ? bytes.size() - offset : 0);

  Image image(int(width), int(height), channels);
  const bool swap = little_endian != (std::endian::native == std::endian::little);
  const size_t row_values = size_t(width) * size_t(channels);
  for (int64_t y = 0; y < height; ++y) {
    const uint8_t* src = bytes.data() + offset + size_t(height - 1 - y) * row_values * 4;  // bottom to top
    float* dst = image.pixels.data() + size_t(y) * row_values;
    for (size_t i = 0; i < row_values; ++i) {
      uint32_t bits;
      std::memcpy(&bits, src + i * 4, 4);
      if (swap) bits = byte_swap(bits);
      std::memcpy(dst + i, &bits, 4);
    }
  }
  return image;
}

std::vector<uint8_t> encode_pfm(const Image& image) {
  VX_CHECK(image.channels != 2, InvalidArgument, "PFM holds 1, 3 or 4 channels, not 2");
  const char* magic = image.channels == 1 ? "Pf" : image.channels == 3 ? "PF" : "PF4";
  std::string header = cat(magic, "\n", image.width, " ", image.height, "\n-1.0\n");
  std::vector<uint8_t> out(header.begin(), header.end());
  const size_t row_values = size_t(image.width) * size_t(image.channels);
  out.resize(header.size() + row_values * size_t(image.height) * 4);
  uint8_t* dst = out.data() + header.size();
  for (int y = image.height - 1; y >= 0; --y) {  // bottom to top
    const float* src = image.pixels.data() + size_t(y) * row_values;
    for (size_t i = 0; i < row_values; ++i, dst += 4) {
      uint32_t bits;
      std::memcpy(&bits, src + i, 4);
      if constexpr (std::endian::native != std::endian::little) bits = byte_swap(bits);
      std::memcpy(dst, &bits, 4);
    }
  }
  return out;
}

}  // namespace vx::image_codecs

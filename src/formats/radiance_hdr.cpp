// Radiance HDR (.hdr, RGBE): a text header ("#?RADIANCE", FORMAT=32-bit_rle_rgbe, a blank line, a
// resolution line such as "-Y 480 +X 640") then one scanline per row, each either flat (4 bytes per
// pixel) or "new" run-length encoded (per-channel runs, widths 8..32767). The old 1,1,1 repeat
// encoding of 1980s files is not supported. A channel is mantissa * 2^(exponent - 136), as stb_image
// and OpenImageIO decode it (Radiance adds 0.5 to the mantissa, which turns black channels grey);
// we encode with rounding to nearest, so a round trip errs by at most 1/256 of the pixel's largest
// channel and zero stays zero. Only RGB is stored: writing uses to_rgb; negatives are written as 0.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/printable.h"
#include "formats/image_codecs.h"

namespace vx::image_codecs {

namespace {

constexpr int kMinRleWidth = 8;
constexpr int kMaxRleWidth = 32767;
constexpr size_t kMaxHeaderBytes = 64 * 1024;

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  size_t remaining() const { return bytes_.size() - pos_; }
  const uint8_t* here() const { return bytes_.data() + pos_; }
  void skip(size_t n) { pos_ += n; }
  uint8_t byte(const char* what) {
    VX_CHECK(pos_ < bytes_.size(), InvalidFile, "HDR data is truncated in ", what);
    return bytes_[pos_++];
  }
  // The next header line without its '\n'.
  std::string_view line() {
    size_t end = pos_;
    while (end < bytes_.size() && bytes_[end] != '\n') ++end;
    VX_CHECK(end < bytes_.size() && end < kMaxHeaderBytes, InvalidFile, "HDR header is truncated or too long");
    std::string_view text(reinterpret_cast<const char*>(bytes_.data() + pos_), end - pos_);
    pos_ = end + 1;
    return text;
  }

 private:
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

struct Orientation {
  bool bottom_to_top = false;  // "+Y": the first scanline is the bottom row
  bool right_to_left = false;  // "-X"
};

// Parses "-Y H +X W" (or +Y / -X); transposed orientations (X first) are rejected.
Orientation parse_resolution(std::string_view line, int64_t* width, int64_t* height) {
  const std::string text = printable(line);
  std::vector<std::string_view> tokens;
  for (size_t pos = 0; pos < line.size();) {
    size_t end = line.find(' ', pos);
    if (end == std::string_view::npos) end = line.size();
    if (end > pos) tokens.push_back(line.substr(pos, end - pos));
    pos = end + 1;
  }
  auto axis = [&](size_t i, char name) {
    return tokens[i].size() == 2 && (tokens[i][0] == '+' || tokens[i][0] == '-') && tokens[i][1] == name;
  };
  auto number = [&](size_t i, int64_t* value) {
    auto [end, error] = std::from_chars(tokens[i].data(), tokens[i].data() + tokens[i].size(), *value);
    return error == std::errc() && end == tokens[i].data() + tokens[i].size();
  };
  VX_CHECK(tokens.size() == 4, InvalidFile, "bad HDR resolution line '", text, "'");
  VX_CHECK(!(axis(0, 'X') && axis(2, 'Y')), Unsupported, "HDR orientation '", text,
           "' (transposed, X before Y) is not supported");
  VX_CHECK(axis(0, 'Y') && axis(2, 'X') && number(1, height) && number(3, width), InvalidFile,
           "bad HDR resolution line '", text, "'");
  return Orientation{tokens[0][0] == '+', tokens[2][0] == '-'};
}

// The fewest bytes a scanline of `width` pixels can take: flat, or RLE with the longest runs.
size_t min_scanline_bytes(int64_t width) {
  size_t flat = size_t(width) * 4;
  if (width < kMinRleWidth || width > kMaxRleWidth) return flat;
  return std::min(flat, 4 + 4 * 2 * size_t((width + 126) / 127));
}

// Decodes one scanline into `rgbe` (width * 4 bytes).
void read_scanline(ByteReader& in, int width, uint8_t* rgbe) {
  const uint8_t* p = in.here();
  const bool rle = width >= kMinRleWidth && width <= kMaxRleWidth && in.remaining() >= 4 && p[0] == 2 &&
                   p[1] == 2 && (p[2] & 0x80) == 0;
  if (!rle) {
    VX_CHECK(in.remaining() >= size_t(width) * 4, InvalidFile, "HDR data is truncated in a flat scanline");
    std::memcpy(rgbe, p, size_t(width) * 4);
    in.skip(size_t(width) * 4);
    return;
  }
  const int encoded_width = (p[2] << 8) | p[3];
  VX_CHECK(encoded_width == width, InvalidFile, "HDR scanline says width ", encoded_width, ", header says ", width);
  in.skip(4);
  for (int channel = 0; channel < 4; ++channel) {
    int x = 0;
    while (x < width) {
      int code = in.byte("a run-length scanline");
      if (code > 128) {  // a run of one value
        int count = code - 128;
        VX_CHECK(x + count <= width, InvalidFile, "HDR run-length data overruns its scanline");
        uint8_t value = in.byte("a run-length scanline");
        for (int i = 0; i < count; ++i) rgbe[size_t(x + i) * 4 + size_t(channel)] = value;
        x += count;
      } else {  // `code` literal values
        VX_CHECK(code > 0 && x + code <= width, InvalidFile, "HDR run-length data overruns its scanline");
        VX_CHECK(in.remaining() >= size_t(code), InvalidFile, "HDR data is truncated in a run-length scanline");
        for (int i = 0; i < code; ++i) rgbe[size_t(x + i) * 4 + size_t(channel)] = in.here()[i];
        in.skip(size_t(code));
        x += code;
      }
    }
  }
}

void rgbe_to_float(const uint8_t* rgbe, float* rgb) {
  if (rgbe[3] == 0) {
    rgb[0] = rgb[1] = rgb[2] = 0.0f;
    return;
  }
  const float f = std::ldexp(1.0f, int(rgbe[3]) - (128 + 8));
  for (int k = 0; k < 3; ++k) rgb[k] = float(rgbe[k]) * f;
}

void float_to_rgbe(const float* rgb, uint8_t* rgbe) {
  // Largest value whose exponent fits: just under 2^127.
  static const float kLargest = std::ldexp(255.0f / 256.0f, 127);
  float c[3];
  for (int k = 0; k < 3; ++k) c[k] = std::isnan(rgb[k]) ? 0.0f : std::clamp(rgb[k], 0.0f, kLargest);
  const float largest = std::max({c[0], c[1], c[2]});
  if (largest < 1e-32f) {
    std::memset(rgbe, 0, 4);
    return;
  }
  int exponent = 0;
  std::frexp(largest, &exponent);  // largest = m * 2^exponent, m in [0.5, 1)
  float scale = std::ldexp(1.0f, 8 - exponent);  // largest * scale in [128, 256)
  if (std::lround(largest * scale) > 255) {  // rounds up to 256: one more bit of exponent
    ++exponent;
    scale *= 0.5f;
  }
  for (int k = 0; k < 3; ++k) rgbe[k] = uint8_t(std::lround(c[k] * scale));
  rgbe[3] = uint8_t(exponent + 128);
}

// Radiance's "new" RLE of one channel: runs of 4 or more equal bytes, literals in between.
void encode_channel(const uint8_t* values, int width, std::vector<uint8_t>& out) {
  auto run_at = [&](int i, int limit) {
    int run = 1;
    while (i + run < width && run < limit && values[i + run] == values[i]) ++run;
    return run;
  };
  int i = 0;
  while (i < width) {
    const int run = run_at(i, 127);
    if (run >= 4) {
      out.push_back(uint8_t(128 + run));
      out.push_back(values[i]);
      i += run;
      continue;
    }
    const int start = i;
    while (i < width && i - start < 128 && run_at(i, 4) < 4) ++i;
    out.push_back(uint8_t(i - start));
    out.insert(out.end(), values + start, values + i);
  }
}

}  // namespace

Image decode_radiance_hdr(std::span<const uint8_t> bytes) {
  ByteReader in(bytes);
  VX_CHECK(bytes.size() >= 2 && bytes[0] == '#' && bytes[1] == '?', InvalidFile,
           "not a Radiance HDR file (it does not start with '#?')");
  in.line();
  for (;;) {
    std::string_view line = in.line();
    if (line.empty()) break;
    if (line.substr(0, 7) == "FORMAT=") {
      VX_CHECK(line == "FORMAT=32-bit_rle_rgbe", Unsupported, "HDR pixel format '", printable(line.substr(7)),
               "' is not supported (only 32-bit_rle_rgbe)");
    }
  }
  int64_t width = 0, height = 0;
  const Orientation orientation = parse_resolution(in.line(), &width, &height);
  check_image_size(width, height, 3);
  VX_CHECK(uint64_t(height) * min_scanline_bytes(width) <= in.remaining(), InvalidFile, "HDR data is truncated: ",
           width, "x", height, " needs at least ", uint64_t(height) * min_scanline_bytes(width), " bytes, the file has ",
           in.remaining());

  Image image(int(width), int(height), 3);
  std::vector<uint8_t> rgbe(static_cast<size_t>(width) * 4);
  for (int64_t line = 0; line < height; ++line) {
    read_scanline(in, int(width), rgbe.data());
    const int64_t y = orientation.bottom_to_top ? height - 1 - line : line;
    for (int64_t i = 0; i < width; ++i) {
      const int64_t x = orientation.right_to_left ? width - 1 - i : i;
      rgbe_to_float(&rgbe[size_t(i) * 4], &image.at(int(x), int(y), 0));
    }
  }
  return image;
}

std::vector<uint8_t> encode_radiance_hdr(const Image& input, bool run_length_encoded) {
  const Image image = input.channels == 3 ? input : to_rgb(input);
  const std::string header = cat("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y ", image.height, " +X ", image.width, "\n");
  std::vector<uint8_t> out(header.begin(), header.end());
  const int width = image.width;
  const bool rle = run_length_encoded && width >= kMinRleWidth && width <= kMaxRleWidth;
  std::vector<uint8_t> rgbe(static_cast<size_t>(width) * 4);
  std::vector<uint8_t> channel(static_cast<size_t>(width));
  for (int y = 0; y < image.height; ++y) {
    const float* row = image.pixels.data() + size_t(y) * size_t(width) * 3;
    for (int x = 0; x < width; ++x) float_to_rgbe(row + size_t(x) * 3, &rgbe[size_t(x) * 4]);
    if (!rle) {
      out.insert(out.end(), rgbe.begin(), rgbe.end());
      continue;
    }
    out.insert(out.end(), {uint8_t(2), uint8_t(2), uint8_t(width >> 8), uint8_t(width & 0xFF)});
    for (int k = 0; k < 4; ++k) {
      for (int x = 0; x < width; ++x) channel[size_t(x)] = rgbe[size_t(x) * 4 + size_t(k)];
      encode_channel(channel.data(), width, out);
    }
  }
  return out;
}

}  // namespace vx::image_codecs

// OpenEXR through the library's generic FrameBuffer API: reads scanline or tiled single-part files
// with half, float or uint channels R, G, B (and A), or Y (and A); writes R,G,B(,A) or Y(,A) as half
// or float, ZIP compressed. Both directions work in memory through small stream adapters, so that
// reading is the same for files and for the fuzz target.
#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfIO.h>
#include <ImfInputFile.h>
#include <ImfOutputFile.h>
#include <Iex.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/half.h"
#include "formats/image_codecs.h"

namespace vx::image_codecs {

namespace {

// Memory-mapped from OpenEXR's point of view: it then takes pixel data in place through
// readMemoryMapped instead of allocating a buffer of the size a (possibly corrupt) chunk header
// claims and reading into it, so a bad size fails here before any allocation.
class MemoryInputStream : public Imf::IStream {
 public:
  explicit MemoryInputStream(std::span<const uint8_t> bytes) : Imf::IStream("memory"), bytes_(bytes) {}
  bool isMemoryMapped() const override { return true; }
  char* readMemoryMapped(int count) override {
    check_available(count);
    // OpenEXR only reads through this pointer; the interface is not const.
    char* data = const_cast<char*>(reinterpret_cast<const char*>(bytes_.data() + pos_));
    pos_ += uint64_t(count);
    return data;
  }
  bool read(char dst[], int count) override {
    check_available(count);
    std::memcpy(dst, bytes_.data() + pos_, size_t(count));
    pos_ += uint64_t(count);
    return pos_ < bytes_.size();
  }
  uint64_t tellg() override { return pos_; }
  void seekg(uint64_t pos) override { pos_ = pos; }  // reads check the bounds

 private:
  void check_available(int count) const {
    if (count < 0 || pos_ > bytes_.size() || uint64_t(count) > bytes_.size() - pos_) {
      throw Iex::InputExc("the file ends early (truncated)");
    }
  }

  std::span<const uint8_t> bytes_;
  uint64_t pos_ = 0;
};

class MemoryOutputStream : public Imf::OStream {
 public:
  MemoryOutputStream() : Imf::OStream("memory") {}
  void write(const char src[], int count) override {
    if (pos_ + uint64_t(count) > bytes_.size()) bytes_.resize(pos_ + uint64_t(count));
    std::memcpy(bytes_.data() + pos_, src, size_t(count));
    pos_ += uint64_t(count);
  }
  uint64_t tellp() override { return pos_; }
  void seekp(uint64_t pos) override { pos_ = pos; }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
  uint64_t pos_ = 0;
};

// Walks the header attributes before OpenEXR does: OpenEXR 3.1 allocates whatever size an
// attribute or tile count claims, so a flipped bit could make it ask for gigabytes. We check that
// every attribute fits in the file and that the first part's level-0 tile offsets could fit too.
void check_header_sizes(std::span<const uint8_t> bytes) {
  size_t pos = 8;  // magic and version
  const uint32_t version = uint32_t(bytes[4]) | uint32_t(bytes[5]) << 8 | uint32_t(bytes[6]) << 16 |
                           uint32_t(bytes[7]) << 24;
  const bool multi_part = (version & 0x1000u) != 0;
  auto string_at = [&](const char* what) {
    const size_t start = pos;
    while (pos < bytes.size() && bytes[pos] != 0 && pos - start < 256) ++pos;
    VX_CHECK(pos < bytes.size() && bytes[pos] == 0, InvalidFile, "OpenEXR header is truncated or corrupt in an ",
             what);
    ++pos;
    return std::string_view(reinterpret_cast<const char*>(bytes.data() + start), pos - 1 - start);
  };
  auto int32_at = [&](size_t at) {
    uint32_t v = uint32_t(bytes[at]) | uint32_t(bytes[at + 1]) << 8 | uint32_t(bytes[at + 2]) << 16 |
                 uint32_t(bytes[at + 3]) << 24;
    return int32_t(v);
  };
  bool first_part = true;
  int64_t window_width = 0, window_height = 0, tile_width = 0, tile_height = 0;
  for (;;) {
    for (;;) {
      const std::string_view name = string_at("attribute name");
      if (name.empty()) break;
      const std::string_view type = string_at("attribute type");
      VX_CHECK(bytes.size() - pos >= 4, InvalidFile, "OpenEXR header is truncated in attribute ", name);
      const int32_t size = int32_at(pos);
      pos += 4;
      VX_CHECK(size >= 0 && size_t(size) <= bytes.size() - pos, InvalidFile, "OpenEXR attribute ", name,
               " claims ", size, " bytes, more than the file holds");
      if (first_part && name == "dataWindow" && type == "box2i" && size == 16) {
        window_width = int64_t(int32_at(pos + 8)) - int32_at(pos) + 1;
        window_height = int64_t(int32_at(pos + 12)) - int32_at(pos + 4) + 1;
      }
      if (first_part && name == "tiles" && type == "tiledesc" && size == 9) {
        tile_width = uint32_t(int32_at(pos));
        tile_height = uint32_t(int32_at(pos + 4));
      }
      pos += size_t(size);
    }
    // (Larger windows are rejected by OpenEXR's own size limit, set in limit_openexr_sizes.)
    if (first_part && tile_width > 0 && tile_height > 0 && window_width > 0 && window_height > 0 &&
        window_width <= kMaxImageSide && window_height <= kMaxImageSide) {
      const int64_t tiles = ((window_width + tile_width - 1) / tile_width) * ((window_height + tile_height - 1) / tile_height);
      VX_CHECK(tiles <= int64_t(bytes.size() / 8), InvalidFile, "OpenEXR file claims ", tiles,
               " tiles, more offsets than the file holds");
    }
    first_part = false;
    // A multi-part file lists headers until an empty one (a lone null byte).
    if (!multi_part) break;
    VX_CHECK(pos < bytes.size(), InvalidFile, "OpenEXR header list is truncated");
    if (bytes[pos] == 0) break;
  }
}

// OpenEXR checks these limits when it reads a header, before it allocates line or tile buffers.
void limit_openexr_sizes() {
  static std::once_flag once;
  std::call_once(once, [] {
    Imf::Header::setMaxImageSize(kMaxImageSide, kMaxImageSide);
    Imf::Header::setMaxTileSize(kMaxImageSide, kMaxImageSide);
  });
}

std::string channel_names(const Imf::ChannelList& channels) {
  std::string names;
  for (auto it = channels.begin(); it != channels.end(); ++it) names += cat(names.empty() ? "" : ", ", it.name());
  return names.empty() ? "none" : names;
}

Image read_exr(std::span<const uint8_t> bytes) {
  MemoryInputStream stream(bytes);
  Imf::InputFile file(stream);
  const Imf::Header& header = file.header();
  const Imath::Box2i window = header.dataWindow();
  const int64_t width = int64_t(window.max.x) - int64_t(window.min.x) + 1;
  const int64_t height = int64_t(window.max.y) - int64_t(window.min.y) + 1;

  const Imf::ChannelList& channels = header.channels();
  auto has = [&](const char* name) { return channels.findChannel(name) != nullptr; };
  std::vector<const char*> names;
  if (has("R") || has("G") || has("B")) {
    names = {"R", "G", "B"};  // a missing one of the three reads as 0
  } else if (has("Y")) {
    VX_CHECK(!has("RY") && !has("BY"), Unsupported, "OpenEXR luminance/chroma images (Y, RY, BY) are not supported");
    names = {"Y"};
  } else {
    fail(ErrorCode::Unsupported, cat("OpenEXR file has no R, G, B or Y channel (channels: ", channel_names(channels), ")"));
  }
  if (has("A")) names.push_back("A");
  for (const char* name : names) {
    const Imf::Channel* channel = channels.findChannel(name);
    VX_CHECK(!channel || (channel->xSampling == 1 && channel->ySampling == 1), Unsupported, "OpenEXR channel ", name,
             " is subsampled");
  }
  const int count = int(names.size());
  check_image_size(width, height, count);

  // Read in strips, growing the image as rows arrive: a corrupt header that claims a huge image
  // fails at its first missing strip instead of after allocating and clearing the whole image.
  constexpr int64_t kStripRows = 64;
  Image image;
  image.width = int(width);
  image.height = int(height);
  image.channels = count;
  const size_t x_stride = sizeof(float) * size_t(count);
  const size_t row_values = size_t(width) * size_t(count);
  for (int64_t row = 0; row < height; row += kStripRows) {
    const int64_t rows = std::min(kStripRows, height - row);
    image.pixels.resize(size_t(row + rows) * row_values);
    const int first_y = int(window.min.y + row);
    Imf::FrameBuffer frame;
    for (int k = 0; k < count; ++k) {
      frame.insert(names[size_t(k)],
                   Imf::Slice::Make(Imf::FLOAT, image.pixels.data() + size_t(row) * row_values + size_t(k),
                                    Imath::V2i(window.min.x, first_y), width, rows, x_stride, x_stride * size_t(width)));
    }
    file.setFrameBuffer(frame);
    file.readPixels(first_y, int(first_y + rows - 1));
  }
  return image;
}

}  // namespace

Image decode_exr(std::span<const uint8_t> bytes) {
  static const uint8_t kMagic[4] = {0x76, 0x2f, 0x31, 0x01};
  VX_CHECK(bytes.size() >= 4 && std::memcmp(bytes.data(), kMagic, 4) == 0, InvalidFile,
           "not an OpenEXR file (bad magic number)");
  VX_CHECK(bytes.size() >= 8, InvalidFile, "OpenEXR file is truncated in its version field");
  check_header_sizes(bytes);
  limit_openexr_sizes();
  try {
    return read_exr(bytes);
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    fail(ErrorCode::InvalidFile, cat("bad OpenEXR data: ", e.what()));
  }
}

std::vector<uint8_t> encode_exr(const Image& image, bool half, ExrCompression compression, int zip_level) {
  static const char* const kNames[5][4] = {{}, {"Y"}, {"Y", "A"}, {"R", "G", "B"}, {"R", "G", "B", "A"}};
  try {
    Imf::Header header(image.width, image.height);
    switch (compression) {
      case ExrCompression::zip: header.compression() = Imf::ZIP_COMPRESSION; break;
      case ExrCompression::zips: header.compression() = Imf::ZIPS_COMPRESSION; break;
      case ExrCompression::piz: header.compression() = Imf::PIZ_COMPRESSION; break;
      case ExrCompression::rle: header.compression() = Imf::RLE_COMPRESSION; break;
      case ExrCompression::none: header.compression() = Imf::NO_COMPRESSION; break;
    }
    VX_CHECK(zip_level >= 0 && zip_level <= 9, InvalidArgument, "EXR zip level ", zip_level, " must be 0 to 9");
    if (zip_level > 0) header.zipCompressionLevel() = zip_level;
    const Imf::PixelType type = half ? Imf::HALF : Imf::FLOAT;
    // OpenEXR converts pixel types when reading but not when writing: give it halves for half files.
    std::vector<uint16_t> halves;
    if (half) {
      halves.resize(image.pixels.size());
      for (size_t i = 0; i < halves.size(); ++i) halves[i] = float_to_half(image.pixels[i]);
    }
    const size_t value_size = half ? sizeof(uint16_t) : sizeof(float);
    const char* base = half ? reinterpret_cast<const char*>(halves.data()) : reinterpret_cast<const char*>(image.pixels.data());
    const size_t x_stride = value_size * size_t(image.channels);
    Imf::FrameBuffer frame;
    for (int k = 0; k < image.channels; ++k) {
      const char* name = kNames[image.channels][k];
      header.channels().insert(name, Imf::Channel(type));
      frame.insert(name, Imf::Slice(type, const_cast<char*>(base + value_size * size_t(k)), x_stride,
                                    x_stride * size_t(image.width)));
    }
    MemoryOutputStream stream;
    {
      Imf::OutputFile file(stream, header);
      file.setFrameBuffer(frame);
      file.writePixels(image.height);
    }  // the destructor writes the line offset table
    return std::move(stream.bytes());
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    fail(ErrorCode::Internal, cat("OpenEXR encoding failed: ", e.what()));
  }
}

}  // namespace vx::image_codecs

// PNG through libpng: 1, 2, 4, 8 and 16-bit grey, grey+alpha, RGB, RGBA and palette images
// (palette and low bit depths expanded to 8 bits; the palette's tRNS is not turned into alpha).
// Samples are taken as stored: v / 255 or v / 65535.
//
// libpng reports errors by longjmp. To keep that well-defined in C++, the calls that can fail run in
// small functions whose frames hold no objects with destructors; they return false after an error
// and the message is kept in the codec state.
#include <png.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>

#include "core/error.h"
#include "formats/image_codecs.h"

namespace vx::image_codecs {

namespace {

struct PngState {
  char message[256] = "";
  // Reading: the file bytes and how far libpng has read.
  const uint8_t* data = nullptr;
  size_t size = 0;
  size_t pos = 0;
  // Writing: the bytes produced so far.
  std::vector<uint8_t>* out = nullptr;
};

void on_error(png_structp png, png_const_charp message) {
  auto* state = static_cast<PngState*>(png_get_error_ptr(png));
  std::snprintf(state->message, sizeof state->message, "%s", message);
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}  // warnings (bad ancillary chunks) are not failures

void on_read(png_structp png, png_bytep dst, size_t count) {
  auto* state = static_cast<PngState*>(png_get_io_ptr(png));
  if (state->size - state->pos < count) png_error(png, "file ends early (truncated)");
  std::memcpy(dst, state->data + state->pos, count);
  state->pos += count;
}

void on_write(png_structp png, png_bytep src, size_t count) {
  auto* state = static_cast<PngState*>(png_get_io_ptr(png));
  bool ok = true;
  try {
    state->out->insert(state->out->end(), src, src + count);
  } catch (...) {
    ok = false;
  }
  if (!ok) png_error(png, "out of memory while encoding");
}

void on_flush(png_structp) {}

struct PngLayout {
  png_uint_32 width = 0;
  png_uint_32 height = 0;
  int channels = 0;
  int bit_depth = 0;
  size_t row_bytes = 0;
};

// Reads the header and sets up the expansions. No objects with destructors in this frame (setjmp).
bool read_layout(png_structp png, png_infop info, PngLayout* layout) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_info(png, info);
  const int color_type = png_get_color_type(png, info);
  const int bit_depth = png_get_bit_depth(png, info);
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (bit_depth == 16 && std::endian::native == std::endian::little) png_set_swap(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  layout->width = png_get_image_width(png, info);
  layout->height = png_get_image_height(png, info);
  layout->channels = png_get_channels(png, info);
  layout->bit_depth = png_get_bit_depth(png, info);
  layout->row_bytes = png_get_rowbytes(png, info);
  return true;
}

bool read_rows(png_structp png, png_infop info, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_image(png, rows);
  png_read_end(png, nullptr);  // reads up to IEND, so a file cut after the pixels is caught too
  return true;
}

bool write_png(png_structp png, png_infop info, const PngLayout* layout, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  static const int kColorTypes[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                     PNG_COLOR_TYPE_RGBA};
  png_set_IHDR(png, info, layout->width, layout->height, layout->bit_depth, kColorTypes[layout->channels],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (layout->bit_depth == 16 && std::endian::native == std::endian::little) png_set_swap(png);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  return true;
}

class PngReadStruct {
 public:
  explicit PngReadStruct(PngState* state) {
    png_ = png_create_read_struct(PNG_LIBPNG_VER_STRING, state, on_error, on_warning);
    VX_CHECK(png_, OutOfMemory, "cannot create a PNG decoder");
    info_ = png_create_info_struct(png_);
    if (!info_) png_destroy_read_struct(&png_, nullptr, nullptr);
    VX_CHECK(info_, OutOfMemory, "cannot create a PNG decoder");
    // libpng reads leniently by default: a wrong zlib checksum (deflate data corrupt under valid
    // chunk CRCs), too much or too little image data, or a palette index past the palette are
    // "benign" and only warn, which would decode garbage. Make every one of them an error.
    // (The Adler-32 check itself is on by default; png_set_option's onoff argument is a bool, so
    // passing PNG_OPTION_OFF would turn PNG_IGNORE_ADLER32 on.)
    png_set_benign_errors(png_, 0);
    png_set_check_for_invalid_index(png_, 1);
    // Refuse oversized headers in libpng itself, before it sets up rows for them.
    png_set_user_limits(png_, kMaxImageSide, kMaxImageSide);
  }
  ~PngReadStruct() { png_destroy_read_struct(&png_, &info_, nullptr); }
  PngReadStruct(const PngReadStruct&) = delete;
  PngReadStruct& operator=(const PngReadStruct&) = delete;
  png_structp png() const { return png_; }
  png_infop info() const { return info_; }

 private:
  png_structp png_ = nullptr;
  png_infop info_ = nullptr;
};

class PngWriteStruct {
 public:
  explicit PngWriteStruct(PngState* state) {
    png_ = png_create_write_struct(PNG_LIBPNG_VER_STRING, state, on_error, on_warning);
    VX_CHECK(png_, OutOfMemory, "cannot create a PNG encoder");
    info_ = png_create_info_struct(png_);
    if (!info_) png_destroy_write_struct(&png_, nullptr);
    VX_CHECK(info_, OutOfMemory, "cannot create a PNG encoder");
  }
  ~PngWriteStruct() { png_destroy_write_struct(&png_, &info_); }
  PngWriteStruct(const PngWriteStruct&) = delete;
  PngWriteStruct& operator=(const PngWriteStruct&) = delete;
  png_structp png() const { return png_; }
  png_infop info() const { return info_; }

 private:
  png_structp png_ = nullptr;
  png_infop info_ = nullptr;
};

}  // namespace

Image decode_png(std::span<const uint8_t> bytes) {
  VX_CHECK(bytes.size() >= 8 && png_sig_cmp(bytes.data(), 0, 8) == 0, InvalidFile,
           "not a PNG file (bad signature)");
  PngState state;
  state.data = bytes.data();
  state.size = bytes.size();
  PngReadStruct reader(&state);
  png_set_read_fn(reader.png(), &state, on_read);

  PngLayout layout;
  VX_CHECK(read_layout(reader.png(), reader.info(), &layout), InvalidFile, "bad PNG header: ", state.message);
  check_image_size(layout.width, layout.height, layout.channels);
  VX_CHECK(layout.channels >= 1 && layout.channels <= 4 && (layout.bit_depth == 8 || layout.bit_depth == 16) &&
               layout.row_bytes == size_t(layout.width) * size_t(layout.channels) * size_t(layout.bit_depth / 8),
           InvalidFile, "unexpected PNG layout: ", layout.channels, " channels of ", layout.bit_depth, " bits");
  // Deflate expands at most 1032:1, so a header claiming far more pixels than the file can hold is
  // corrupt; checking here keeps us from allocating for it.
  const uint64_t raw_bytes = uint64_t(layout.row_bytes + 1) * layout.height;
  VX_CHECK(raw_bytes <= 2064 * uint64_t(bytes.size()), InvalidFile, "PNG header claims ", layout.width, "x",
           layout.height, " pixels, more than ", bytes.size(), " bytes of compressed data can hold");

  std::vector<uint8_t> raw(layout.row_bytes * layout.height);
  std::vector<png_bytep> rows(layout.height);
  for (size_t y = 0; y < layout.height; ++y) rows[y] = raw.data() + y * layout.row_bytes;
  VX_CHECK(read_rows(reader.png(), reader.info(), rows.data()), InvalidFile, "bad PNG data: ", state.message);

  Image image(int(layout.width), int(layout.height), layout.channels);
  if (layout.bit_depth == 8) {
    for (size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = float(raw[i]) / 255.0f;
  } else {
    for (size_t i = 0; i < image.pixels.size(); ++i) {
      uint16_t v;
      std::memcpy(&v, raw.data() + 2 * i, 2);  // native order after png_set_swap
      image.pixels[i] = float(v) / 65535.0f;
    }
  }
  return image;
}

std::vector<uint8_t> encode_png(const Image& image, int bits) {
  VX_CHECK(bits == 8 || bits == 16, InvalidArgument, "PNG bit depth must be 8 or 16, not ", bits);
  PngLayout layout;
  layout.width = png_uint_32(image.width);
  layout.height = png_uint_32(image.height);
  layout.channels = image.channels;
  layout.bit_depth = bits;
  layout.row_bytes = size_t(image.width) * size_t(image.channels) * size_t(bits / 8);

  const float max_value = bits == 8 ? 255.0f : 65535.0f;
  std::vector<uint8_t> raw(layout.row_bytes * layout.height);
  for (size_t i = 0; i < image.pixels.size(); ++i) {
    float v = image.pixels[i];
    v = std::isnan(v) ? 0.0f : std::clamp(v, 0.0f, 1.0f);
    const auto q = uint16_t(std::lround(v * max_value));
    if (bits == 8) {
      raw[i] = uint8_t(q);
    } else {
      std::memcpy(raw.data() + 2 * i, &q, 2);  // native order; png_set_swap fixes little-endian
    }
  }
  std::vector<png_bytep> rows(layout.height);
  for (size_t y = 0; y < layout.height; ++y) rows[y] = raw.data() + y * layout.row_bytes;

  std::vector<uint8_t> out;
  PngState state;
  state.out = &out;
  PngWriteStruct writer(&state);
  png_set_write_fn(writer.png(), &state, on_write, on_flush);
  VX_CHECK(write_png(writer.png(), writer.info(), &layout, rows.data()), Internal, "PNG encoding failed: ",
           state.message);
  return out;
}

}  // namespace vx::image_codecs

// Image files: round trips per format and bit depth with stated tolerances, files written by other
// code (tests/data/make_image_test_data.py, OpenEXR's own API), and truncated or corrupt files.
#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfOutputFile.h>
#include <ImfRgbaFile.h>
#include <ImfTiledOutputFile.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <random>

#include "common/test_util.h"
#include "core/error.h"
#include "core/half.h"
#include "formats/image_codecs.h"
#include "formats/image_io.h"

namespace vx {
namespace {

namespace fs = std::filesystem;

fs::path data_dir() { return fs::path(VOLVOX_SOURCE_DIR) / "tests" / "data" / "images"; }

// Runs `f`, expects a vx::Error with `code`, returns its message ("" and a failure otherwise).
std::string error_of(const std::function<void()>& f, ErrorCode code) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << "wrong error code (" << error_code_name(e.code()) << "): " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an error " << error_code_name(code);
  return "";
}

// Deterministic values in [lo, hi).
Image random_image(int w, int h, int c, uint64_t seed, float lo, float hi) {
  Image image(w, h, c);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (float& v : image.pixels) v = dist(rng);
  return image;
}

double max_abs_diff(const Image& a, const Image& b) {
  EXPECT_EQ(a.width, b.width);
  EXPECT_EQ(a.height, b.height);
  EXPECT_EQ(a.channels, b.channels);
  if (a.pixels.size() != b.pixels.size()) return INFINITY;
  double worst = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i) worst = std::max(worst, double(std::abs(a.pixels[i] - b.pixels[i])));
  return worst;
}

Image round_trip(const Image& image, const std::string& file_name, const ImageWriteOptions& options = {}) {
  fs::path path = test::temp_dir() / file_name;
  write_image(path, image, options);
  return read_image(path);
}

void write_bytes(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

std::vector<uint8_t> prefix(const std::vector<uint8_t>& bytes, size_t n) {
  return std::vector<uint8_t>(bytes.begin(), bytes.begin() + ptrdiff_t(n));
}

// Every cut of `bytes` in `cuts` must fail to decode with InvalidFile.
void expect_truncations_fail(const std::vector<uint8_t>& bytes, ImageFormat format, std::vector<size_t> cuts) {
  for (size_t cut : cuts) {
    ASSERT_LT(cut, bytes.size());
    std::string message = error_of([&] { decode_image(prefix(bytes, cut), format); }, ErrorCode::InvalidFile);
    EXPECT_FALSE(message.empty()) << "cut at " << cut << " of " << bytes.size();
  }
}

// ---------------------------------------------------------------------------------------------------
// Extensions, errors and helpers

TEST(ImageIo, FormatFromExtensionIgnoresCase) {
  EXPECT_EQ(image_format_for_path("a/b.pfm"), ImageFormat::Pfm);
  EXPECT_EQ(image_format_for_path("b.PNG"), ImageFormat::Png);
  EXPECT_EQ(image_format_for_path("b.Hdr"), ImageFormat::RadianceHdr);
  EXPECT_EQ(image_format_for_path("x.y.EXR"), ImageFormat::Exr);
  std::string message = error_of([] { image_format_for_path("photo.jpg"); }, ErrorCode::Unsupported);
  EXPECT_NE(message.find(".jpg"), std::string::npos) << message;
  error_of([] { image_format_for_path("no_extension"); }, ErrorCode::Unsupported);
}

TEST(ImageIo, UnknownExtensionIsRejectedForReadAndWrite) {
  fs::path path = test::temp_dir() / "image.tiff";
  std::string message = error_of([&] { write_image(path, Image(2, 2, 3)); }, ErrorCode::Unsupported);
  EXPECT_NE(message.find(".tiff"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(path));
  write_bytes(path, {1, 2, 3});
  message = error_of([&] { read_image(path); }, ErrorCode::Unsupported);
  EXPECT_NE(message.find(".tiff"), std::string::npos) << message;
}

TEST(ImageIo, MissingFileIsAnIoErrorNamingTheFile) {
  fs::path path = test::temp_dir() / "does_not_exist.png";
  std::string message = error_of([&] { read_image(path); }, ErrorCode::Io);
  EXPECT_NE(message.find("does_not_exist.png"), std::string::npos) << message;
}

TEST(ImageIo, CorruptFileErrorNamesTheFile) {
  fs::path path = test::temp_dir() / "garbage.png";
  write_bytes(path, {'n', 'o', 't', ' ', 'p', 'n', 'g', '!', 0, 0});
  std::string message = error_of([&] { read_image(path); }, ErrorCode::InvalidFile);
  EXPECT_NE(message.find("garbage.png"), std::string::npos) << message;
  EXPECT_NE(message.find("signature"), std::string::npos) << message;
}

TEST(ImageIo, EmptyFileIsInvalidForEveryFormat) {
  for (const char* name : {"empty.pfm", "empty.png", "empty.hdr", "empty.exr"}) {
    fs::path path = test::temp_dir() / name;
    write_bytes(path, {});
    error_of([&] { read_image(path); }, ErrorCode::InvalidFile);
  }
}

TEST(ImageIo, WriteRejectsMalformedImages) {
  fs::path dir = test::temp_dir();
  error_of([&] { write_image(dir / "a.png", Image(2, 2, 5)); }, ErrorCode::InvalidArgument);
  error_of([&] { write_image(dir / "a.exr", Image()); }, ErrorCode::InvalidArgument);
  Image wrong_size(2, 2, 3);
  wrong_size.pixels.pop_back();
  error_of([&] { write_image(dir / "a.pfm", wrong_size); }, ErrorCode::InvalidArgument);
  error_of([&] { write_image(dir / "a.pfm", Image(2, 2, 2)); }, ErrorCode::InvalidArgument);  // PFM: 1, 3, 4
  ImageWriteOptions twelve_bits;
  twelve_bits.png_bits = 12;
  error_of([&] { write_image(dir / "a.png", Image(2, 2, 3), twelve_bits); }, ErrorCode::InvalidArgument);
}

TEST(ImageIo, ToRgbBroadcastsLikeOidn) {
  Image grey(2, 1, 1);
  grey.pixels = {0.25f, 0.5f};
  EXPECT_EQ(to_rgb(grey).pixels, (std::vector<float>{0.25f, 0.25f, 0.25f, 0.5f, 0.5f, 0.5f}));
  Image two(1, 1, 2);
  two.pixels = {1.0f, 2.0f};
  EXPECT_EQ(to_rgb(two).pixels, (std::vector<float>{1.0f, 2.0f, 2.0f}));  // OIDN: (x, y, y)
  Image rgb = random_image(3, 2, 3, 1, 0.0f, 1.0f);
  EXPECT_EQ(to_rgb(rgb).pixels, rgb.pixels);
  Image rgba(2, 1, 4);
  rgba.pixels = {1, 2, 3, 4, 5, 6, 7, 8};
  Image dropped = to_rgb(rgba);
  EXPECT_EQ(dropped.channels, 3);
  EXPECT_EQ(dropped.pixels, (std::vector<float>{1, 2, 3, 5, 6, 7}));
}

TEST(ImageIo, SameSizeComparesWidthAndHeightOnly) {
  EXPECT_TRUE(same_size(Image(4, 3, 1), Image(4, 3, 3)));
  EXPECT_FALSE(same_size(Image(4, 3, 3), Image(3, 4, 3)));
  EXPECT_FALSE(same_size(Image(4, 3, 3), Image(4, 2, 3)));
}

// ---------------------------------------------------------------------------------------------------
// PFM

TEST(Pfm, RoundTripIsBitExactForOneThreeAndFourChannels) {
  for (int c : {1, 3, 4}) {
    Image image = random_image(7, 5, c, 10 + c, -100.0f, 100.0f);
    image.pixels[0] = std::numeric_limits<float>::infinity();
    image.pixels[1] = 1e-40f;  // subnormal
    Image back = round_trip(image, "rt.pfm");
    ASSERT_EQ(back.channels, c);
    EXPECT_EQ(back.pixels, image.pixels) << c << " channels";
  }
}

TEST(Pfm, WritesLittleEndianBottomRowFirst) {
  Image image(1, 2, 1);
  image.pixels = {1.0f, 2.0f};  // top, bottom
  std::vector<uint8_t> bytes = encode_image(image, ImageFormat::Pfm);
  const std::string header = "Pf\n1 2\n-1.0\n";
  ASSERT_EQ(bytes.size(), header.size() + 8);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + ptrdiff_t(header.size())), header);
  float first;
  std::memcpy(&first, bytes.data() + header.size(), 4);
  EXPECT_EQ(first, 2.0f);  // the bottom row (on this little-endian machine)
}

TEST(Pfm, ReadsBigEndianFileFromAnotherTool) {
  Image image = read_image(data_dir() / "rgb_big_endian_3x2.pfm");
  ASSERT_EQ(image.width, 3);
  ASSERT_EQ(image.height, 2);
  ASSERT_EQ(image.channels, 3);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x)
      for (int c = 0; c < 3; ++c) EXPECT_EQ(image.at(x, y, c), float(x + 10 * y) + 0.25f * float(c) - 1.5f);
}

TEST(Pfm, ReadsGreyLittleEndianWithOneLineHeader) {
  Image image = read_image(data_dir() / "grey_2x2.pfm");
  ASSERT_EQ(image.channels, 1);
  EXPECT_EQ(image.pixels, (std::vector<float>{1e-3f, 2.0f, -7.0f, 1e6f}));
}

TEST(Pfm, TruncatedAndCorruptHeadersAreInvalid) {
  std::vector<uint8_t> bytes = encode_image(random_image(4, 3, 3, 5, 0, 1), ImageFormat::Pfm);
  expect_truncations_fail(bytes, ImageFormat::Pfm, {0, 1, 2, 5, 10, 12, 13, bytes.size() / 2, bytes.size() - 1});
  auto decode_text = [](const std::string& text) {
    decode_image(std::vector<uint8_t>(text.begin(), text.end()), ImageFormat::Pfm);
  };
  error_of([&] { decode_text("P6\n1 1\n255\nabc"); }, ErrorCode::InvalidFile);
  error_of([&] { decode_text("PF\nx 1\n-1\n" + std::string(12, '\0')); }, ErrorCode::InvalidFile);
  error_of([&] { decode_text("PF\n1 -1\n-1\n" + std::string(12, '\0')); }, ErrorCode::InvalidFile);
  error_of([&] { decode_text("PF\n0 1\n-1\n"); }, ErrorCode::InvalidFile);
  error_of([&] { decode_text("PF\n1 1\n0\n" + std::string(12, '\0')); }, ErrorCode::InvalidFile);
  error_of([&] { decode_text("PF\n1 1\nnan\n" + std::string(12, '\0')); }, ErrorCode::InvalidFile);
  // A huge claimed size is rejected before anything is allocated.
  std::string message = error_of([&] { decode_text("PF\n8000 8000\n-1\n" + std::string(12, '\0')); },
                                 ErrorCode::InvalidFile);
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
  message = error_of([&] { decode_text("PF\n60000 60000\n-1\n" + std::string(12, '\0')); }, ErrorCode::InvalidFile);
  EXPECT_NE(message.find("limit"), std::string::npos) << message;
  error_of([&] { decode_text("PF\n999999 1\n-1\n"); }, ErrorCode::InvalidFile);
}

// A header that runs straight into the pixel data (no whitespace byte after the scale) makes the
// scale token binary: the message must show it escaped, never raw bytes.
TEST(Pfm, BinaryInAHeaderIsEscapedInTheMessage) {
  auto expect_printable = [](const std::string& message) {
    for (char c : message) ASSERT_TRUE(c >= 0x20 && c < 0x7F) << "raw byte " << int(uint8_t(c)) << " in: " << message;
  };
  fs::path path = test::temp_dir() / "no_final_whitespace.pfm";
  std::vector<uint8_t> bytes = {'P', 'F', '\n', '1', ' ', '1', '\n', '-', '1', '.', '0'};
  for (uint8_t b : {0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x20, 0x41, 0x00, 0x00, 0x80, 0x3F}) bytes.push_back(b);
  write_bytes(path, bytes);  // 1.0, 10.0 (its 0x20 ends the token), 1.0
  std::string message = error_of([&] { read_image(path); }, ErrorCode::InvalidFile);
  expect_printable(message);
  EXPECT_NE(message.find("no_final_whitespace.pfm"), std::string::npos) << message;
  EXPECT_NE(message.find("scale '-1.0\\x00\\x00\\x80?\\x00\\x00'"), std::string::npos) << message;
  write_bytes(path, {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13});
  message = error_of([&] { read_image(path); }, ErrorCode::InvalidFile);
  expect_printable(message);
  EXPECT_NE(message.find("magic '\\x89PNG'"), std::string::npos) << message;
}

// ---------------------------------------------------------------------------------------------------
// PNG

TEST(Png, EightBitRoundTripIsExactOnTheGridAndWithinHalfAStepOffIt) {
  for (int c = 1; c <= 4; ++c) {
    Image grid(16, 16, c);
    for (size_t i = 0; i < grid.pixels.size(); ++i) grid.pixels[i] = float((i * 37) % 256) / 255.0f;
    Image back = round_trip(grid, "grid.png");
    ASSERT_EQ(back.channels, c);
    EXPECT_EQ(max_abs_diff(back, grid), 0.0) << c << " channels";

    Image values = random_image(9, 7, c, 20 + c, 0.0f, 1.0f);
    EXPECT_LE(max_abs_diff(round_trip(values, "values.png"), values), 0.5 / 255 + 1e-7) << c << " channels";
  }
}

TEST(Png, SixteenBitRoundTripIsExactOnTheGridAndWithinHalfAStepOffIt) {
  ImageWriteOptions sixteen;
  sixteen.png_bits = 16;
  for (int c = 1; c <= 4; ++c) {
    Image grid(16, 16, c);
    for (size_t i = 0; i < grid.pixels.size(); ++i) grid.pixels[i] = float((i * 4099) % 65536) / 65535.0f;
    Image back = round_trip(grid, "grid16.png", sixteen);
    ASSERT_EQ(back.channels, c);
    EXPECT_EQ(max_abs_diff(back, grid), 0.0) << c << " channels";

    Image values = random_image(9, 7, c, 30 + c, 0.0f, 1.0f);
    EXPECT_LE(max_abs_diff(round_trip(values, "values16.png", sixteen), values), 0.5 / 65535 + 1e-7);
  }
}

TEST(Png, WritingClampsToZeroOneAndNanToZero) {
  Image image(4, 1, 1);
  image.pixels = {-0.5f, 1.5f, std::numeric_limits<float>::quiet_NaN(), 0.5f};
  Image back = round_trip(image, "clamped.png");
  EXPECT_EQ(back.pixels[0], 0.0f);
  EXPECT_EQ(back.pixels[1], 1.0f);
  EXPECT_EQ(back.pixels[2], 0.0f);
  EXPECT_EQ(back.pixels[3], 128.0f / 255.0f);  // 127.5 rounds half away from zero
}

TEST(Png, ReadsSixteenBitGreyFromAnotherTool) {
  Image image = read_image(data_dir() / "grey16_3x2.png");
  ASSERT_EQ(image.channels, 1);
  ASSERT_EQ(image.width, 3);
  ASSERT_EQ(image.height, 2);
  const int values[6] = {0, 1, 257, 32768, 12345, 65535};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(image.pixels[size_t(i)], float(values[i]) / 65535.0f) << i;
}

TEST(Png, ExpandsTwoBitPalettesToRgb) {
  Image image = read_image(data_dir() / "palette2bit_4x3.png");
  ASSERT_EQ(image.channels, 3);
  ASSERT_EQ(image.width, 4);
  ASSERT_EQ(image.height, 3);
  const int palette[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {10, 20, 30}};
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 4; ++x)
      for (int c = 0; c < 3; ++c) EXPECT_EQ(image.at(x, y, c), float(palette[(x + y) % 4][c]) / 255.0f);
}

TEST(Png, ReadsInterlacedRgbaWithAlphaAsFourthChannel) {
  Image image = read_image(data_dir() / "rgba8_adam7_5x5.png");
  ASSERT_EQ(image.channels, 4);
  ASSERT_EQ(image.width, 5);
  ASSERT_EQ(image.height, 5);
  for (int y = 0; y < 5; ++y) {
    for (int x = 0; x < 5; ++x) {
      const int expected[4] = {40 * x + 7 * y, 255 - 30 * y, 11 * x * y, 200 + x + y};
      for (int c = 0; c < 4; ++c) EXPECT_EQ(image.at(x, y, c), float(expected[c]) / 255.0f) << x << "," << y;
    }
  }
}

TEST(Png, ReadsGreyAlphaAsTwoChannels) {
  Image image = read_image(data_dir() / "grey_alpha8_2x2.png");
  ASSERT_EQ(image.channels, 2);
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 2; ++x) {
      EXPECT_EQ(image.at(x, y, 0), float(60 * x + 100 * y) / 255.0f);
      EXPECT_EQ(image.at(x, y, 1), float(255 - 50 * x - 100 * y) / 255.0f);
    }
  }
}

TEST(Png, TruncatedFilesAreInvalid) {
  std::vector<uint8_t> bytes = encode_image(random_image(32, 16, 3, 7, 0, 1), ImageFormat::Png);
  expect_truncations_fail(bytes, ImageFormat::Png, {0, 4, 8, 20, 33, 40, bytes.size() / 2, bytes.size() - 13,
                                                    bytes.size() - 1});
}

TEST(Png, CorruptDataAndChecksumsAreInvalid) {
  std::vector<uint8_t> bytes = encode_image(random_image(32, 16, 3, 8, 0, 1), ImageFormat::Png);
  std::vector<uint8_t> bad_crc = bytes;
  bad_crc[29] ^= 0xFF;  // the IHDR checksum
  error_of([&] { decode_image(bad_crc, ImageFormat::Png); }, ErrorCode::InvalidFile);
  std::vector<uint8_t> bad_ihdr = bytes;
  bad_ihdr[24] = 3;  // bit depth 3 does not exist (checksum fixed below)
  uint32_t crc = 0;
  {
    // Recompute the IHDR CRC with zlib's algorithm so that only the field is wrong.
    uint32_t table[256];
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table[n] = c;
    }
    crc = 0xFFFFFFFFu;
    for (size_t i = 12; i < 29; ++i) crc = table[(crc ^ bad_ihdr[i]) & 0xFF] ^ (crc >> 8);
    crc ^= 0xFFFFFFFFu;
  }
  for (int k = 0; k < 4; ++k) bad_ihdr[29 + size_t(k)] = uint8_t(crc >> (24 - 8 * k));
  error_of([&] { decode_image(bad_ihdr, ImageFormat::Png); }, ErrorCode::InvalidFile);
  std::vector<uint8_t> bad_data = bytes;
  bad_data[bytes.size() / 2] ^= 0x55;  // inside IDAT: its checksum no longer matches
  error_of([&] { decode_image(bad_data, ImageFormat::Png); }, ErrorCode::InvalidFile);
}

TEST(Png, HugeClaimedSizeIsRejectedBeforeAllocating) {
  // A valid 1x1 PNG whose header claims 60000 x 60000 pixels (checksum fixed).
  std::vector<uint8_t> bytes = encode_image(Image(1, 1, 4), ImageFormat::Png);
  for (size_t offset : {16u, 20u}) {
    bytes[offset + 2] = 0xEA;
    bytes[offset + 3] = 0x60;
  }
  uint32_t table[256];
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 12; i < 29; ++i) crc = table[(crc ^ bytes[i]) & 0xFF] ^ (crc >> 8);
  crc ^= 0xFFFFFFFFu;
  for (int k = 0; k < 4; ++k) bytes[29 + size_t(k)] = uint8_t(crc >> (24 - 8 * k));
  std::string message = error_of([&] { decode_image(bytes, ImageFormat::Png); }, ErrorCode::InvalidFile);
  EXPECT_NE(message.find("60000x60000"), std::string::npos) << message;
}

// PNG chunks: 4-byte big-endian length, 4-byte type, data, CRC-32 of type and data.
struct PngChunk {
  size_t at = 0;  // offset of the length field
  uint32_t length = 0;
  std::string type;
};

std::vector<PngChunk> png_chunks(const std::vector<uint8_t>& png) {
  std::vector<PngChunk> chunks;
  for (size_t at = 8; at + 12 <= png.size();) {
    PngChunk c;
    c.at = at;
    c.length = uint32_t(png[at]) << 24 | uint32_t(png[at + 1]) << 16 | uint32_t(png[at + 2]) << 8 | png[at + 3];
    c.type.assign(png.begin() + ptrdiff_t(at + 4), png.begin() + ptrdiff_t(at + 8));
    chunks.push_back(c);
    at += 12 + c.length;
  }
  return chunks;
}

void append_png_chunk(std::vector<uint8_t>& png, const char* type, const std::vector<uint8_t>& data) {
  const uint32_t length = uint32_t(data.size());
  for (int k = 0; k < 4; ++k) png.push_back(uint8_t(length >> (24 - 8 * k)));
  const size_t type_at = png.size();
  png.insert(png.end(), type, type + 4);
  png.insert(png.end(), data.begin(), data.end());
  const uint32_t crc = uint32_t(crc32(0, png.data() + type_at, uInt(png.size() - type_at)));
  for (int k = 0; k < 4; ++k) png.push_back(uint8_t(crc >> (24 - 8 * k)));
}

// Recomputes a chunk's CRC with zlib's crc32, so that only what the test changed inside it is wrong.
void fix_png_crc(std::vector<uint8_t>& png, const PngChunk& c) {
  const uint32_t crc = uint32_t(crc32(0, png.data() + c.at + 4, uInt(4 + c.length)));
  for (int k = 0; k < 4; ++k) png[c.at + 8 + c.length + size_t(k)] = uint8_t(crc >> (24 - 8 * k));
}

// An 8x8 8-bit grey PNG holding the zlib stream of `level` (0: stored blocks, so that a changed
// byte inside the stream is still valid deflate and only the Adler-32 check can tell), in one IDAT
// or with the 4-byte Adler-32 in a second IDAT: libpng then checks it only after the last row, when
// it reports a mismatch as a "benign" error.
std::vector<uint8_t> grey_png(int level, bool trailer_apart) {
  std::vector<uint8_t> raw;
  for (int y = 0; y < 8; ++y) {
    raw.push_back(0);  // filter type None
    for (int x = 0; x < 8; ++x) raw.push_back(uint8_t(16 * x + y));
  }
  uLongf size = compressBound(uLong(raw.size()));
  std::vector<uint8_t> z(size);
  EXPECT_EQ(compress2(z.data(), &size, raw.data(), uLong(raw.size()), level), Z_OK);
  z.resize(size);
  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  append_png_chunk(png, "IHDR", {0, 0, 0, 8, 0, 0, 0, 8, 8, 0, 0, 0, 0});
  if (trailer_apart) {
    append_png_chunk(png, "IDAT", std::vector<uint8_t>(z.begin(), z.end() - 4));
    append_png_chunk(png, "IDAT", std::vector<uint8_t>(z.end() - 4, z.end()));
  } else {
    append_png_chunk(png, "IDAT", z);
  }
  append_png_chunk(png, "IEND", {});
  return png;
}

// Deflate data corrupted under valid chunk CRCs must be InvalidFile, never a decoded image. libpng
// only warns about some such errors by default (a wrong Adler-32 found after the last row).
TEST(Png, CorruptDeflateDataUnderValidCrcsIsInvalid) {
  for (bool trailer_apart : {false, true}) {
    SCOPED_TRACE(trailer_apart ? "Adler-32 in its own IDAT" : "one IDAT");
    const std::vector<uint8_t> stored = grey_png(0, trailer_apart);
    Image good = decode_image(stored, ImageFormat::Png);
    ASSERT_EQ(good.width, 8);
    EXPECT_EQ(good.at(3, 5, 0), float(16 * 3 + 5) / 255.0f);

    const PngChunk idat = png_chunks(stored)[1];
    ASSERT_EQ(idat.type, "IDAT");
    // A pixel byte inside the stored block (zlib header 2 + block header 5 + filter byte 1 + 4 pixels).
    std::vector<uint8_t> pixel = stored;
    pixel[idat.at + 8 + 2 + 5 + 1 + 4] ^= 0x40;
    fix_png_crc(pixel, idat);
    std::string message = error_of([&] { decode_image(pixel, ImageFormat::Png); }, ErrorCode::InvalidFile);
    EXPECT_NE(message.find("bad PNG data"), std::string::npos) << message;
    // The Adler-32 itself (the last byte of the stream).
    std::vector<uint8_t> adler = stored;
    const PngChunk last = png_chunks(stored)[trailer_apart ? 2 : 1];
    adler[last.at + 8 + last.length - 1] ^= 0x01;
    fix_png_crc(adler, last);
    error_of([&] { decode_image(adler, ImageFormat::Png); }, ErrorCode::InvalidFile);
    // Through a file: the message names it.
    fs::path path = test::temp_dir() / "corrupt_deflate.png";
    write_bytes(path, pixel);
    message = error_of([&] { read_image(path); }, ErrorCode::InvalidFile);
    EXPECT_NE(message.find("corrupt_deflate.png"), std::string::npos) << message;
  }

  // A compressed stream changed anywhere: a zlib error or a wrong Adler-32, never a decoded image.
  Image smooth(32, 16, 3);  // compressible, so that the stream has Huffman blocks, not stored ones
  for (size_t i = 0; i < smooth.pixels.size(); ++i) smooth.pixels[i] = float((i / 3 * 7) % 23) / 22.0f;
  const std::vector<uint8_t> compressed = encode_image(smooth, ImageFormat::Png);
  PngChunk z;
  for (const PngChunk& c : png_chunks(compressed))
    if (c.type == "IDAT") z = c;
  ASSERT_GT(z.length, 16u);
  auto inflated = [](const uint8_t* data, size_t size) {
    std::vector<uint8_t> out(1 << 16);
    uLongf n = uLongf(out.size());
    const int status = uncompress(out.data(), &n, data, uLong(size));
    out.resize(status == Z_OK ? n : 0);
    return out;
  };
  const std::vector<uint8_t> original = inflated(compressed.data() + z.at + 8, z.length);
  ASSERT_FALSE(original.empty());
  int corruptions = 0;
  for (size_t offset = 2; offset < z.length; ++offset) {
    std::vector<uint8_t> bad = compressed;
    bad[z.at + 8 + offset] ^= 0x10;
    // Some bits are padding that deflate ignores: those changes are no corruption.
    if (inflated(bad.data() + z.at + 8, z.length) == original) continue;
    fix_png_crc(bad, z);
    SCOPED_TRACE(testing::Message() << "byte " << offset << " of the zlib stream");
    error_of([&] { decode_image(bad, ImageFormat::Png); }, ErrorCode::InvalidFile);
    ++corruptions;
  }
  EXPECT_GT(corruptions, int(z.length) / 2);
}

TEST(Png, ReadsTheSharedNoisyRender) {
  VX_REQUIRE_SHARED(shared);
  fs::path path = shared / "images" / "noisy.png";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
  Image image = read_image(path);
  ASSERT_EQ(image.width, 1024);
  ASSERT_EQ(image.height, 1024);
  ASSERT_EQ(image.channels, 4);
  float lo = 1, hi = 0;
  double sum = 0;
  for (size_t i = 0; i < image.pixels.size(); i += 4) {
    for (int c = 0; c < 3; ++c) {
      lo = std::min(lo, image.pixels[i + size_t(c)]);
      hi = std::max(hi, image.pixels[i + size_t(c)]);
      sum += image.pixels[i + size_t(c)];
    }
    ASSERT_GE(image.pixels[i + 3], 0.0f);
    ASSERT_LE(image.pixels[i + 3], 1.0f);
  }
  EXPECT_GE(lo, 0.0f);
  EXPECT_LE(hi, 1.0f);
  EXPECT_GT(hi - lo, 0.5f);  // a real render, not a flat colour
  const double mean = sum / (double(image.pixels.size()) / 4 * 3);
  EXPECT_GT(mean, 0.01);
  EXPECT_LT(mean, 0.99);
  // Values are k / 255 exactly (no linearisation).
  for (size_t i = 0; i < image.pixels.size(); i += 997) {
    const float scaled = image.pixels[i] * 255.0f;
    EXPECT_EQ(scaled, std::round(scaled)) << i;
  }
}

// ---------------------------------------------------------------------------------------------------
// Radiance HDR

// RGBE keeps 8 mantissa bits shared by the three channels: each channel's error is below 1/128 of
// the pixel's largest channel.
void expect_rgbe_close(const Image& original, const Image& back) {
  ASSERT_EQ(back.channels, 3);
  ASSERT_TRUE(same_size(original, back));
  for (int y = 0; y < original.height; ++y) {
    for (int x = 0; x < original.width; ++x) {
      const float largest = std::max({original.at(x, y, 0), original.at(x, y, 1), original.at(x, y, 2)});
      for (int c = 0; c < 3; ++c) {
        ASSERT_LT(std::abs(back.at(x, y, c) - original.at(x, y, c)), largest / 128)
            << x << "," << y << "," << c << ": " << original.at(x, y, c) << " -> " << back.at(x, y, c);
      }
    }
  }
}

TEST(RadianceHdr, RunLengthAndFlatRoundTripsWithinRgbePrecision) {
  Image image = random_image(40, 6, 3, 40, 0.0f, 1.0f);
  for (size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] *= std::exp2(float(int(i % 41) - 20));
  for (int x = 0; x < 20; ++x)  // a constant stretch, so that the RLE has runs
    for (int c = 0; c < 3; ++c) image.at(x, 2, c) = 3.0f;
  expect_rgbe_close(image, round_trip(image, "rt.hdr"));

  const std::vector<uint8_t> rle = image_codecs::encode_radiance_hdr(image, true);
  const std::vector<uint8_t> flat = image_codecs::encode_radiance_hdr(image, false);
  EXPECT_LT(rle.size(), flat.size());
  Image from_rle = decode_image(rle, ImageFormat::RadianceHdr);
  Image from_flat = decode_image(flat, ImageFormat::RadianceHdr);
  expect_rgbe_close(image, from_flat);
  EXPECT_EQ(from_rle.pixels, from_flat.pixels);  // same RGBE values, two encodings
}

TEST(RadianceHdr, ConstantImageCompressesToRuns) {
  Image image(300, 2, 3);  // 300 > 127: several runs per channel
  for (float& v : image.pixels) v = 0.75f;
  std::vector<uint8_t> bytes = encode_image(image, ImageFormat::RadianceHdr);
  Image back = decode_image(bytes, ImageFormat::RadianceHdr);
  expect_rgbe_close(image, back);
  const std::string header = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 300\n";
  EXPECT_EQ(bytes.size(), header.size() + 2 * (4 + 4 * 3 * 2));  // per row: marker, 4 channels x 3 runs
}

TEST(RadianceHdr, ZeroNegativeAndNarrowImages) {
  Image image(3, 1, 3);  // narrower than 8: always flat
  image.pixels = {0, 0, 0, -1, 2, 0.5f, 1e-38f, 0, 0};
  Image back = round_trip(image, "narrow.hdr");
  EXPECT_EQ(back.at(0, 0, 0), 0.0f);
  EXPECT_EQ(back.at(1, 0, 0), 0.0f);  // negative written as 0, and zero stays zero
  EXPECT_EQ(back.at(1, 0, 1), 2.0f);  // powers of two times small integers are exact
  EXPECT_EQ(back.at(1, 0, 2), 0.5f);
  EXPECT_EQ(back.at(2, 0, 0), 0.0f);  // below RGBE's range
}

TEST(RadianceHdr, WritesGreyAsRgbAndDropsAlpha) {
  Image grey(2, 1, 1);
  grey.pixels = {0.5f, 4.0f};
  Image back = round_trip(grey, "grey.hdr");
  ASSERT_EQ(back.channels, 3);
  expect_rgbe_close(to_rgb(grey), back);
  Image rgba = random_image(9, 2, 4, 41, 0.1f, 2.0f);
  expect_rgbe_close(to_rgb(rgba), round_trip(rgba, "rgba.hdr"));
}

float rgbe_value(int mantissa, int exponent) {
  return exponent == 0 ? 0.0f : float(mantissa) * std::ldexp(1.0f, exponent - 136);
}

TEST(RadianceHdr, ReadsRunLengthFileFromAnotherTool) {
  Image image = read_image(data_dir() / "rle_16x2.hdr");
  ASSERT_EQ(image.width, 16);
  ASSERT_EQ(image.height, 2);
  ASSERT_EQ(image.channels, 3);
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 16; ++x) {
      EXPECT_EQ(image.at(x, y, 0), rgbe_value(x < 10 ? 200 : 100 + x, 129 + y)) << x << "," << y;
      EXPECT_EQ(image.at(x, y, 1), rgbe_value(128, 129 + y));
      EXPECT_EQ(image.at(x, y, 2), rgbe_value(10 * x, 129 + y));
    }
  }
  EXPECT_EQ(image.at(0, 0, 1), 1.0f);  // 128 * 2^(129 - 136)
}

TEST(RadianceHdr, ReadsFlatBottomUpFileFromAnotherTool) {
  Image image = read_image(data_dir() / "flat_bottom_up_3x2.hdr");
  ASSERT_EQ(image.width, 3);
  ASSERT_EQ(image.height, 2);
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 3; ++x) {
      const bool black = x == 2 && y == 1;
      EXPECT_EQ(image.at(x, y, 0), black ? 0.0f : rgbe_value(50 + x, 128 + x)) << x << "," << y;
      EXPECT_EQ(image.at(x, y, 1), black ? 0.0f : rgbe_value(60 + y, 128 + x));
      EXPECT_EQ(image.at(x, y, 2), black ? 0.0f : rgbe_value(70 + x + y, 128 + x));
    }
  }
}

TEST(RadianceHdr, TruncatedFilesAreInvalid) {
  std::vector<uint8_t> rle = encode_image(random_image(20, 4, 3, 42, 0, 1), ImageFormat::RadianceHdr);
  expect_truncations_fail(rle, ImageFormat::RadianceHdr, {0, 1, 2, 5, 11, 30, 44, 46, rle.size() / 2, rle.size() - 1});
  std::vector<uint8_t> flat = image_codecs::encode_radiance_hdr(random_image(20, 4, 3, 43, 0, 1), false);
  expect_truncations_fail(flat, ImageFormat::RadianceHdr, {flat.size() / 2, flat.size() - 1});
}

TEST(RadianceHdr, CorruptFilesAreInvalidOrUnsupported) {
  auto decode_text = [](const std::string& text) {
    decode_image(std::vector<uint8_t>(text.begin(), text.end()), ImageFormat::RadianceHdr);
  };
  const std::string pixel(4, '\x80');
  error_of([&] { decode_text("P6\n1 1\n255\n" + pixel); }, ErrorCode::InvalidFile);
  error_of([&] { decode_text("#?RADIANCE\n\n-Y 1 +X\n" + pixel); }, ErrorCode::InvalidFile);
  error_of([&] { decode_text("#?RADIANCE\n\n-Y 1 +Z 1\n" + pixel); }, ErrorCode::InvalidFile);
  error_of([&] { decode_text("#?RADIANCE\n\n-Y 0 +X 1\n" + pixel); }, ErrorCode::InvalidFile);
  error_of([&] { decode_text("#?RADIANCE\n\n-Y 99999999999999999999 +X 1\n" + pixel); }, ErrorCode::InvalidFile);
  error_of([&] { decode_text("#?RADIANCE\n\n+X 1 -Y 1\n" + pixel); }, ErrorCode::Unsupported);
  error_of([&] { decode_text("#?RADIANCE\nFORMAT=32-bit_rle_xyze\n\n-Y 1 +X 1\n" + pixel); }, ErrorCode::Unsupported);
  error_of([&] { decode_text("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n"); }, ErrorCode::InvalidFile);  // no blank line
  // A huge claimed size is rejected before anything is allocated.
  error_of([&] { decode_text("#?RADIANCE\n\n-Y 60000 +X 60000\n" + pixel); }, ErrorCode::InvalidFile);

  // RLE scanlines: a run past the end of the line, a zero-length literal, a wrong width.
  const std::string header = "#?RADIANCE\n\n-Y 1 +X 8\n";
  const std::string good_channel = "\x88\x80";  // a run of 8
  const std::string good = header + "\x02\x02" + std::string(1, '\0') + "\x08" + good_channel + good_channel +
                           good_channel + good_channel;
  EXPECT_EQ(decode_image(std::vector<uint8_t>(good.begin(), good.end()), ImageFormat::RadianceHdr).pixels.size(),
            24u);
  std::string overrun = good;
  overrun[header.size() + 4] = '\x89';  // a run of 9 in a line of 8
  error_of([&] { decode_text(overrun); }, ErrorCode::InvalidFile);
  std::string zero_literal = good;
  zero_literal[header.size() + 4] = '\0';
  error_of([&] { decode_text(zero_literal); }, ErrorCode::InvalidFile);
  std::string wrong_width = good;
  wrong_width[header.size() + 3] = '\x09';
  error_of([&] { decode_text(wrong_width); }, ErrorCode::InvalidFile);
}

// ---------------------------------------------------------------------------------------------------
// OpenEXR

TEST(Exr, HalfRoundTripIsExactForHalfValues) {
  for (int c = 1; c <= 4; ++c) {
    Image image = random_image(13, 6, c, 50 + c, -1000.0f, 1000.0f);
    for (float& v : image.pixels) v = half_to_float(float_to_half(v));  // make every value a half
    image.pixels[0] = 65504.0f;
    image.pixels[1] = std::ldexp(1.0f, -24);  // smallest subnormal half
    Image back = round_trip(image, "half.exr");
    ASSERT_EQ(back.channels, c);
    EXPECT_EQ(back.pixels, image.pixels) << c << " channels";
  }
}

TEST(Exr, HalfRoundTripRoundsOtherValuesToNearestHalf) {
  Image image = random_image(8, 8, 3, 60, 0.0f, 4.0f);
  Image back = round_trip(image, "rounded.exr");
  for (size_t i = 0; i < image.pixels.size(); ++i)
    EXPECT_EQ(back.pixels[i], half_to_float(float_to_half(image.pixels[i]))) << i;
}

TEST(Exr, FloatRoundTripIsBitExact) {
  ImageWriteOptions full;
  full.exr_half = false;
  for (int c = 1; c <= 4; ++c) {
    Image image = random_image(11, 9 + 60 * c, c, 70 + c, -1e6f, 1e6f);  // up to 249 rows: several read strips
    image.pixels[2] = 1e-40f;
    Image back = round_trip(image, "float.exr", full);
    ASSERT_EQ(back.channels, c);
    EXPECT_EQ(back.pixels, image.pixels) << c << " channels";
  }
}

// Writes R, G, B float channels with OpenEXR's own API, a data window not at the origin, an extra
// channel we ignore and a tiled layout.
TEST(Exr, ReadsTiledFileWithOffsetDataWindowFromOpenExr) {
  const fs::path path = test::temp_dir() / "tiled.exr";
  const int w = 5, h = 150;  // taller than one 64-row read strip
  std::vector<float> planes(size_t(4 * w * h));
  auto value = [](int x, int y, int c) { return float(x) * 0.5f + float(y) * 8.0f + float(c) * 0.125f - 3.0f; };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 4; ++c) planes[size_t((c * h + y) * w + x)] = value(x, y, c);
  {
    Imf::Header header(Imath::Box2i({0, 0}, {199, 199}), Imath::Box2i({10, 20}, {10 + w - 1, 20 + h - 1}));
    const char* names[4] = {"R", "G", "B", "Z"};
    for (const char* name : names) header.channels().insert(name, Imf::Channel(Imf::FLOAT));
    header.setTileDescription(Imf::TileDescription(4, 16));
    Imf::TiledOutputFile file(path.string().c_str(), header);
    Imf::FrameBuffer frame;
    for (int c = 0; c < 4; ++c) {
      frame.insert(names[c], Imf::Slice::Make(Imf::FLOAT, planes.data() + c * w * h, header.dataWindow(),
                                              sizeof(float), sizeof(float) * size_t(w)));
    }
    file.setFrameBuffer(frame);
    file.writeTiles(0, file.numXTiles() - 1, 0, file.numYTiles() - 1);
  }
  Image image = read_image(path);
  ASSERT_EQ(image.width, w);
  ASSERT_EQ(image.height, h);
  ASSERT_EQ(image.channels, 3);  // Z ignored
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) EXPECT_EQ(image.at(x, y, c), value(x, y, c)) << x << "," << y << "," << c;
}

TEST(Exr, ReadsRgbaHalfFileFromOpenExrRgbaApi) {
  const fs::path path = test::temp_dir() / "rgba.exr";
  const int w = 4, h = 2;
  std::vector<Imf::Rgba> pixels(size_t(w * h));
  for (int i = 0; i < w * h; ++i) pixels[size_t(i)] = Imf::Rgba(0.25f * float(i), 2.0f, -1.5f, 0.5f);
  {
    Imf::RgbaOutputFile file(path.string().c_str(), w, h, Imf::WRITE_RGBA, 1.0f, Imath::V2f(0, 0), 1.0f,
                             Imf::INCREASING_Y, Imf::PIZ_COMPRESSION);
    file.setFrameBuffer(pixels.data(), 1, size_t(w));
    file.writePixels(h);
  }
  Image image = read_image(path);
  ASSERT_EQ(image.channels, 4);
  for (int i = 0; i < w * h; ++i) {
    EXPECT_EQ(image.pixels[size_t(i) * 4 + 0], 0.25f * float(i));
    EXPECT_EQ(image.pixels[size_t(i) * 4 + 1], 2.0f);
    EXPECT_EQ(image.pixels[size_t(i) * 4 + 2], -1.5f);
    EXPECT_EQ(image.pixels[size_t(i) * 4 + 3], 0.5f);
  }
}

TEST(Exr, FileWithoutColourChannelsIsUnsupported) {
  const fs::path path = test::temp_dir() / "depth.exr";
  std::vector<float> depth(4, 1.0f);
  {
    Imf::Header header(2, 2);
    header.channels().insert("Z", Imf::Channel(Imf::FLOAT));
    Imf::OutputFile file(path.string().c_str(), header);
    Imf::FrameBuffer frame;
    frame.insert("Z", Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(depth.data()), sizeof(float), 2 * sizeof(float)));
    file.setFrameBuffer(frame);
    file.writePixels(2);
  }
  std::string message = error_of([&] { read_image(path); }, ErrorCode::Unsupported);
  EXPECT_NE(message.find("Z"), std::string::npos) << message;
}

TEST(Exr, TruncatedFilesAreInvalid) {
  for (bool half : {true, false}) {
    ImageWriteOptions options;
    options.exr_half = half;
    std::vector<uint8_t> bytes = encode_image(random_image(64, 40, 3, 80, 0, 1), ImageFormat::Exr, options);
    expect_truncations_fail(bytes, ImageFormat::Exr, {0, 3, 4, 8, 50, 200, bytes.size() / 2, bytes.size() - 1});
  }
}

TEST(Exr, CorruptHeaderIsInvalid) {
  std::vector<uint8_t> bytes = encode_image(random_image(8, 8, 3, 81, 0, 1), ImageFormat::Exr);
  std::vector<uint8_t> bad_magic = bytes;
  bad_magic[0] = 0;
  error_of([&] { decode_image(bad_magic, ImageFormat::Exr); }, ErrorCode::InvalidFile);
  std::vector<uint8_t> bad_version = bytes;
  bad_version[4] = 99;
  error_of([&] { decode_image(bad_version, ImageFormat::Exr); }, ErrorCode::InvalidFile);
}

// Offset of the value of attribute `name` (after its type and size fields) in an OpenEXR file.
size_t exr_attribute_value(const std::vector<uint8_t>& bytes, const std::string& name, const std::string& type) {
  const std::string key = name + '\0' + type + '\0';
  auto it = std::search(bytes.begin(), bytes.end(), key.begin(), key.end());
  EXPECT_NE(it, bytes.end()) << name;
  return size_t(it - bytes.begin()) + key.size() + 4;
}

TEST(Exr, AttributeSizeBeyondTheFileIsRejectedBeforeAllocating) {
  std::vector<uint8_t> bytes = encode_image(random_image(8, 8, 3, 84, 0, 1), ImageFormat::Exr);
  const size_t value = exr_attribute_value(bytes, "compression", "compression");
  const int32_t huge = 1600000000;
  std::memcpy(&bytes[value - 4], &huge, 4);  // little-endian, as in the file
  std::string message = error_of([&] { decode_image(bytes, ImageFormat::Exr); }, ErrorCode::InvalidFile);
  EXPECT_NE(message.find("compression"), std::string::npos) << message;
}

TEST(Exr, TileCountBeyondTheFileIsRejectedBeforeAllocating) {
  const fs::path path = test::temp_dir() / "tiles.exr";
  std::vector<float> pixel(3, 0.5f);
  {
    Imf::Header header(1, 1);
    for (const char* name : {"R", "G", "B"}) header.channels().insert(name, Imf::Channel(Imf::FLOAT));
    header.setTileDescription(Imf::TileDescription(1, 1));
    Imf::TiledOutputFile file(path.string().c_str(), header);
    Imf::FrameBuffer frame;
    for (int c = 0; c < 3; ++c)
      frame.insert(c == 0 ? "R" : c == 1 ? "G" : "B",
                   Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(&pixel[size_t(c)]), 3 * sizeof(float), 3 * sizeof(float)));
    file.setFrameBuffer(frame);
    file.writeTile(0, 0);
  }
  EXPECT_EQ(read_image(path).pixels, (std::vector<float>{0.5f, 0.5f, 0.5f}));
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t window = exr_attribute_value(bytes, "dataWindow", "box2i");
  const int32_t side = 60000;  // 3.6e9 tiles of 1x1
  std::memcpy(&bytes[window + 8], &side, 4);
  std::memcpy(&bytes[window + 12], &side, 4);
  std::string message = error_of([&] { decode_image(bytes, ImageFormat::Exr); }, ErrorCode::InvalidFile);
  EXPECT_NE(message.find("tiles"), std::string::npos) << message;
}

// Flipping bytes anywhere must give an image or a vx::Error, never a crash (run under ASan too).
TEST(Exr, RandomCorruptionNeverCrashes) {
  std::vector<uint8_t> bytes = encode_image(random_image(16, 16, 4, 82, 0, 1), ImageFormat::Exr);
  std::mt19937 rng(83);
  int errors = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<uint8_t> corrupt = bytes;
    for (int k = 0; k < 3; ++k) corrupt[rng() % corrupt.size()] ^= uint8_t(1 + rng() % 255);
    try {
      Image image = decode_image(corrupt, ImageFormat::Exr);
      EXPECT_EQ(image.pixels.size(), size_t(image.width) * size_t(image.height) * size_t(image.channels));
    } catch (const Error& e) {
      EXPECT_TRUE(e.code() == ErrorCode::InvalidFile || e.code() == ErrorCode::Unsupported) << e.what();
      ++errors;
    }
  }
  EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace vx

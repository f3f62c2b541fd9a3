// The image C API (include/volvox/image.h): every format written and read back through the engine's
// own codecs (exact where the format stores float32, within the format's precision otherwise), and
// every failure one recorded error with a NULL or false result, never a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "volvox/image.h"
#include "volvox/volvox.h"

namespace {

VXError take_image_error(std::string* message = nullptr) {
  const char* text = nullptr;
  const VXError e = vxGetDeviceError(nullptr, &text);
  if (message) *message = text ? text : "";
  return e;
}

// 5x3 pixels of `channels` values in [0, 1) that no two pixels share.
std::vector<float> test_pixels(size_t channels) {
  std::vector<float> p(5 * 3 * channels);
  for (size_t i = 0; i < p.size(); ++i) p[i] = float((i * 37) % 101) / 101.0f;
  return p;
}

// Writes and reads back `pixels`; the largest difference (infinity when the round trip failed).
double round_trip_error(const std::filesystem::path& path, const std::vector<float>& pixels, size_t channels,
                        int png_bits = 8, bool exr_half = true) {
  if (!vxWriteImage(path.c_str(), pixels.data(), 5, 3, channels, png_bits, exr_half)) return INFINITY;
  VXImage image = vxReadImage(path.c_str());
  if (!image) return INFINITY;
  size_t w = 0, h = 0, c = 0;
  vxGetImageSize(image, &w, &h, &c);
  double worst = (w == 5 && h == 3 && c == channels) ? 0.0 : INFINITY;
  const float* data = vxGetImageData(image);
  for (size_t i = 0; std::isfinite(worst) && i < pixels.size(); ++i)
    worst = std::max(worst, double(std::fabs(data[i] - pixels[i])));
  vxReleaseImage(image);
  return worst;
}

TEST(ImageApi, EveryFormatRoundTripsWithinItsPrecision) {
  const std::filesystem::path dir = vx::test::temp_dir();
  EXPECT_EQ(round_trip_error(dir / "a.pfm", test_pixels(3), 3), 0.0);
  EXPECT_EQ(round_trip_error(dir / "g.pfm", test_pixels(1), 1), 0.0);
  EXPECT_EQ(round_trip_error(dir / "f.exr", test_pixels(4), 4, 8, /*exr_half=*/false), 0.0);
  EXPECT_LE(round_trip_error(dir / "h.exr", test_pixels(3), 3, 8, /*exr_half=*/true), 1.0 / 2048);
  EXPECT_LE(round_trip_error(dir / "a.png", test_pixels(3), 3, 8), 0.5 / 255 + 1e-7);
  EXPECT_LE(round_trip_error(dir / "b.png", test_pixels(2), 2, 16), 0.5 / 65535 + 1e-7);
  EXPECT_LE(round_trip_error(dir / "a.hdr", test_pixels(3), 3), 1.0 / 128);  // 8-bit mantissas
  EXPECT_EQ(take_image_error(), VX_ERROR_NONE);
}

TEST(ImageApi, ReadFailuresAreOneErrorAndNull) {
  const std::filesystem::path dir = vx::test::temp_dir();
  std::string message;
  EXPECT_EQ(vxReadImage((dir / "missing.exr").c_str()), nullptr);
  EXPECT_EQ(take_image_error(&message), VX_ERROR_IO);
  EXPECT_NE(message.find("missing.exr"), std::string::npos) << message;
  std::ofstream(dir / "corrupt.pfm") << "PF\n4 4\n-1.0\nshort";
  EXPECT_EQ(vxReadImage((dir / "corrupt.pfm").c_str()), nullptr);
  EXPECT_EQ(take_image_error(&message), VX_ERROR_INVALID_FILE);
  std::ofstream(dir / "picture.bmp") << "BM";
  EXPECT_EQ(vxReadImage((dir / "picture.bmp").c_str()), nullptr);
  EXPECT_EQ(take_image_error(&message), VX_ERROR_UNSUPPORTED);
  EXPECT_NE(message.find(".bmp"), std::string::npos) << message;
  EXPECT_EQ(vxReadImage(nullptr), nullptr);
  EXPECT_EQ(take_image_error(), VX_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vxGetImageData(nullptr), nullptr);
  EXPECT_EQ(take_image_error(), VX_ERROR_INVALID_ARGUMENT);
  size_t w = 7;
  vxGetImageSize(nullptr, &w, nullptr, nullptr);
  EXPECT_EQ(w, 0u);
  EXPECT_EQ(take_image_error(), VX_ERROR_INVALID_ARGUMENT);
}

TEST(ImageApi, WriteFailuresAreOneErrorAndLeaveNoFile) {
  const std::filesystem::path dir = vx::test::temp_dir();
  const std::vector<float> pixels = test_pixels(4);
  std::string message;
  auto write = [&](const std::filesystem::path& path, size_t channels, int png_bits = 8, size_t width = 5) {
    const bool ok = vxWriteImage(path.c_str(), pixels.data(), width, 3, channels, png_bits, true);
    const VXError e = take_image_error(&message);
    EXPECT_EQ(ok, e == VX_ERROR_NONE) << message;
    return e;
  };
  EXPECT_EQ(write(dir / "five.png", 5), VX_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("5 channels"), std::string::npos) << message;
  EXPECT_EQ(write(dir / "two.pfm", 2), VX_ERROR_INVALID_ARGUMENT);  // PFM: 1, 3 or 4
  EXPECT_EQ(write(dir / "twelve.png", 3, 12), VX_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(write(dir / "empty.png", 3, 8, 0), VX_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(write(dir / "image.tiff", 3), VX_ERROR_UNSUPPORTED);
  EXPECT_EQ(write(dir / "no" / "such" / "folder.exr", 3), VX_ERROR_IO);
  EXPECT_FALSE(vxWriteImage(nullptr, pixels.data(), 5, 3, 3, 8, true));
  EXPECT_EQ(take_image_error(), VX_ERROR_INVALID_ARGUMENT);
  EXPECT_FALSE(vxWriteImage((dir / "null.pfm").c_str(), nullptr, 5, 3, 3, 8, true));
  EXPECT_EQ(take_image_error(), VX_ERROR_INVALID_ARGUMENT);
  for (const auto& entry : std::filesystem::directory_iterator(dir)) ADD_FAILURE() << "left behind: " << entry.path();
}

}  // namespace

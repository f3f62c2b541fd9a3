#include "formats/dithered_palette.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace vx::dithered_palette {

namespace {

// The classic recursive 8x8 Bayer matrix: thresholds (b + 0.5) / 64 spread as evenly as possible,
// so every fraction of a level step becomes the finest pattern that averages to it.
constexpr uint8_t kBayer8[8][8] = {
    {0, 32, 8, 40, 2, 34, 10, 42},  {48, 16, 56, 24, 50, 18, 58, 26}, {12, 44, 4, 36, 14, 46, 6, 38},
    {60, 28, 52, 20, 62, 30, 54, 22}, {3, 35, 11, 43, 1, 33, 9, 41},  {51, 19, 59, 27, 49, 17, 57, 25},
    {15, 47, 7, 39, 13, 45, 5, 37}, {63, 31, 55, 23, 61, 29, 53, 21},
};

int dithered_level(float value, int levels, float threshold) {
  const float v = std::isnan(value) ? 0.0f : std::clamp(value, 0.0f, 1.0f);
  const float scaled = v * float(levels - 1);
  const int lower = std::min(int(scaled), levels - 1);
  return std::min(lower + (scaled - float(lower) > threshold ? 1 : 0), levels - 1);
}

uint8_t level_to_8_bits(int level, int levels) { return uint8_t(std::lround(level * 255.0 / (levels - 1))); }

}  // namespace

std::array<Rgb8, kPaletteSize> palette() {
  std::array<Rgb8, kPaletteSize> colors{};
  for (int r = 0; r < kRedLevels; ++r)
    for (int g = 0; g < kGreenLevels; ++g)
      for (int b = 0; b < kBlueLevels; ++b)
        colors[size_t((r * kGreenLevels + g) * kBlueLevels + b)] = {
            level_to_8_bits(r, kRedLevels), level_to_8_bits(g, kGreenLevels), level_to_8_bits(b, kBlueLevels)};
  return colors;
}

void index_row(const Image& image, int y, uint8_t* indices) {
  VX_CHECK(image.channels == 3 && y >= 0 && y < image.height, Internal, "index_row: row ", y, " of a ",
           image.width, "x", image.height, "x", image.channels, " image");
  const float* pixel = image.pixels.data() + size_t(y) * size_t(image.width) * 3;
  for (int x = 0; x < image.width; ++x, pixel += 3) {
    const float threshold = (float(kBayer8[y & 7][x & 7]) + 0.5f) / 64.0f;
    const int r = dithered_level(pixel[0], kRedLevels, threshold);
    const int g = dithered_level(pixel[1], kGreenLevels, threshold);
    const int b = dithered_level(pixel[2], kBlueLevels, threshold);
    indices[x] = uint8_t((r * kGreenLevels + g) * kBlueLevels + b);
  }
}

}  // namespace vx::dithered_palette

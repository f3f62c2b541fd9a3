// Display-encoded RGB to 8-bit palette indices, for the animated GIF writer: one fixed palette (a
// 6x7x6 colour cube, green finest because the eye resolves it best) and 8x8 ordered (Bayer)
// dithering. The index of a pixel depends only on its value and its position, never on other
// pixels or other frames, so a pixel that is the same in two frames gets the same index in both:
// static areas do not shimmer, and the flicker one sees in the GIF is flicker in the images. (Error
// diffusion or a palette fitted to each frame would spread a change anywhere in the frame into
// pixels that did not change.)
#pragma once
#include <array>
#include <cstdint>

#include "formats/image.h"

namespace vx::dithered_palette {

// Levels per channel (R, G, B): the cube's colours are level / (levels - 1), rounded to 8 bits.
inline constexpr int kRedLevels = 6, kGreenLevels = 7, kBlueLevels = 6;
// A GIF colour table holds a power of two entries: the 6 * 7 * 6 = 252 colours, then 4 unused (black).
inline constexpr int kPaletteSize = 256;

struct Rgb8 {
  uint8_t r = 0, g = 0, b = 0;
};

std::array<Rgb8, kPaletteSize> palette();

// Row y of `image` (3 channels, display-encoded: values outside [0, 1] are clamped, NaN is 0) as
// image.width indices into palette(). Each channel is one of the two levels around its value, the
// upper one at as many of the 64 positions of the Bayer tile as the value's fraction between them:
// a flat area keeps its mean within 1/128 of a level step (plus the 8-bit rounding of the colours).
void index_row(const Image& image, int y, uint8_t* indices);

}  // namespace vx::dithered_palette

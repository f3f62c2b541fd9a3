// Image quality numbers for the demo and the quality tests: PSNR measured on what a viewer sees
// (linear radiance clamped to [0, 1] and sRGB-encoded, peak 1), and a side-by-side strip.
#pragma once

#include "formats/image.h"

namespace vx::denoise {

// The display encoding used for PSNR and previews: sRGB(clamp(v, 0, 1)).
float display_encode(float linear);
// The first three channels (a 1- or 2-channel image repeats its last) after display_encode.
Image display_encoded(const Image& linear);
// Mean squared error over the first three channels after display_encode (sizes must match).
double display_mse(const Image& a, const Image& b);
// PSNR in dB of `test` against `reference` over the first three channels after display_encode.
// Sizes must match (InvalidArgument naming both otherwise). Infinity when identical.
double display_psnr(const Image& reference, const Image& test);
// Images placed left to right (same height), display-encoded, 3 channels, with a gap of `gap` black
// pixels between them: ready to write as PNG.
Image side_by_side(const std::vector<const Image*>& images, int gap = 8);

}  // namespace vx::denoise

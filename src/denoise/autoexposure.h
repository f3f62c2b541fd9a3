// OIDN's autoexposure: the input scale that brings an HDR image's typical luminance to 0.18.
// Mean luminance of ~16x16-pixel bins, geometric mean of the bins above 1e-8, scale 0.18 / that.
#pragma once

#include "denoise/image_view.h"

namespace vx::denoise {

// Computed once for the whole image (never per tile). Returns 1 when no bin is bright enough.
float compute_autoexposure(const ImageView& color);

}  // namespace vx::denoise

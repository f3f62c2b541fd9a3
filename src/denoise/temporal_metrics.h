// How much a denoised sequence flickers, as the animation issue defines it: for frame t >= 1, the
// RMSE between the output's frame-to-frame change and the reference's, each change taken after
// warping frame t - 1 with the reference motion vectors (reprojection.h), over the pixels whose
// surface was visible in both frames, on display-encoded values (image_metrics.h: sRGB of the
// linear value clamped to [0, 1]), the three colour channels. 0: the output changes exactly as the
// reference does; per-frame denoising of a static scene scores its frame-to-frame noise.
#pragma once
#include "formats/image.h"

namespace vx::denoise {

struct FrameGuides {
  const Image* motion = nullptr;  // of frame t (current to previous)
  const Image *depth = nullptr, *previous_depth = nullptr, *normal = nullptr, *previous_normal = nullptr;
};

// RMSE over the valid pixels (0 when none is valid).
double temporal_rmse(const Image& output_previous, const Image& output, const Image& reference_previous,
                     const Image& reference, const FrameGuides& guides);

}  // namespace vx::denoise

// Temporal stabilisation of a denoised sequence, TAA-style (the first temporal method of the
// animation issue): the previous output reprojected with the motion vectors (reprojection.h),
// clamped per channel to the current frame's 3x3 neighbourhood (what changed content cannot drag
// along: no ghost outside the current frame's local range), and blended with the current frame:
//   out = current + blend * (clamped history - current)   where the history is valid, else current,
// all in a compressed range, c(x) = x / (1 + luma(x)) (HDR TAA's: a bright emitter's edge does
// not bleed into its neighbours through the resampled history); the history is kept compressed.
// Host images, any size; the first frame (and the first after reset() or a change of size) passes
// through. Normals may be empty (depth alone then decides where the history is valid).
#pragma once
#include "formats/image.h"

namespace vx::denoise {

class TemporalStabilizer {
 public:
  // blend in [0, 1): the history's weight (0.8: an exponential average over ~5 frames).
  explicit TemporalStabilizer(float blend = 0.8f);
  // `denoised`: this frame's filter output (3 channels, linear); `motion` (2+ channels, pixels,
  // current to previous), `depth` (1) and `normal` (3) of this frame.
  Image apply(const Image& denoised, const Image& motion, const Image& depth, const Image& normal);
  // A cut: the next frame starts a new history.
  void reset();
  void set_blend(float blend);  // as the constructor's; the history is kept

 private:
  float blend_;
  Image previous_output_, previous_depth_, previous_normal_;
};

}  // namespace vx::denoise

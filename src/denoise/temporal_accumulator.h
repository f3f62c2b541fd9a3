// Temporal accumulation of the noisy colour before the network (the colour history of SVGF,
// without its variance-guided filtering): the previous accumulated colour reprojected with the
// motion vectors (reprojection.h) and blended with this frame's samples, per pixel by how many
// frames its history holds:
//   accumulated = history + (colour - history) * max(1 / (n + 1), min_alpha)
// with n that pixel's history length, 0 where the reprojection is not valid (a disocclusion) and
// after reset(). Where surfaces stay visible the network then sees about 1 / min_alpha frames' samples.
#pragma once
#include <vector>

#include "formats/image.h"

namespace vx::denoise {

class TemporalAccumulator {
 public:
  // min_alpha in (0, 1]: the weight of the newest frame once the history is long (0.2: ~5 frames).
  explicit TemporalAccumulator(float min_alpha = 0.2f);
  // `color`: this frame's noisy colour (3 channels); motion, depth and normal as the stabiliser's.
  Image apply(const Image& color, const Image& motion, const Image& depth, const Image& normal);
  void reset();

 private:
  float min_alpha_;
  Image accumulated_, length_, previous_depth_, previous_normal_;  // length_: 1 channel
};

}  // namespace vx::denoise

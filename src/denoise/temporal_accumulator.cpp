#include "denoise/temporal_accumulator.h"

#include <algorithm>

#include "core/error.h"
#include "denoise/reprojection.h"

namespace vx::denoise {

TemporalAccumulator::TemporalAccumulator(float min_alpha) : min_alpha_(min_alpha) {
  VX_CHECK(min_alpha > 0 && min_alpha <= 1, InvalidArgument, "temporal accumulation weight ", min_alpha,
           " must be in (0, 1]");
}

void TemporalAccumulator::reset() {
  accumulated_ = Image();
  length_ = Image();
  previous_depth_ = Image();
  previous_normal_ = Image();
}

Image TemporalAccumulator::apply(const Image& color, const Image& motion, const Image& depth, const Image& normal) {
  VX_CHECK(color.channels >= 3, InvalidArgument, "temporal accumulation needs a colour image, not ", color.channels,
           " channels");
  const int w = color.width, h = color.height;
  Image out = color, length(w, h, 1);
  if (accumulated_.width == w && accumulated_.height == h) {
    const Reprojected history = reproject(accumulated_, motion, depth, previous_depth_, normal, previous_normal_,
                                              Resampling::catmull_rom);
    const Reprojected lengths = reproject(length_, motion, depth, previous_depth_, normal, previous_normal_,
                                              Resampling::bilinear);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        if (!history.valid[size_t(y) * size_t(w) + size_t(x)]) continue;
        const float n = std::min(lengths.values.at(x, y, 0), 1.0f / min_alpha_);
        const float alpha = std::max(1.0f / (n + 1.0f), min_alpha_);
        for (int c = 0; c < 3; ++c) {
          const float past = history.values.at(x, y, c);
          out.at(x, y, c) = past + (color.at(x, y, c) - past) * alpha;
        }
        length.at(x, y, 0) = n + 1.0f;
      }
  }
  accumulated_ = out;
  length_ = std::move(length);
  previous_depth_ = depth;
  previous_normal_ = normal;
  return out;
}

}  // namespace vx::denoise

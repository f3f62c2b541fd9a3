#include "denoise/temporal_stabilizer.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "denoise/reprojection.h"

namespace vx::denoise {

TemporalStabilizer::TemporalStabilizer(float blend) { set_blend(blend); }

void TemporalStabilizer::set_blend(float blend) {
  VX_CHECK(blend >= 0 && blend < 1, InvalidArgument, "temporal blend ", blend, " must be in [0, 1)");
  blend_ = blend;
}

void TemporalStabilizer::reset() {
  previous_output_ = Image();
  previous_depth_ = Image();
  previous_normal_ = Image();
}

Image TemporalStabilizer::apply(const Image& denoised, const Image& motion, const Image& depth, const Image& normal) {
  VX_CHECK(denoised.channels >= 3, InvalidArgument, "temporal stabilisation needs a colour image, not ",
           denoised.channels, " channels");
  const int w = denoised.width, h = denoised.height;
  Image out = denoised;
  const bool has_history = previous_output_.width == w && previous_output_.height == h &&
                           normal.empty() == previous_normal_.empty();
  if (has_history) {
    const Reprojected history = reproject(previous_output_, motion, depth, previous_depth_, normal, previous_normal_,
                                              Resampling::catmull_rom);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        if (!history.valid[size_t(y) * size_t(w) + size_t(x)]) continue;
        for (int c = 0; c < 3; ++c) {
          float lo = INFINITY, hi = -INFINITY;
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const float v = denoised.at(std::clamp(x + dx, 0, w - 1), std::clamp(y + dy, 0, h - 1), c);
              lo = std::min(lo, v);
              hi = std::max(hi, v);
            }
          const float current = denoised.at(x, y, c), past = std::clamp(history.values.at(x, y, c), lo, hi);
          out.at(x, y, c) = current + blend_ * (past - current);
        }
      }
  }
  previous_output_ = out;
  previous_depth_ = depth;
  previous_normal_ = normal;
  return out;
}

}  // namespace vx::denoise

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

namespace {
// HDR values are blended in a compressed range (x / (1 + luma)), as TAA does for HDR: a bright
// emitter's edge would otherwise drag its energy into the neighbouring pixels through the
// resampled history and the neighbourhood clamp.
float luma(float r, float g, float b) { return 0.2126f * r + 0.7152f * g + 0.0722f * b; }
Image compressed(const Image& linear) {
  Image out = linear;
  for (size_t p = 0; p < size_t(linear.width) * size_t(linear.height); ++p) {
    float* v = &out.pixels[p * size_t(out.channels)];
    const float k = 1.0f / (1.0f + std::max(0.0f, luma(v[0], v[1], v[2])));
    for (int c = 0; c < 3; ++c) v[c] *= k;
  }
  return out;
}
void expand(float v[3]) {
  const float k = 1.0f / std::max(1e-6f, 1.0f - luma(v[0], v[1], v[2]));
  for (int c = 0; c < 3; ++c) v[c] *= k;
}
}  // namespace

Image TemporalStabilizer::apply(const Image& denoised, const Image& motion, const Image& depth, const Image& normal) {
  VX_CHECK(denoised.channels >= 3, InvalidArgument, "temporal stabilisation needs a colour image, not ",
           denoised.channels, " channels");
  const int w = denoised.width, h = denoised.height;
  const Image current = compressed(denoised);
  Image out = denoised, out_compressed = current;
  const bool has_history = previous_output_.width == w && previous_output_.height == h &&
                           normal.empty() == previous_normal_.empty();
  if (has_history) {
    const Reprojected history = reproject(previous_output_, motion, depth, previous_depth_, normal, previous_normal_,
                                          Resampling::catmull_rom);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        if (!history.valid[size_t(y) * size_t(w) + size_t(x)]) continue;
        float v[3];
        for (int c = 0; c < 3; ++c) {
          float lo = INFINITY, hi = -INFINITY;
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const float n = current.at(std::clamp(x + dx, 0, w - 1), std::clamp(y + dy, 0, h - 1), c);
              lo = std::min(lo, n);
              hi = std::max(hi, n);
            }
          const float now = current.at(x, y, c), past = std::clamp(history.values.at(x, y, c), lo, hi);
          v[c] = now + blend_ * (past - now);
          out_compressed.at(x, y, c) = v[c];
        }
        if (v[0] == current.at(x, y, 0) && v[1] == current.at(x, y, 1) && v[2] == current.at(x, y, 2)) continue;
        expand(v);  // (an unchanged pixel keeps its exact value above: the round trip rounds)
        for (int c = 0; c < 3; ++c) out.at(x, y, c) = v[c];
      }
  }
  previous_output_ = out_compressed;  // the history stays in the compressed range
  previous_depth_ = depth;
  previous_normal_ = normal;
  return out;
}

}  // namespace vx::denoise

#include "denoise/temporal_metrics.h"

#include <cmath>

#include "core/error.h"
#include "denoise/image_metrics.h"
#include "denoise/reprojection.h"

namespace vx::denoise {
double temporal_rmse(const Image& output_previous, const Image& output, const Image& reference_previous,
                     const Image& reference, const FrameGuides& g) {
  VX_CHECK(g.motion && g.depth && g.previous_depth && g.normal && g.previous_normal, InvalidArgument,
           "temporal error needs motion, depth and normal of both frames");
  for (const Image* img : {&output_previous, &reference_previous, &reference})
    VX_CHECK(img->width == output.width && img->height == output.height, InvalidArgument, "frames of ", img->width,
             "x", img->height, " and ", output.width, "x", output.height);
  auto warped = [&](const Image& previous) {
    return reproject(display_encoded(previous), *g.motion, *g.depth, *g.previous_depth, *g.normal, *g.previous_normal,
                     Resampling::bilinear);
  };
  const Reprojected out_prev = warped(output_previous), ref_prev = warped(reference_previous);
  const Image out_now = display_encoded(output), ref_now = display_encoded(reference);
  double sum = 0;
  size_t count = 0;
  for (int y = 0; y < output.height; ++y)
    for (int x = 0; x < output.width; ++x) {
      if (!ref_prev.valid[size_t(y) * size_t(output.width) + size_t(x)]) continue;
      for (int c = 0; c < 3; ++c) {
        const double d = (double(out_now.at(x, y, c)) - out_prev.values.at(x, y, c)) -
                         (double(ref_now.at(x, y, c)) - ref_prev.values.at(x, y, c));
        sum += d * d;
      }
      count += 3;
    }
  return count ? std::sqrt(sum / double(count)) : 0.0;
}

}  // namespace vx::denoise

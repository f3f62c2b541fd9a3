#include "denoise/reprojection.h"

#include <cmath>

#include "core/error.h"

namespace vx::denoise {
namespace {

// Bilinear sample of channel c at continuous pixel coordinates (pixel centres at +0.5), clamped to the edge.
float sample_bilinear(const Image& img, float x, float y, int c) {
  const float fx = x - 0.5f, fy = y - 0.5f;
  const int x0 = int(std::floor(fx)), y0 = int(std::floor(fy));
  const float ax = fx - float(x0), ay = fy - float(y0);
  auto at = [&](int xi, int yi) {
    xi = std::min(std::max(xi, 0), img.width - 1);
    yi = std::min(std::max(yi, 0), img.height - 1);
    return img.at(xi, yi, c);
  };
  return (1 - ay) * ((1 - ax) * at(x0, y0) + ax * at(x0 + 1, y0)) + ay * ((1 - ax) * at(x0, y0 + 1) + ax * at(x0 + 1, y0 + 1));
}

// Catmull-Rom weights of the four taps around a sample at fraction t past the second one.
void catmull_rom(float t, float w[4]) {
  const float t2 = t * t, t3 = t2 * t;
  w[0] = 0.5f * (-t3 + 2 * t2 - t);
  w[1] = 0.5f * (3 * t3 - 5 * t2 + 2);
  w[2] = 0.5f * (-3 * t3 + 4 * t2 + t);
  w[3] = 0.5f * (t3 - t2);
}

// Bicubic (Catmull-Rom) sample: sharper than bilinear, so that a history resampled every frame does
// not blur away (TAA's usual choice).
float sample_sharp(const Image& img, float x, float y, int c) {
  const float fx = x - 0.5f, fy = y - 0.5f;
  const int x0 = int(std::floor(fx)), y0 = int(std::floor(fy));
  float wx[4], wy[4];
  catmull_rom(fx - float(x0), wx);
  catmull_rom(fy - float(y0), wy);
  float sum = 0;
  for (int j = 0; j < 4; ++j) {
    const int yi = std::min(std::max(y0 - 1 + j, 0), img.height - 1);
    float row = 0;
    for (int i = 0; i < 4; ++i) row += wx[i] * img.at(std::min(std::max(x0 - 1 + i, 0), img.width - 1), yi, c);
    sum += wy[j] * row;
  }
  return sum;
}

}  // namespace

Reprojected reproject(const Image& previous, const Image& motion, const Image& depth, const Image& previous_depth,
                      const Image& normal, const Image& previous_normal, Resampling resampling) {
  const int w = previous.width, h = previous.height;
  auto same_size = [&](const Image& img, int min_channels, const char* what) {
    VX_CHECK(img.width == w && img.height == h && img.channels >= min_channels, InvalidArgument, what, " is ",
             img.width, "x", img.height, "x", img.channels, ", the frame ", w, "x", h);
  };
  same_size(motion, 2, "motion");
  same_size(depth, 1, "depth");
  same_size(previous_depth, 1, "previous depth");
  const bool normals = !normal.empty() || !previous_normal.empty();  // both or neither
  if (normals) {
    same_size(normal, 3, "normal");
    same_size(previous_normal, 3, "previous normal");
  }
  Reprojected out{Image(w, h, previous.channels), std::vector<uint8_t>(size_t(w) * size_t(h), 0)};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float px = float(x) + 0.5f + motion.at(x, y, 0), py = float(y) + 0.5f + motion.at(x, y, 1);
      for (int c = 0; c < previous.channels; ++c)
        out.values.at(x, y, c) = resampling == Resampling::catmull_rom ? sample_sharp(previous, px, py, c)
                                                                       : sample_bilinear(previous, px, py, c);
      if (!(px >= 0 && py >= 0 && px <= float(w) && py <= float(h))) continue;
      // The nearest previous pixel's guides: bilinear depth across an edge would invent a surface.
      const int nx = std::min(int(px), w - 1), ny = std::min(int(py), h - 1);
      const float d = depth.at(x, y, 0), pd = previous_depth.at(nx, ny, 0);
      bool ok = (d <= 0) == (pd <= 0) && (d <= 0 || std::fabs(d - pd) <= 0.1f * d);
      if (ok && d > 0 && normals) {
        float dot = 0;
        for (int c = 0; c < 3; ++c) dot += normal.at(x, y, c) * previous_normal.at(nx, ny, c);
        ok = dot >= 0.9f;
      }
      out.valid[size_t(y) * size_t(w) + size_t(x)] = ok;
    }
  return out;
}

}  // namespace vx::denoise

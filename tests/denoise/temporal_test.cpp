// Temporal denoising's host stages: reprojection with motion vectors and its disocclusion test,
// the TAA stabiliser (a static noisy sequence gets closer to the truth; a sudden change is not
// smeared beyond the current frame's neighbourhood), the accumulation of the noisy colour (noise
// falls as the history grows; a disocclusion starts over), and the temporal error metric.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/error.h"
#include "denoise/reprojection.h"
#include "denoise/temporal_accumulator.h"
#include "denoise/temporal_metrics.h"
#include "denoise/temporal_stabilizer.h"

namespace vx::denoise {
namespace {

Image constant(int w, int h, int c, float v) {
  Image img(w, h, c);
  for (float& p : img.pixels) p = v;
  return img;
}

Image gradient(int w, int h) {
  Image img(w, h, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) img.at(x, y, c) = 0.01f * float(x) + 0.1f * float(y) + 0.001f * float(c);
  return img;
}

Image motion_of(int w, int h, float dx, float dy) {
  Image m(w, h, 2);
  for (size_t p = 0; p < size_t(w) * size_t(h); ++p) {
    m.pixels[p * 2] = dx;
    m.pixels[p * 2 + 1] = dy;
  }
  return m;
}

Image up_normals(int w, int h) {
  Image n(w, h, 3);
  for (size_t p = 0; p < size_t(w) * size_t(h); ++p) n.pixels[p * 3 + 1] = 1.0f;
  return n;
}

TEST(Reprojection, IntegerMotionFetchesThePreviousPixelAndFlagsWhatWasNotVisible) {
  const int w = 13, h = 9;
  const Image prev = gradient(w, h), motion = motion_of(w, h, 2, -1), n = up_normals(w, h);
  Image depth = constant(w, h, 1, 5.0f), prev_depth = constant(w, h, 1, 5.2f);
  prev_depth.at(6, 3, 0) = 9.0f;  // another surface there before: pixel (4, 4) was hidden
  Image prev_n = n;
  prev_n.at(8, 5, 1) = 0.0f;  // a surface facing elsewhere: pixel (6, 6)
  prev_n.at(8, 5, 0) = 1.0f;
  for (Resampling resampling : {Resampling::bilinear, Resampling::catmull_rom}) {
    const Reprojected r = reproject(prev, motion, depth, prev_depth, n, prev_n, resampling);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const bool inside = x + 2 < w && y - 1 >= 0;
        const bool hidden = (x == 4 && y == 4) || (x == 6 && y == 6);
        EXPECT_EQ(bool(r.valid[size_t(y) * w + x]), inside && !hidden) << x << "," << y;
        if (inside) {
          for (int c = 0; c < 3; ++c) EXPECT_NEAR(r.values.at(x, y, c), prev.at(x + 2, y - 1, c), 1e-5f);
        }
      }
  }
  // Half a pixel: bilinear averages the two neighbours; Catmull-Rom too on a linear ramp (it is exact on them).
  const Reprojected half = reproject(prev, motion_of(w, h, 0.5f, 0), depth, depth, n, n, Resampling::catmull_rom);
  EXPECT_NEAR(half.values.at(5, 4, 0), 0.5f * (prev.at(5, 4, 0) + prev.at(6, 4, 0)), 1e-5f);
  EXPECT_THROW(reproject(prev, motion_of(w, h + 1, 0, 0), depth, prev_depth, n, prev_n, Resampling::bilinear), Error);
}

TEST(TemporalStabilizer, StaticNoiseAveragesOutAndASuddenChangeIsNotSmeared) {
  const int w = 24, h = 16;
  const Image truth = gradient(w, h), still = motion_of(w, h, 0, 0), depth = constant(w, h, 1, 3.0f), n = up_normals(w, h);
  std::mt19937 rng(5);
  std::normal_distribution<float> noise(0.0f, 0.05f);
  auto rmse = [&](const Image& a) {
    double s = 0;
    for (size_t i = 0; i < a.pixels.size(); ++i) s += double(a.pixels[i] - truth.pixels[i]) * (a.pixels[i] - truth.pixels[i]);
    return std::sqrt(s / double(a.pixels.size()));
  };
  TemporalStabilizer taa(0.8f);
  double per_frame = 0, stabilised = 0;
  for (int f = 0; f < 12; ++f) {
    Image frame = truth;
    for (float& v : frame.pixels) v += noise(rng);
    const Image out = taa.apply(frame, still, depth, n);
    if (f == 0) {
      EXPECT_EQ(out.pixels, frame.pixels) << "the first frame passes through";
    }
    if (f >= 8) per_frame += rmse(frame), stabilised += rmse(out);
  }
  // Averaging over frames removes most of the noise; the neighbourhood clamp keeps some.
  EXPECT_LT(stabilised, 0.75 * per_frame);

  // The content jumps: every output value lies in the current frame's 3x3 range.
  const Image jumped = constant(w, h, 3, 7.0f);
  const Image out = taa.apply(jumped, still, depth, n);
  for (float v : out.pixels) EXPECT_FLOAT_EQ(v, 7.0f);
  // After reset() the next frame passes through unchanged.
  taa.reset();
  EXPECT_EQ(taa.apply(truth, still, depth, n).pixels, truth.pixels);
  EXPECT_THROW(TemporalStabilizer(1.0f), Error);
}

TEST(TemporalAccumulator, NoiseFallsWithTheHistoryAndADisocclusionStartsOver) {
  const int w = 24, h = 16;
  const float sigma = 0.1f;
  const Image truth = gradient(w, h), still = motion_of(w, h, 0, 0), n = up_normals(w, h);
  Image depth = constant(w, h, 1, 3.0f);
  std::mt19937 rng(9);
  std::normal_distribution<float> noise(0.0f, sigma);
  auto rmse = [&](const Image& a) {
    double s = 0;
    for (size_t i = 0; i < a.pixels.size(); ++i) s += double(a.pixels[i] - truth.pixels[i]) * (a.pixels[i] - truth.pixels[i]);
    return std::sqrt(s / double(a.pixels.size()));
  };
  TemporalAccumulator acc(0.2f);
  Image frame, out;
  for (int f = 0; f < 20; ++f) {
    frame = truth;
    for (float& v : frame.pixels) v += noise(rng);
    out = acc.apply(frame, still, depth, n);
    if (f == 0) {
      EXPECT_EQ(out.pixels, frame.pixels);
    }
  }
  // An exponential average with weight 0.2 leaves sqrt(0.2 / 1.8) = 0.33 of the noise.
  EXPECT_LT(rmse(out), 0.45 * sigma);
  EXPECT_GT(rmse(frame), 0.9 * sigma);
  // Every surface changes depth by half: nothing was visible before, the frame passes through.
  depth = constant(w, h, 1, 1.5f);
  EXPECT_EQ(acc.apply(frame, still, depth, n).pixels, frame.pixels);
  EXPECT_THROW(TemporalAccumulator(0.0f), Error);
}

TEST(TemporalMetrics, ZeroForTheReferenceItselfAndGrowingWithFlicker) {
  const int w = 20, h = 12;
  const Image ref0 = gradient(w, h), motion = motion_of(w, h, 1, 0), depth = constant(w, h, 1, 2.0f), n = up_normals(w, h);
  Image ref1(w, h, 3);  // the scene moved one pixel: ref1(x) = ref0(x + 1)
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) ref1.at(x, y, c) = ref0.at(std::min(x + 1, w - 1), y, c);
  const FrameGuides g{&motion, &depth, &depth, &n, &n};
  EXPECT_NEAR(temporal_rmse(ref0, ref1, ref0, ref1, g), 0.0, 1e-7);
  auto flicker = [&](float amount) {
    Image out1 = ref1;
    for (size_t i = 0; i < out1.pixels.size(); ++i) out1.pixels[i] += (i % 2 ? amount : -amount);
    return temporal_rmse(ref0, out1, ref0, ref1, g);
  };
  EXPECT_GT(flicker(0.01f), 0.0);
  EXPECT_GT(flicker(0.05f), 2 * flicker(0.01f));
  EXPECT_THROW(temporal_rmse(ref0, ref1, ref0, ref1, FrameGuides{}), Error);
}

}  // namespace
}  // namespace vx::denoise

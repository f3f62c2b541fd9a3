// The filter's input rules and memory limit (issue 10), on the CPU device: non-finite pixels count
// as 0 as in OIDN, inputScale must be a positive normal float, maxMemoryMB is validated, and every
// image is tiled to stay under the limit (the device's default when maxMemoryMB is -1).
#include <algorithm>
#include <cmath>

#include "common/test_util.h"
#include "denoise/denoise_helpers.h"

namespace vx {
namespace {

test::DenoiseInputs ramp_inputs(int w, int h) {
  test::DenoiseInputs in{Image(w, h, 3), Image(w, h, 3), Image(w, h, 3)};
  for (size_t i = 0; i < in.color.pixels.size(); ++i) {
    in.color.pixels[i] = 0.05f * float(i % 37);
    in.albedo.pixels[i] = 0.02f * float(i % 41);
    in.normal.pixels[i] = i % 3 == 2 ? 1.0f : 0.0f;
  }
  return in;
}

TEST(FilterLimits, NonFiniteInputPixelsBecomeZero) {
  test::DenoiseInputs in = ramp_inputs(29, 19), zeroed = in;
  const float bad[] = {INFINITY, -INFINITY, NAN};
  for (size_t i = 0; i < in.color.pixels.size(); i += 17) {
    in.color.pixels[i] = bad[i % 3];
    in.albedo.pixels[i] = bad[(i + 1) % 3];
    in.normal.pixels[i] = bad[(i + 2) % 3];
    zeroed.color.pixels[i] = zeroed.albedo.pixels[i] = zeroed.normal.pixels[i] = 0.0f;
  }
  const auto weights = test::random_weights_blob(UNetVariant::small, 9, 3);
  for (bool hdr : {true, false}) {
    const Image out = test::denoise_cpu(in, weights, hdr);
    const Image want = test::denoise_cpu(zeroed, weights, hdr);
    for (size_t i = 0; i < out.pixels.size(); ++i) {
      ASSERT_TRUE(std::isfinite(out.pixels[i])) << "hdr " << hdr << " at " << i;
      ASSERT_EQ(out.pixels[i], want.pixels[i]) << "hdr " << hdr << " at " << i;
    }
  }
  // An all-Inf HDR image: autoexposure sees black, the output is finite.
  for (float& v : in.color.pixels) v = INFINITY;
  for (float v : test::denoise_cpu(in, weights, true).pixels) ASSERT_TRUE(std::isfinite(v));
}

void expect_commit_fails(denoise::Filter& f, const std::string& must_contain) {
  try {
    f.commit();
    ADD_FAILURE() << "commit accepted what it should refuse (" << must_contain << ")";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
    EXPECT_NE(std::string(e.what()).find(must_contain), std::string::npos) << e.what();
  }
}

TEST(FilterLimits, InputScaleAndMemoryParametersAreValidated) {
  test::DenoiseInputs in = ramp_inputs(16, 16);
  Image out(16, 16, 3);
  denoise::Filter f(denoise::Device::create("cpu"));
  f.set_image("color", test::view_of(in.color));
  f.set_image("output", test::view_of(out));
  f.set_weights_blob(test::random_weights_blob(UNetVariant::small, 3, 5));
  f.params().hdr = true;
  for (float scale : {1e-45f, 0.0f, -1.0f, INFINITY, -INFINITY}) {
    f.params().input_scale = scale;
    expect_commit_fails(f, "inputScale");
  }
  // The largest and smallest normal scales run and give finite output.
  for (float scale : {1.2e-38f, 3e38f}) {
    f.params().input_scale = scale;
    f.commit();
    f.execute();
    for (float v : out.pixels) ASSERT_TRUE(std::isfinite(v)) << "inputScale " << scale;
  }
  f.params().input_scale = NAN;
  for (int mb : {0, -2, -1000}) {
    f.params().max_memory_mb = mb;
    expect_commit_fails(f, "maxMemoryMB");
  }
  f.params().max_memory_mb = -1;
  f.params().max_tile_size = -16;
  expect_commit_fails(f, "maxTileSize");
}

// A 9000 x 9000 image (what a 236 KB PNG can decode to) would need ~50 GiB untiled. The default
// limit tiles it; commit() only plans, so the view's pixels are never touched here.
TEST(FilterLimits, DefaultMemoryLimitTilesLargeImages) {
  auto cpu = denoise::Device::create("cpu");
  EXPECT_EQ(cpu->default_max_memory_mb(), denoise::kDefaultMaxMemoryMB);
  std::vector<float> pixel(3, 0.5f);
  denoise::ImageView huge;
  huge.data = pixel.data();
  huge.width = huge.height = 9000;
  denoise::Filter f(cpu);
  f.set_image("color", huge);
  f.set_image("output", huge);
  f.set_weights_blob(test::random_weights_blob(UNetVariant::base, 3, 6));
  f.params().hdr = true;
  f.commit();
  const denoise::TileLayout* layout = f.tile_layout();
  ASSERT_NE(layout, nullptr);
  EXPECT_GT(layout->tiles.size(), 1u);
  EXPECT_LT(layout->tile_width, 9000);
  EXPECT_GE(layout->tile_width, 512);  // and not needlessly small

  // A small explicit limit tiles a small image too, with the same result as untiled. 1 MB is less
  // than any tile needs: the tiles are the smallest the overlap allows.
  test::DenoiseInputs in = ramp_inputs(300, 220);
  in.albedo = in.normal = {};
  const auto weights = test::random_weights_blob(UNetVariant::base, 3, 7);
  const Image untiled = test::denoise_cpu(in, weights, true);
  Image tiled(300, 220, 3);
  denoise::Filter g(cpu);
  g.set_image("color", test::view_of(in.color));
  g.set_image("output", test::view_of(tiled));
  g.set_weights_blob(weights);
  g.params().hdr = true;
  g.params().max_memory_mb = 1;
  g.commit();
  ASSERT_NE(g.tile_layout(), nullptr);
  EXPECT_EQ(g.tile_layout()->tile_width, 2 * g.tile_layout()->overlap + denoise::kTileAlignment);
  g.execute();
  EXPECT_GT(g.stats().tiles, 1);
  // Relative to max(1, |value|): oneDNN may pick another algorithm (Winograd or direct) per tile shape.
  for (size_t i = 0; i < tiled.pixels.size(); ++i)
    ASSERT_NEAR(tiled.pixels[i], untiled.pixels[i], 1e-4f * std::max(1.0f, std::abs(untiled.pixels[i]))) << i;
}

}  // namespace
}  // namespace vx

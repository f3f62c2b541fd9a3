// The denoising filter end to end on the CPU: tiling exactness, validation errors, NaN/Inf input,
// cancellation, in-place filtering.
#include <cmath>
#include <fstream>

#include "common/test_util.h"
#include "core/half.h"
#include "denoise/denoise_helpers.h"
#include "formats/image_io.h"

namespace vx {
namespace {

using test::denoise_cpu;
using test::DenoiseInputs;
using test::max_rel_diff;
using test::view_of;

DenoiseInputs smooth_inputs(int w, int h, uint64_t seed) {
  DenoiseInputs in{Image(w, h, 3), Image(w, h, 3), Image(w, h, 3)};
  Tensor noise = test::random_tensor({int64_t(w) * h * 3}, seed, 0.0f, 1.0f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) {
        const size_t i = (size_t(y) * size_t(w) + size_t(x)) * 3 + size_t(c);
        const float base = 0.5f + 0.4f * std::sin(0.05f * float(x + 7 * c)) * std::cos(0.03f * float(y));
        in.color.pixels[i] = base * 2.0f * noise.data<float>()[i];
        in.albedo.pixels[i] = base;
        in.normal.pixels[i] = c == 2 ? 1.0f : 0.0f;
      }
  return in;
}

std::vector<std::byte> weights_for_tests(int input_channels) {
  if (auto shared = test::shared_dir(); shared && input_channels == 9) {
    return test::read_bytes(*shared / "weights" / "rt_hdr_alb_nrm.tza");
  }
  return test::random_weights_blob(UNetVariant::base, input_channels);
}

TEST(Filter, TiledEqualsUntiled600x400) {
  // Real HDR weights when ../shared is present, else random base weights. Tiles change oneDNN's
  // summation order at their borders; random weights amplify that (3.4e-5 measured) where trained
  // ones keep it below 1e-5.
  DenoiseInputs in = smooth_inputs(600, 400, 1);
  const auto weights = weights_for_tests(9);
  const double tolerance = test::shared_dir() ? 1e-5 : 1e-4;
  const Image untiled = denoise_cpu(in, weights, true, 0);
  const Image tiled = denoise_cpu(in, weights, true, 256);
  EXPECT_LE(max_rel_diff(untiled, tiled), tolerance);
  for (float v : untiled.pixels) ASSERT_TRUE(std::isfinite(v) && v >= 0);
}

TEST(Filter, TiledEqualsUntiledForLargeVariant) {
  DenoiseInputs in = smooth_inputs(300, 260, 2);
  in.albedo = {};
  in.normal = {};
  const auto weights = test::random_weights_blob(UNetVariant::large, 3);
  const Image untiled = denoise_cpu(in, weights, false, 0);
  const Image tiled = denoise_cpu(in, weights, false, 240);
  EXPECT_LE(max_rel_diff(untiled, tiled), 1e-5);
}

TEST(Filter, NanAndInfPixelsGiveFiniteOutput) {
  DenoiseInputs in = smooth_inputs(40, 33, 3);
  in.color.pixels[5] = NAN;
  in.color.pixels[100] = INFINITY;
  in.color.pixels[200] = -INFINITY;
  in.albedo.pixels[7] = NAN;
  in.normal.pixels[9] = INFINITY;
  const Image out = denoise_cpu(in, weights_for_tests(9), true);
  for (float v : out.pixels) ASSERT_TRUE(std::isfinite(v) && v >= 0);
}

TEST(Filter, InPlaceWithTilesEqualsOutOfPlace) {
  DenoiseInputs in = smooth_inputs(300, 300, 4);
  const auto weights = weights_for_tests(9);
  const Image expected = denoise_cpu(in, weights, true, 224);
  denoise::Filter f(denoise::Device::create("cpu"));
  f.set_image("color", view_of(in.color));
  f.set_image("albedo", view_of(in.albedo));
  f.set_image("normal", view_of(in.normal));
  f.set_image("output", view_of(in.color));  // in place
  f.params().hdr = true;
  f.params().max_tile_size = 224;
  f.set_weights_blob(weights);
  f.execute();
  EXPECT_EQ(f.stats().tiles, 16);  // 4 x 4: steps of 224 - 2 * 96 = 32 pixels
  EXPECT_LE(max_rel_diff(expected, in.color), 1e-6);
}

TEST(Filter, ErrorsNameTheProblem) {
  DenoiseInputs in = smooth_inputs(32, 32, 5);
  Image small(31, 32, 3), out(32, 32, 3);
  denoise::Filter f(denoise::Device::create("cpu"));
  f.set_image("color", view_of(in.color));
  f.set_image("output", view_of(out));
  f.set_image("albedo", view_of(small));
  f.set_weights_blob(weights_for_tests(9));
  try {
    f.commit();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("31x32"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("32x32"), std::string::npos) << e.what();
  }
  f.set_image("albedo", view_of(in.albedo));
  try {
    f.commit();  // 9-channel weights, normal missing
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("take 9 input channels"), std::string::npos) << e.what();
  }
  std::vector<std::byte> corrupt = weights_for_tests(9);
  corrupt.resize(corrupt.size() / 2);
  f.set_image("normal", view_of(in.normal));
  f.set_weights_blob(corrupt);
  try {
    f.commit();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidFile) << e.what();
  }
  EXPECT_THROW(f.set_image("colour", view_of(in.color)), Error);
  EXPECT_THROW(denoise::Device::create("tpu"), Error);
  EXPECT_THROW(denoise::Device::create("cpu")->make_network(Graph(), Precision::fp16), Error);
}

TEST(Filter, ProgressCanCancel) {
  DenoiseInputs in = smooth_inputs(400, 400, 6);
  Image out(400, 400, 3);
  denoise::Filter f(denoise::Device::create("cpu"));
  f.set_image("color", view_of(in.color));
  f.set_image("albedo", view_of(in.albedo));
  f.set_image("normal", view_of(in.normal));
  f.set_image("output", view_of(out));
  f.params().hdr = true;
  f.params().max_tile_size = 256;
  f.set_weights_blob(weights_for_tests(9));
  std::vector<double> seen;
  f.set_progress([&](double p) {
    seen.push_back(p);
    return p < 0.5;
  });
  try {
    f.execute();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Cancelled);
  }
  ASSERT_GE(seen.size(), 2u);
  EXPECT_EQ(seen.front(), 0.0);
  EXPECT_GE(seen.back(), 0.5);
  EXPECT_LT(seen.back(), 1.0);
}

TEST(Filter, HalfImagesAndOneChannelOutput) {
  DenoiseInputs in = smooth_inputs(48, 40, 7);
  const auto weights = weights_for_tests(9);
  const Image ref = denoise_cpu(in, weights, true);
  std::vector<uint16_t> color_half(in.color.pixels.size());
  for (size_t i = 0; i < color_half.size(); ++i) color_half[i] = float_to_half(in.color.pixels[i]);
  std::vector<float> grey(48 * 40);
  denoise::ImageView ch;
  ch.data = color_half.data();
  ch.type = denoise::PixelType::f16;
  ch.width = 48, ch.height = 40, ch.channels = 3;
  denoise::ImageView g;
  g.data = grey.data();
  g.width = 48, g.height = 40, g.channels = 1;
  denoise::Filter f(denoise::Device::create("cpu"));
  f.set_image("color", ch);
  f.set_image("albedo", view_of(in.albedo));
  f.set_image("normal", view_of(in.normal));
  f.set_image("output", g);
  f.params().hdr = true;
  f.set_weights_blob(weights);
  f.execute();
  for (size_t i = 0; i < grey.size(); ++i) {
    const float mean = (ref.pixels[i * 3] + ref.pixels[i * 3 + 1] + ref.pixels[i * 3 + 2]) / 3;
    ASSERT_NEAR(grey[i], mean, 2e-2 * std::max(1.0f, mean)) << i;  // half input rounding
  }
}

}  // namespace
}  // namespace vx

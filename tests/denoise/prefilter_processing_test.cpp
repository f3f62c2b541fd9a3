// OIDN 2.4's processing for prefiltering and lightmaps (src/denoise/processing.h), against values
// computed by hand (in double, from the definitions): the log curve, signed inputs (a normal image
// alone, directional lightmaps), an albedo image alone, and the output order (the mean of a
// 1-channel output before the range clamps). Tolerances: 1e-6 absolute for values in [0, 1] (float
// rounding of one curve evaluation), 1e-5 relative for HDR values.
#include <cmath>

#include "common/test_util.h"
#include "denoise/processing.h"
#include "denoise/tiling.h"
#include "denoise/transfer.h"

namespace vx::denoise {
namespace {

constexpr double kLn65505 = 11.08988175458777;  // log(65504 + 1), OIDN's xMax of the log curve

// A packed f32 image of `channels` channels over `pixels`.
ImageView packed_view(std::vector<float>& pixels, int w, int h, int channels) {
  ImageView v;
  v.data = pixels.data();
  v.width = w;
  v.height = h;
  v.channels = channels;
  return v;
}

// Input processing of a w x 1 main input (no auxiliary images); returns channel c of pixel x.
struct ProcessedInput {
  TileLayout layout;
  Tensor tensor;
  ProcessedInput(const ImageView& main, const ProcessingParams& p)
      : layout(make_tile_layout(main.width, main.height, 174, 0)),
        tensor(DType::f32, {1, 3, layout.tile_height, layout.tile_width}) {
    process_input_tile(main, nullptr, nullptr, layout.tiles[0], p, tensor);
  }
  float at(int c, int x) const { return tensor.data<float>()[size_t(c) * layout.tile_height * layout.tile_width + x]; }
};

// Output processing of a network output whose pixel x (row 0) is rgb[x]; returns the output image.
std::vector<float> process_output(const std::vector<std::array<float, 3>>& rgb, const ProcessingParams& p,
                                  int channels) {
  const int w = int(rgb.size());
  const TileLayout layout = make_tile_layout(w, 1, 174, 0);
  Tensor net(DType::f32, {1, 3, layout.tile_height, layout.tile_width});
  const size_t plane = size_t(layout.tile_height) * layout.tile_width;
  for (int x = 0; x < w; ++x)
    for (int c = 0; c < 3; ++c) net.data<float>()[size_t(c) * plane + size_t(x)] = rgb[size_t(x)][size_t(c)];
  std::vector<float> out(size_t(w) * channels, -99.0f);
  process_output_tile(net, layout.tiles[0], p, packed_view(out, w, 1, channels));
  return out;
}

TEST(LogTransfer, MatchesOidnsNormalisedLogCurve) {
  EXPECT_NEAR(log_curve_max(), kLn65505, 1e-5);
  const TransferFunction log_curve(TransferKind::log);
  EXPECT_EQ(log_curve.forward(0.0f), 0.0f);
  EXPECT_NEAR(log_curve.forward(65504.0f), 1.0, 1e-6);
  EXPECT_NEAR(log_curve.forward(1.0f), 0.06250266647551922, 1e-7);   // log(2) / log(65505)
  EXPECT_NEAR(log_curve.forward(1.5f), 0.08262403081936334, 1e-7);   // log(2.5) / log(65505)
  EXPECT_NEAR(log_curve.inverse(0.5f), 254.939445963298, 1e-5 * 255);  // exp(0.5 log(65505)) - 1
  EXPECT_NEAR(log_curve.inverse(0.25f), 14.998107574438235, 1e-5 * 15);
  for (double y = 1e-4; y < 65504; y *= 1.9)
    ASSERT_NEAR(log_curve.inverse(log_curve.forward(float(y))), y, 1e-5 * std::max(1.0, y)) << y;
}

TEST(PrefilterProcessing, NormalAloneIsSignedLinearAndClampedToOne) {
  // Normals in [-1, 1]: clamp, x * 0.5 + 0.5, no curve; non-finite values count as 0.
  std::vector<float> normal = {-1.5f, -0.5f, 0.0f, 0.25f, 1.0f, 2.0f, NAN, INFINITY, -INFINITY};
  ProcessingParams p;
  p.transfer = TransferKind::linear;
  p.hdr = false;
  p.snorm = true;
  p.input_channels = 3;
  const ProcessedInput in(packed_view(normal, 9, 1, 1), p);  // one channel: broadcast to three
  const float want[] = {0.0f, 0.25f, 0.5f, 0.625f, 1.0f, 1.0f, 0.5f, 0.5f, 0.5f};
  for (int x = 0; x < 9; ++x)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(in.at(c, x), want[x], 1e-7) << "x " << x << " c " << c;
  EXPECT_EQ(in.at(0, 9), 0.0f);  // padding

  // Output: clamp at 0, x * 2 - 1, at least -1, at most 1 (not HDR).
  const std::vector<float> out =
      process_output({{0.0f, 0.25f, 0.75f}, {1.2f, -0.3f, NAN}, {0.5f, 0.6f, 1.0f}}, p, 3);
  const float want_out[] = {-1.0f, -0.5f, 0.5f, 1.0f, -1.0f, -1.0f, 0.0f, 0.2f, 1.0f};
  for (size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], want_out[i], 1e-6) << i;
}

TEST(PrefilterProcessing, AlbedoAloneTakesTheScaleAndTheSrgbCurve) {
  // OIDN's main input: * inputScale (the caller's), clamp [0, 1], sRGB forward.
  std::vector<float> albedo = {0.25f, 0.75f, -0.2f};
  ProcessingParams p;
  p.transfer = TransferKind::srgb;
  p.hdr = false;
  p.input_scale = 2.0f;
  p.input_channels = 3;
  const ProcessedInput in(packed_view(albedo, 1, 1, 3), p);
  EXPECT_NEAR(in.at(0, 0), 0.7353569830524495, 1e-6);  // srgb(0.25 * 2) = 1.055 * 0.5^(1/2.4) - 0.055
  EXPECT_NEAR(in.at(1, 0), 1.0, 1e-6);                  // 0.75 * 2 clamped to 1
  EXPECT_EQ(in.at(2, 0), 0.0f);                         // negative: 0
  // Output: sRGB inverse, at most 1, / inputScale.
  const std::vector<float> out = process_output({{0.7353569830524495f, 1.3f, 0.0f}}, p, 3);
  EXPECT_NEAR(out[0], 0.25, 1e-6);
  EXPECT_NEAR(out[1], 0.5, 1e-6);  // clamped to 1 before the scale
  EXPECT_EQ(out[2], 0.0f);
}

TEST(PrefilterProcessing, HdrLightmapUsesTheLogCurve) {
  std::vector<float> color = {3.0f, 0.0f, 1e30f};
  ProcessingParams p;
  p.transfer = TransferKind::log;
  p.hdr = true;
  p.input_scale = 0.5f;
  p.input_channels = 3;
  const ProcessedInput in(packed_view(color, 1, 1, 3), p);
  EXPECT_NEAR(in.at(0, 0), 0.08262403081936334, 1e-7);  // log(3 * 0.5 + 1) / log(65505)
  EXPECT_EQ(in.at(1, 0), 0.0f);
  EXPECT_NEAR(in.at(2, 0), std::log(5e29) / kLn65505, 1e-5);  // HDR: no clamp at 1
  const std::vector<float> out = process_output({{0.5f, 0.25f, -1.0f}}, p, 3);
  EXPECT_NEAR(out[0], 509.878891926596, 1e-5 * 510);  // (exp(0.5 log(65505)) - 1) / 0.5
  EXPECT_NEAR(out[1], 29.99621514887647, 1e-5 * 30);
  EXPECT_EQ(out[2], 0.0f);
}

TEST(PrefilterProcessing, DirectionalLightmapIsSignedAndLinear) {
  std::vector<float> color = {-0.6f, 0.4f, 3.0f};
  ProcessingParams p;
  p.transfer = TransferKind::linear;
  p.hdr = false;
  p.snorm = true;
  p.input_channels = 3;
  const ProcessedInput in(packed_view(color, 1, 1, 3), p);
  EXPECT_NEAR(in.at(0, 0), 0.2, 1e-7);
  EXPECT_NEAR(in.at(1, 0), 0.7, 1e-7);
  EXPECT_NEAR(in.at(2, 0), 1.0, 1e-7);
  const std::vector<float> out = process_output({{0.2f, 0.7f, 1.0f}}, p, 3);
  EXPECT_NEAR(out[0], -0.6, 1e-6);
  EXPECT_NEAR(out[1], 0.4, 1e-6);
  EXPECT_NEAR(out[2], 1.0, 1e-6);
}

TEST(PrefilterProcessing, OneChannelOutputAveragesBeforeTheClamps) {
  ProcessingParams p;
  p.transfer = TransferKind::linear;
  p.hdr = false;
  p.input_channels = 3;
  // LDR: mean(1.5, 0.5, 0.4) = 0.8 stays (the mean of clamped channels would be 0.6333).
  EXPECT_NEAR(process_output({{1.5f, 0.5f, 0.4f}}, p, 1)[0], 0.8, 1e-6);
  // Signed: mean(0.9, 0.1, 0.2) = 0.4 -> 0.4 * 2 - 1 = -0.2.
  p.snorm = true;
  EXPECT_NEAR(process_output({{0.9f, 0.1f, 0.2f}}, p, 1)[0], -0.2, 1e-6);
}

}  // namespace
}  // namespace vx::denoise

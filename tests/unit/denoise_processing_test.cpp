// Transfer curves, autoexposure, tile layout and per-pixel processing against OIDN's definitions.
#include <cfloat>
#include <cmath>
#include <set>

#include "common/test_util.h"
#include "core/half.h"
#include "denoise/autoexposure.h"
#include "denoise/processing.h"
#include "denoise/tiling.h"
#include "denoise/transfer.h"

namespace vx::denoise {
namespace {

TEST(Transfer, SrgbRoundTripsAndKnownValues) {
  EXPECT_NEAR(srgb_forward(0.0031308f), 0.04045f, 1e-6);
  EXPECT_NEAR(srgb_forward(1.0f), 1.0f, 1e-6);
  EXPECT_NEAR(srgb_forward(0.5f), 0.735356983f, 1e-6);  // 1.055 * 0.5^(1/2.4) - 0.055
  for (float y = 0.0f; y <= 1.0f; y += 1.0f / 1024)
    ASSERT_NEAR(srgb_inverse(srgb_forward(y)), y, 2e-6f * std::max(1.0f, y)) << y;
}

TEST(Transfer, PuIsContinuousAndRoundTrips) {
  // The pieces meet at y0 and y1 (the fit's own break points), within the constants' precision.
  EXPECT_NEAR(1.41283765e3f * 1.57945760e-6f, 1.64593172f * std::pow(1.57945760e-6f, 4.31384981e-1f) - 2.94139609e-3f,
              1e-5);
  EXPECT_NEAR(pu_forward(1.57945760e-6f), 2.23151711e-3f, 1e-6);
  EXPECT_NEAR(pu_forward(3.22087631e-2f), 3.70974749e-1f, 1e-5);
  for (double y = 1e-7; y < 65504; y *= 1.37) {
    const float f = pu_forward(float(y));
    ASSERT_NEAR(pu_inverse(f), y, 1e-4 * y) << y;
  }
}

TEST(Transfer, NormalisedPuMapsHalfMaxToOne) {
  TransferFunction pu(TransferKind::pu);
  EXPECT_NEAR(pu.forward(65504.0f), 1.0f, 1e-6);
  EXPECT_NEAR(pu.forward(0.0f), 0.0f, 1e-9);
  for (float y : {0.0f, 1e-5f, 0.01f, 0.18f, 1.0f, 10.0f, 1000.0f})
    EXPECT_NEAR(pu.inverse(pu.forward(y)), y, 1e-4f * std::max(y, 1e-3f)) << y;
  EXPECT_EQ(transfer_for(true, false), TransferKind::pu);
  EXPECT_EQ(transfer_for(false, false), TransferKind::srgb);
  EXPECT_EQ(transfer_for(false, true), TransferKind::linear);
}

ImageView view_of(std::vector<float>& pixels, int w, int h, int c) {
  ImageView v;
  v.data = pixels.data();
  v.width = w;
  v.height = h;
  v.channels = c;
  return v;
}

TEST(Autoexposure, UniformImageGivesKeyOverLuminance) {
  std::vector<float> px(37 * 23 * 3, 2.0f);  // odd size: bins of unequal width
  const float scale = compute_autoexposure(view_of(px, 37, 23, 3));
  // Luminance of grey 2 is 2 * (0.212671 + 0.715160 + 0.072169) = 2.
  EXPECT_NEAR(scale, 0.18f / 2.0f, 1e-6);
}

TEST(Autoexposure, GeometricMeanOverBinsAndDarkBinsIgnored) {
  // 32x16: two 16x16 bins. Left bin luminance 4, right bin 1 -> geometric mean 2.
  std::vector<float> px(32 * 16, 0.0f);
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 32; ++x) px[size_t(y * 32 + x)] = x < 16 ? 4.0f : 1.0f;
  EXPECT_NEAR(compute_autoexposure(view_of(px, 32, 16, 1)), 0.18f / 2.0f, 1e-6);
  // A black right bin is ignored; NaN and negative values count as 0.
  for (int y = 0; y < 16; ++y)
    for (int x = 16; x < 32; ++x) px[size_t(y * 32 + x)] = (x % 2) ? NAN : -5.0f;
  EXPECT_NEAR(compute_autoexposure(view_of(px, 32, 16, 1)), 0.18f / 4.0f, 1e-6);
  std::fill(px.begin(), px.end(), 0.0f);
  EXPECT_EQ(compute_autoexposure(view_of(px, 32, 16, 1)), 1.0f);
}

TEST(Autoexposure, BinEdgesUseIntegerDivision) {
  // 20 wide, 1 high: ceil(20/16) = 2 bins, edges at 0, 10, 20. Left half 1, right half 16.
  std::vector<float> px(20, 1.0f);
  for (int x = 10; x < 20; ++x) px[size_t(x)] = 16.0f;
  EXPECT_NEAR(compute_autoexposure(view_of(px, 20, 1, 1)), 0.18f / 4.0f, 1e-6);
}

TEST(Tiling, OverlapMatchesOidn) {
  EXPECT_EQ(tile_overlap(174), 96);
  EXPECT_EQ(tile_overlap(202), 112);
}

TEST(Tiling, OneTileWhenItFits) {
  TileLayout l = make_tile_layout(600, 400, 174, 0);
  ASSERT_EQ(l.tiles.size(), 1u);
  EXPECT_EQ(l.tile_width, 608);
  EXPECT_EQ(l.tile_height, 400);
  EXPECT_EQ(l.tiles[0].out_w, 600);
  EXPECT_EQ(l.tiles[0].buffer_x, 0);
}

TEST(Tiling, TilesCoverEveryPixelOnceAndStayAligned) {
  for (int w : {600, 257, 1000, 1921})
    for (int h : {400, 300, 513})
      for (int max_tile : {256, 320, 512}) {
        TileLayout l = make_tile_layout(w, h, 174, max_tile);
        EXPECT_LE(l.tile_width, std::max(max_tile, 2 * 96 + 16));
        EXPECT_EQ(l.tile_width % 16, 0);
        std::vector<int> hits(size_t(w) * size_t(h), 0);
        for (const Tile& t : l.tiles) {
          EXPECT_EQ(t.in_x % 16, 0);
          EXPECT_EQ(t.buffer_x % 16, 0);
          EXPECT_EQ(t.buffer_y % 16, 0);
          EXPECT_LE(t.buffer_x + t.in_w, l.tile_width);
          EXPECT_LE(t.buffer_y + t.in_h, l.tile_height);
          // The owned output is at least `overlap` away from any inner tile edge.
          if (t.out_x > 0) {
            EXPECT_GE(t.out_x - t.in_x, l.overlap);
          }
          if (t.out_x + t.out_w < w) {
            EXPECT_GE(t.in_x + t.in_w - (t.out_x + t.out_w), l.overlap);
          }
          for (int y = t.out_y; y < t.out_y + t.out_h; ++y)
            for (int x = t.out_x; x < t.out_x + t.out_w; ++x) hits[size_t(y) * size_t(w) + size_t(x)]++;
        }
        for (int n : hits) ASSERT_EQ(n, 1) << w << "x" << h << " tile " << max_tile;
      }
}

TEST(Processing, InputChannelsFollowOidn) {
  const int W = 3, H = 2;
  std::vector<float> color(W * H * 3), albedo(W * H * 3), normal(W * H * 3);
  for (size_t i = 0; i < color.size(); ++i) {
    color[i] = float(i) * 0.1f;
    albedo[i] = float(i) * 0.1f - 0.3f;
    normal[i] = float(i) * 0.2f - 1.5f;
  }
  color[4] = NAN;
  color[5] = INFINITY;
  ImageView c = view_of(color, W, H, 3), a = view_of(albedo, W, H, 3), n = view_of(normal, W, H, 3);
  TileLayout layout = make_tile_layout(W, H, 174, 0);
  Tensor input(DType::f32, {1, 9, layout.tile_height, layout.tile_width});
  ProcessingParams p;
  p.hdr = true;
  p.transfer = TransferKind::pu;
  p.input_scale = 2.0f;
  process_input_tile(c, &a, &n, layout.tiles[0], p, input);
  const TransferFunction pu(TransferKind::pu);
  auto at = [&](int ch, int y, int x) { return input.data<float>()[(size_t(ch) * 16 + size_t(y)) * 16 + size_t(x)]; };
  EXPECT_FLOAT_EQ(at(0, 0, 1), pu.forward(0.3f * 2.0f));  // pixel 1, channel 0 = color[3]
  EXPECT_FLOAT_EQ(at(1, 0, 1), 0.0f);                    // NaN -> 0
  EXPECT_FLOAT_EQ(at(2, 0, 1), 0.0f);                    // +inf -> 0 (non-finite inputs are zeroed, as OIDN)
  EXPECT_FLOAT_EQ(at(3, 0, 0), 0.0f);                    // albedo -0.3 clamped to 0
  EXPECT_FLOAT_EQ(at(4, 0, 2), 0.4f);                    // albedo[7] = 0.4
  EXPECT_FLOAT_EQ(at(6, 0, 0), 0.0f);                    // normal -1.5 -> -1 -> 0
  EXPECT_FLOAT_EQ(at(7, 1, 0), 0.75f);                   // normal[10] = 0.5 -> 0.5 * 0.5 + 0.5
  EXPECT_FLOAT_EQ(at(0, 5, 5), 0.0f);                    // padding is zero
}

TEST(Processing, OutputInvertsInputForLdrAndHdr) {
  for (bool hdr : {false, true}) {
    const int W = 5, H = 3;
    std::vector<float> color(W * H * 3), out(W * H, -1.0f);
    for (size_t i = 0; i < color.size(); ++i) color[i] = hdr ? float(i) * 0.7f : float(i) / float(color.size());
    ImageView c = view_of(color, W, H, 3);
    TileLayout layout = make_tile_layout(W, H, 174, 0);
    Tensor input(DType::f32, {1, 3, layout.tile_height, layout.tile_width});
    ProcessingParams p;
    p.hdr = hdr;
    p.transfer = transfer_for(hdr, false);
    p.input_scale = hdr ? 0.25f : 1.0f;
    p.input_channels = 3;
    process_input_tile(c, nullptr, nullptr, layout.tiles[0], p, input);
    // Identity network: output = input. A 1-channel output gets the channel mean.
    ImageView o = view_of(out, W, H, 1);
    process_output_tile(input, layout.tiles[0], p, o);
    for (int i = 0; i < W * H; ++i) {
      float mean = (color[size_t(i) * 3] + color[size_t(i) * 3 + 1] + color[size_t(i) * 3 + 2]) / 3.0f;
      ASSERT_NEAR(out[size_t(i)], mean, 1e-4f * std::max(1.0f, mean)) << i;
    }
  }
}

}  // namespace
}  // namespace vx::denoise

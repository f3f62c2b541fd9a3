// The phase decomposition of upsample + concat + 3x3 conv (conv_coopmat_up.comp): the packed weights,
// read the way the shader reads them, must give the same sums as the 3x3 conv over
// concat(upsample2x_nearest(A), B). The shader itself needs cooperative matrices (not on lavapipe):
// tests/parity/vulkan_conv_test.cpp runs it where the device has them.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "backends/vulkan/kernels/conv3x3.h"
#include "core/half.h"

namespace vx::vk {
namespace {

struct Planes {  // [channel][y][x]
  int c, h, w;
  std::vector<double> v;
  double at(int ch, int y, int x) const {
    return y < 0 || x < 0 || y >= h || x >= w ? 0.0 : v[(size_t(ch) * h + y) * w + x];
  }
};

Planes coded_planes(int c, int h, int w, int seed) {
  Planes p{c, h, w, std::vector<double>(size_t(c) * h * w)};
  for (size_t i = 0; i < p.v.size(); ++i) p.v[i] = double(int((i * 37 + seed * 11) % 23) - 11) / 4.0;
  return p;
}

TEST(VulkanConvPhase, FoldedWeightsReproduceTheUpsampledConv) {
  ConvDesc d;
  d.height = 6;
  d.width = 10;
  d.cin_a = 5;   // one 16-channel chunk of A
  d.cin_b = 19;  // two chunks of B
  d.cout = 20;   // two fragments: n_pad 32
  d.upsample_concat = true;
  const int cin = d.cin_a + d.cin_b;
  // Weights in eighths: every folded sum (of up to 4) is exact in fp16, so the check can be exact.
  Tensor w(DType::f32, Shape{d.cout, cin, 3, 3});
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = float(int((i * 13) % 17) - 8) / 8.0f;
  const Planes a = coded_planes(d.cin_a, d.height / 2, d.width / 2, 1), b = coded_planes(d.cin_b, d.height, d.width, 2);

  const std::vector<uint8_t> packed = pack_weights(ConvVariant::coopmat_up, d, Precision::fp16, w);
  const int n_pad = 32, ka = 1, kb = 2;
  ASSERT_EQ(packed.size(), size_t(16 * ka + 9 * kb) * 16 * n_pad * 2);
  auto wt = [&](size_t row, int o) {
    uint16_t h;
    std::memcpy(&h, packed.data() + (row * n_pad + o) * 2, 2);
    return double(half_to_float(h));
  };
  for (int o = 0; o < n_pad; ++o)
    for (int y = 0; y < d.height; ++y)
      for (int x = 0; x < d.width; ++x) {
        // The shader's sums: A part per phase (2x2 window at A's resolution), B part (9 taps).
        const int i = y / 2, ph_a = y % 2, j = x / 2, ph_b = x % 2;
        double got = 0;
        for (int t = 0; t < 4; ++t)
          for (int c = 0; c < 16 * ka; ++c) {
            const double v = c < d.cin_a ? a.at(c, i + ph_a - 1 + t / 2, j + ph_b - 1 + t % 2) : 0.0;
            got += v * wt(size_t((ph_a * 2 + ph_b) * 4 + t) * ka * 16 + c, o);
          }
        for (int t = 0; t < 9; ++t)
          for (int c = 0; c < 16 * kb; ++c) {
            const double v = c < d.cin_b ? b.at(c, y + t / 3 - 1, x + t % 3 - 1) : 0.0;
            got += v * wt(size_t(16) * ka * 16 + size_t(t) * kb * 16 + c, o);
          }
        // The reference: 3x3 conv over concat(upsample(A), B), zero padding 1.
        double ref = 0;
        for (int c = 0; c < cin && o < d.cout; ++c)
          for (int t = 0; t < 9; ++t) {
            const int yy = y + t / 3 - 1, xx = x + t % 3 - 1;
            if (yy < 0 || xx < 0 || yy >= d.height || xx >= d.width) continue;
            const double v = c < d.cin_a ? a.at(c, yy / 2, xx / 2) : b.at(c - d.cin_a, yy, xx);
            ref += v * w.data<float>()[(size_t(o) * cin + c) * 9 + t];
          }
        ASSERT_EQ(got, ref) << "output " << o << " at " << y << "," << x;
      }
}

// fp32 by 3xFP16 (coopmat_x3up): the hi and lo planes of 256 x the folded weights add up to them.
TEST(VulkanConvPhase, ThreeFp16PlanesSumToTheFoldedWeights) {
  ConvDesc d;
  d.height = d.width = 4;
  d.cin_a = 3;
  d.cin_b = 2;
  d.cout = 5;  // n_pad 16
  d.upsample_concat = true;
  Tensor w(DType::f32, Shape{d.cout, 5, 3, 3});
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = 1.0f / 3.0f + 1e-3f * float(i);
  const std::vector<uint8_t> packed = pack_weights(ConvVariant::coopmat_x3up, d, Precision::fp32, w);
  const size_t plane = size_t(16 + 9) * 16 * 16;
  ASSERT_EQ(packed.size(), 2 * plane * 2);
  auto half_at = [&](size_t i) {
    uint16_t h;
    std::memcpy(&h, packed.data() + i * 2, 2);
    return double(half_to_float(h));
  };
  auto ref = [&](int o, int c, int tap) { return double(w.data<float>()[(o * 5 + c) * 9 + tap]); };
  // phase (a, b) = (1, 0), tap (u, v) = (0, 1): rows {0, 1} x column {1, 2}; output 4, A channel 2
  const size_t at = (size_t(2 * 4 + 1) * 16 + 2) * 16 + 4;
  const double folded = ref(4, 2, 1) + ref(4, 2, 2) + ref(4, 2, 4) + ref(4, 2, 5);
  EXPECT_NEAR((half_at(at) + half_at(plane + at)) / 256.0, folded, 1e-6 * folded);
  // B part: tap 7, B channel 1 (concat channel 4), output 3
  const size_t bt = size_t(16) * 16 * 16 + (size_t(7) * 16 + 1) * 16 + 3;
  EXPECT_NEAR((half_at(bt) + half_at(plane + bt)) / 256.0, ref(3, 4, 7), 1e-6 * ref(3, 4, 7));
  for (int tap : {4, 5, 7, 8}) w.data<float>()[tap] = 100.0f;  // output 0, A channel 0: 256 x 400 is past fp16
  EXPECT_THROW(pack_weights(ConvVariant::coopmat_x3up, d, Precision::fp32, w), Error);
  for (int tap : {5, 7, 8}) w.data<float>()[tap] = 0.0f;  // 256 x 100 alone fits
  EXPECT_NO_THROW(pack_weights(ConvVariant::coopmat_x3up, d, Precision::fp32, w));
}

TEST(VulkanConvPhase, ChosenForUpsampleConcatLayersOnly) {
  ConvDesc d;
  d.height = 1088;
  d.width = 1920;
  d.cin_a = 64;
  d.cin_b = 9;
  d.cout = 64;  // dec_conv1a: all outputs in one workgroup
  d.upsample_concat = true;
  EXPECT_EQ(choose_variant(d, Precision::fp16, true), ConvVariant::coopmat_up);
  EXPECT_EQ(choose_variant(d, Precision::fp32, true), ConvVariant::coopmat_x3up);
  EXPECT_EQ(shader_name(ConvVariant::coopmat_x3up, d, Precision::fp32), "conv_coopmat_up.c2");
  EXPECT_EQ(dispatch_size(ConvVariant::coopmat_x3up, d), (std::array<uint32_t, 3>{60, 136, 2}));  // 8 x 32 tiles
  EXPECT_EQ(choose_variant(d, Precision::fp32, false), ConvVariant::tiled);
  EXPECT_EQ(shader_name(ConvVariant::coopmat_up, d, Precision::fp16), "conv_coopmat_up.n4");
  EXPECT_EQ(dispatch_size(ConvVariant::coopmat_up, d), (std::array<uint32_t, 3>{60, 68, 1}));  // 16 x 32 tiles
  const auto pc = push_constants(ConvVariant::coopmat_up, d);
  EXPECT_EQ(pc[10], 4);   // k_chunks: the chunks of A only
  EXPECT_EQ(pc[11], 64);  // n_pad
  d.cout = 96;  // 6 fragments: halves over 2 workgroups
  EXPECT_EQ(choose_variant(d, Precision::fp16, true), ConvVariant::coopmat_ups);
  EXPECT_EQ(shader_name(ConvVariant::coopmat_ups, d, Precision::fp16), "conv_coopmat_up.n3");
  EXPECT_EQ(dispatch_size(ConvVariant::coopmat_ups, d)[2], 2u);
  EXPECT_EQ(dispatch_size(ConvVariant::coopmat_upn, d)[2], 3u);  // 32 outputs per workgroup
  d.cout = 112;  // 7 fragments: 2 x 4, n_pad 128
  EXPECT_EQ(push_constants(ConvVariant::coopmat_ups, d)[11], 128);
  EXPECT_FALSE(variant_supports(ConvVariant::coopmat_up, d, Precision::fp16, true));  // > 4 fragments
  EXPECT_FALSE(variant_supports(ConvVariant::coopmat_ups, d, Precision::fp32, true));
  EXPECT_FALSE(variant_supports(ConvVariant::coopmat_ups, d, Precision::fp16, false));
  d.pool = true;
  EXPECT_FALSE(variant_supports(ConvVariant::coopmat_ups, d, Precision::fp16, true));
  d.pool = false;
  d.upsample_concat = false;
  d.cin_b = 0;
  EXPECT_FALSE(variant_supports(ConvVariant::coopmat_ups, d, Precision::fp16, true));
  EXPECT_NE(choose_variant(d, Precision::fp16, true), ConvVariant::coopmat_ups);
}

}  // namespace
}  // namespace vx::vk

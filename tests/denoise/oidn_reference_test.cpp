// Our CPU denoiser against OIDN's algorithm computed independently in float64 (PyTorch):
// tests/data/oidn_reference/make_reference.py made the .pfm files from crops of ../shared/images
// with ../shared/weights. Covers HDR with autoexposure, LDR sRGB and LDR linear, 9 and 3 channels,
// and padding of an odd-sized image.
#include <cmath>
#include <fstream>

#include "common/test_util.h"
#include "denoise/denoise_helpers.h"
#include "denoise/transfer.h"
#include "formats/image_io.h"

namespace vx {
namespace {

constexpr int kX0 = 384, kY0 = 448, kW = 75, kH = 61;  // as in make_reference.py

Image crop_png(const std::filesystem::path& path) {
  const Image full = read_image(path);
  Image out(kW, kH, 3);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x)
      for (int c = 0; c < 3; ++c) out.at(x, y, c) = full.at(kX0 + x, kY0 + y, c);
  return out;
}


struct Case {
  const char* name;
  const char* weights;
  bool hdr, srgb, aux;
};

class OidnReference : public ::testing::TestWithParam<Case> {};

TEST_P(OidnReference, MatchesWithinFloatRounding) {
  VX_REQUIRE_SHARED(shared);
  const Case& k = GetParam();
  test::DenoiseInputs in;
  in.color = crop_png(shared / "images" / "noisy.png");
  if (!k.srgb)  // the linear cases decode the sRGB PNG; HDR scales it above 1
    for (float& v : in.color.pixels) v = denoise::srgb_inverse(v) * (k.hdr ? 4.0f : 1.0f);
  if (k.aux) {
    in.albedo = crop_png(shared / "images" / "albedo.png");
    in.normal = crop_png(shared / "images" / "normal.png");
    for (float& v : in.normal.pixels) v = v * 2.0f - 1.0f;
  }
  const Image ours = test::denoise_cpu(in, test::read_bytes(shared / "weights" / k.weights), k.hdr, 0, k.srgb);
  const Image reference =
      read_image(std::filesystem::path(VOLVOX_SOURCE_DIR) / "tests/data/oidn_reference" / (std::string(k.name) + ".pfm"));
  ASSERT_EQ(reference.width, kW);
  ASSERT_EQ(reference.height, kH);
  double worst = 0;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x)
      for (int c = 0; c < 3; ++c) {
        const double r = reference.at(x, y, c);
        worst = std::max(worst, std::abs(ours.at(x, y, c) - r) / std::max(1.0, std::abs(r)));
      }
  // fp32 (oneDNN) against float64: 16 layers of 3x3 convolutions, fp16 weights exact in both.
  EXPECT_LE(worst, 2e-4) << k.name;
}

INSTANTIATE_TEST_SUITE_P(Crops, OidnReference,
                         ::testing::Values(Case{"hdr_alb_nrm", "rt_hdr_alb_nrm.tza", true, false, true},
                                           Case{"ldr_alb_nrm_srgb", "rt_ldr_alb_nrm.tza", false, true, true},
                                           Case{"ldr_linear", "rt_ldr.tza", false, false, false}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace vx

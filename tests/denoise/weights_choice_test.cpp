// OIDN's choice of weights (weights_choice.h) and the filter using it when given no weights: names
// by images, hdr, cleanAux and quality, the fall back from a missing large or small network to the
// base one, and the error that says how to get missing weights.
#include "common/test_util.h"
#include "denoise/denoise_helpers.h"
#include "denoise/weights_choice.h"

namespace vx::denoise {
namespace {

using Names = std::vector<std::string>;

WeightsQuery query(bool albedo, bool normal, bool hdr, bool clean_aux, Quality quality, bool color = true) {
  WeightsQuery q;
  q.color = color;
  q.albedo = albedo;
  q.normal = normal;
  q.hdr = hdr;
  q.clean_aux = clean_aux;
  q.quality = quality;
  return q;
}

TEST(WeightsChoice, FollowsOidnByImagesHdrCleanAuxAndQuality) {
  EXPECT_EQ(weights_candidates(query(false, false, true, false, Quality::high)), Names({"rt_hdr_large", "rt_hdr"}));
  EXPECT_EQ(weights_candidates(query(false, false, false, false, Quality::balanced)), Names({"rt_ldr"}));
  EXPECT_EQ(weights_candidates(query(true, false, false, false, Quality::fast)), Names({"rt_ldr_alb_small", "rt_ldr_alb"}));
  EXPECT_EQ(weights_candidates(query(true, true, true, false, Quality::high)),
            Names({"rt_hdr_alb_nrm_large", "rt_hdr_alb_nrm"}));
  EXPECT_EQ(weights_candidates(query(true, true, true, true, Quality::high)),
            Names({"rt_hdr_calb_cnrm_large", "rt_hdr_calb_cnrm"}));
  EXPECT_EQ(weights_candidates(query(true, true, false, true, Quality::fast)),
            Names({"rt_ldr_calb_cnrm_small", "rt_ldr_calb_cnrm"}));
  // cleanAux with albedo alone: OIDN has no clean-albedo-only network.
  EXPECT_EQ(weights_candidates(query(true, false, true, true, Quality::balanced)), Names({"rt_hdr_alb"}));
  // Prefiltering: an auxiliary image alone.
  EXPECT_EQ(weights_candidates(query(true, false, false, false, Quality::high, false)), Names({"rt_alb_large", "rt_alb"}));
  EXPECT_EQ(weights_candidates(query(false, true, false, false, Quality::fast, false)), Names({"rt_nrm_small", "rt_nrm"}));
  EXPECT_THROW(weights_candidates(query(false, true, false, false, Quality::high)), Error);  // normal without albedo
  EXPECT_THROW(weights_candidates(query(true, true, false, false, Quality::high, false)), Error);
  EXPECT_THROW(weights_candidates(query(false, false, false, false, Quality::high, false)), Error);
  EXPECT_THROW(weights_candidates(query(true, false, true, false, Quality::high, false)), Error);  // hdr albedo
  EXPECT_THROW(weights_candidates(query(false, true, true, false, Quality::high, false)), Error);  // hdr normal
  WeightsQuery srgb_normal = query(false, true, false, false, Quality::high, false);
  srgb_normal.srgb = true;
  EXPECT_THROW(weights_candidates(srgb_normal), Error);
}

// A filter without weights takes them from $VOLVOX_WEIGHTS as OIDN would choose, and changes
// network when the parameters ask for another.
TEST(WeightsChoice, FilterWithoutWeightsUsesTheChosenInstalledOnes) {
  const auto dir = test::temp_dir();
  write_tza_file(dir / "rt_ldr.tza", make_random_unet_weights(UNetVariant::base, 3, 1));
  write_tza_file(dir / "rt_ldr_small.tza", make_random_unet_weights(UNetVariant::small, 3, 2));
  test::ScopedEnv weights_env("VOLVOX_WEIGHTS", dir.c_str());
  test::ScopedEnv cache_env("XDG_CACHE_HOME", (dir / "no-cache").c_str());
  Image color(21, 13, 3), output(21, 13, 3), albedo(21, 13, 3);
  for (size_t i = 0; i < color.pixels.size(); ++i) color.pixels[i] = albedo.pixels[i] = 0.25f + 0.001f * float(i % 97);
  Filter filter(Device::create("cpu"));
  filter.set_image("color", test::view_of(color));
  filter.set_image("output", test::view_of(output));
  filter.params().quality = Quality::high;  // no rt_ldr_large: the base network
  filter.execute();
  EXPECT_EQ(filter.describe().rfind("base U-Net", 0), 0u) << filter.describe();
  filter.params().quality = Quality::fast;
  filter.commit();  // parameters apply at commit, as in OIDN
  filter.execute();
  EXPECT_EQ(filter.describe().rfind("small U-Net", 0), 0u) << filter.describe();
  for (float v : output.pixels) ASSERT_TRUE(std::isfinite(v));

  // Weights the folder lacks: the message names them and how to get them.
  filter.set_image("albedo", test::view_of(albedo));
  try {
    filter.commit();
    FAIL() << "committed without rt_ldr_alb";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("rt_ldr_alb"), std::string::npos) << message;
    EXPECT_NE(message.find("volvox weights fetch"), std::string::npos) << message;
  }
  // Weights the caller sets win over the choice.
  filter.set_weights_blob(test::random_weights_blob(UNetVariant::base, 6, 3));
  filter.execute();
  EXPECT_EQ(filter.describe().rfind("base U-Net, 6 input channels", 0), 0u) << filter.describe();
}

}  // namespace
}  // namespace vx::denoise

// `volvox denoise --prefilter-aux` (OIDN's prefiltering workflow: albedo through rt_alb, normal
// through rt_nrm, then the colour with cleanAux) and an auxiliary image filtered alone, against the
// library doing the same steps; and the flag combinations refused before any file is read.
#include "common/test_util.h"
#include "denoise/denoise_helpers.h"
#include "formats/image_io.h"

namespace vx {
namespace {

// Random weights under OIDN's names in a folder that $VOLVOX_WEIGHTS points at (balanced quality
// takes these base names).
struct PrefilterWeightsFolder {
  std::filesystem::path dir = test::temp_dir() / "prefilter_weights";
  TzaFile albedo = make_random_unet_weights(UNetVariant::small, 3, 51);
  TzaFile normal = make_random_unet_weights(UNetVariant::small, 3, 52);
  TzaFile color = make_random_unet_weights(UNetVariant::small, 9, 53);
  PrefilterWeightsFolder() {
    std::filesystem::create_directories(dir);
    write_tza_file(dir / "rt_alb.tza", albedo);
    write_tza_file(dir / "rt_nrm.tza", normal);
    write_tza_file(dir / "rt_ldr_calb_cnrm.tza", color);
  }
};

// `input` denoised alone (or the colour with its auxiliary images) on the CPU with `weights`.
Image library_denoise(std::vector<std::pair<const char*, Image*>> inputs, const TzaFile& weights, bool clean_aux) {
  Image out(inputs[0].second->width, inputs[0].second->height, 3);
  denoise::Filter f(denoise::Device::create("cpu"));
  for (auto& [name, image] : inputs) f.set_image(name, test::view_of(*image));
  f.set_image("output", test::view_of(out));
  f.params().clean_aux = clean_aux;
  f.set_weights_blob(write_tza(weights));
  f.execute();
  return out;
}

void expect_same_pixels(const Image& a, const Image& b) {
  ASSERT_EQ(a.pixels.size(), b.pixels.size());
  for (size_t i = 0; i < a.pixels.size(); ++i) ASSERT_EQ(a.pixels[i], b.pixels[i]) << i;
}

TEST(CliPrefilter, PrefilterAuxCleansAlbedoAndNormalThenDenoisesTheColour) {
  PrefilterWeightsFolder weights;
  test::ScopedEnv weights_env("VOLVOX_WEIGHTS", weights.dir.c_str());
  test::ScopedEnv cache_env("XDG_CACHE_HOME", (weights.dir / "no-cache").c_str());
  const auto dir = weights.dir;
  const int W = 37, H = 29;
  Image color(W, H, 3), albedo(W, H, 3), normal(W, H, 3);
  const Tensor r = test::random_tensor({W * H * 3}, 54, 0.0f, 1.0f);
  for (size_t i = 0; i < color.pixels.size(); ++i) {
    color.pixels[i] = r.data<float>()[i];
    albedo.pixels[i] = 0.3f + 0.4f * r.data<float>()[(i * 7) % color.pixels.size()];
    normal.pixels[i] = i % 3 == 2 ? 0.9f : r.data<float>()[(i * 13) % color.pixels.size()] - 0.5f;
  }
  write_image(dir / "c.pfm", color);
  write_image(dir / "a.pfm", albedo);
  write_image(dir / "n.pfm", normal);
  const std::string inputs = " --color " + (dir / "c.pfm").string() + " --albedo " + (dir / "a.pfm").string() +
                             " --normal " + (dir / "n.pfm").string();
  test::CommandResult res = test::run_volvox("denoise --device cpu --quality balanced --prefilter-aux --json" +
                                             inputs + " -o " + (dir / "out.pfm").string());
  ASSERT_EQ(res.status, 0) << res.output;
  EXPECT_NE(res.output.find("\"ms_prefilter\""), std::string::npos) << res.output;

  Image clean_albedo = library_denoise({{"albedo", &albedo}}, weights.albedo, false);
  Image clean_normal = library_denoise({{"normal", &normal}}, weights.normal, false);
  const Image want =
      library_denoise({{"color", &color}, {"albedo", &clean_albedo}, {"normal", &clean_normal}}, weights.color, true);
  expect_same_pixels(read_image(dir / "out.pfm"), want);

  // Without --json: a line per prefiltered image, then the usual one.
  res = test::run_volvox("denoise --device cpu --quality balanced --prefilter-aux" + inputs + " -o " +
                         (dir / "out2.pfm").string());
  ASSERT_EQ(res.status, 0) << res.output;
  EXPECT_NE(res.output.find("prefiltered the albedo"), std::string::npos) << res.output;
  EXPECT_NE(res.output.find("prefiltered the normal"), std::string::npos) << res.output;

  // A normal image alone: the rt_nrm network's output, in [-1, 1].
  res = test::run_volvox("denoise --device cpu --quality balanced --normal " + (dir / "n.pfm").string() + " -o " +
                         (dir / "clean_n.pfm").string());
  ASSERT_EQ(res.status, 0) << res.output;
  const Image alone = read_image(dir / "clean_n.pfm");
  expect_same_pixels(alone, clean_normal);
  for (float v : alone.pixels) ASSERT_TRUE(v >= -1.0f && v <= 1.0f) << v;
}

// Refused with one line before any file is read (none of these files exists).
TEST(CliPrefilter, BadCombinationsAreRefusedBeforeWork) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"denoise -o out.pfm", "--color"},
      {"denoise --albedo a.pfm --prefilter-aux -o out.pfm", "--prefilter-aux needs --color"},
      {"denoise --albedo a.pfm --normal n.pfm -o out.pfm", "not both"},
      {"denoise --albedo a.pfm --hdr -o out.pfm", "hdr is not supported for filtering 'albedo' alone"},
      {"denoise --normal n.pfm --srgb -o out.pfm", "'normal' alone"},
      {"denoise --normal n.pfm --clean-aux -o out.pfm", "--clean-aux"},
      {"denoise --color c.pfm --prefilter-aux -o out.pfm", "--albedo and/or --normal"},
      {"denoise --color c.pfm --albedo a.pfm --prefilter-aux --clean-aux -o out.pfm", "cannot both be set"},
      {"denoise --color c.pfm --normal n.pfm -o out.pfm", "needs an 'albedo'"},
  };
  for (const auto& [args, must_contain] : cases) {
    const test::CommandResult res = test::run_volvox(args);
    EXPECT_EQ(res.status, 1) << args << "\n" << res.output;
    EXPECT_TRUE(test::is_one_error_line(res.output)) << args << "\n" << res.output;
    EXPECT_NE(res.output.find(must_contain), std::string::npos) << args << ": expected '" << must_contain << "' in\n"
                                                                << res.output;
  }
  const test::CommandResult help = test::run_volvox("denoise --help");
  EXPECT_EQ(help.status, 0) << help.output;
  EXPECT_NE(help.output.find("--prefilter-aux"), std::string::npos) << help.output;
}

}  // namespace
}  // namespace vx

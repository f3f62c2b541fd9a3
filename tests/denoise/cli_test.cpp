// The volvox tool end to end: denoise files and sequences, the JSON line, exit status and one-line
// errors.
#include <cstdio>
#include <fstream>

#include "backends/vulkan/context.h"
#include "common/gif_reader.h"
#include "common/test_util.h"
#include "denoise/denoise_helpers.h"
#include "formats/image_io.h"

namespace vx {
namespace {

using test::CommandResult;

CommandResult run(const std::string& args) { return test::run_volvox(args); }

TEST(Cli, DenoisesFilesAndPrintsJson) {
  const auto dir = test::temp_dir();
  test::DenoiseInputs in{Image(40, 24, 3), Image(40, 24, 3), Image(40, 24, 3)};
  Tensor r = test::random_tensor({40 * 24 * 3}, 9, 0.0f, 1.0f);
  for (size_t i = 0; i < in.color.pixels.size(); ++i) {
    in.color.pixels[i] = r.data<float>()[i];
    in.albedo.pixels[i] = 0.3f;
    in.normal.pixels[i] = i % 3 == 2 ? 1.0f : 0.0f;
  }
  write_image(dir / "c.pfm", in.color);
  write_image(dir / "a.pfm", in.albedo);
  write_image(dir / "n.pfm", in.normal);
  write_tza_file(dir / "w.tza", make_random_unet_weights(UNetVariant::small, 9, 4));
  const std::string common = "--weights " + (dir / "w.tza").string() + " --color " + (dir / "c.pfm").string() +
                             " --albedo " + (dir / "a.pfm").string() + " --normal " + (dir / "n.pfm").string();
  CommandResult res = run("denoise " + common + " -o " + (dir / "out.pfm").string() + " --hdr --device cpu --json");
  ASSERT_EQ(res.status, 0) << res.output;
  EXPECT_NE(res.output.find("\"ms_total\""), std::string::npos) << res.output;
  EXPECT_NE(res.output.find("\"tiles\":1"), std::string::npos) << res.output;
  const Image cli_out = read_image(dir / "out.pfm");
  const Image lib_out = test::denoise_cpu(in, write_tza(make_random_unet_weights(UNetVariant::small, 9, 4)), true);
  ASSERT_EQ(cli_out.pixels.size(), lib_out.pixels.size());
  for (size_t i = 0; i < lib_out.pixels.size(); ++i) ASSERT_EQ(cli_out.pixels[i], lib_out.pixels[i]) << i;

  // Mismatched sizes: exit 1, one line naming both sizes.
  write_image(dir / "small.pfm", Image(39, 24, 3));
  res = run("denoise --weights " + (dir / "w.tza").string() + " --color " + (dir / "c.pfm").string() + " --albedo " +
            (dir / "small.pfm").string() + " --normal " + (dir / "n.pfm").string() + " -o " +
            (dir / "x.pfm").string() + " --device cpu");
  EXPECT_EQ(res.status, 1);
  EXPECT_NE(res.output.find("39x24"), std::string::npos) << res.output;
  EXPECT_NE(res.output.find("40x24"), std::string::npos) << res.output;
  EXPECT_EQ(std::count(res.output.begin(), res.output.end(), '\n'), 1) << res.output;

  // Corrupt weights and missing files give one-line errors too.
  std::ofstream(dir / "bad.tza") << "not a tza file";
  res = run("denoise --weights " + (dir / "bad.tza").string() + " --color " + (dir / "c.pfm").string() + " -o " +
            (dir / "x.pfm").string() + " --device cpu");
  EXPECT_EQ(res.status, 1);
  EXPECT_NE(res.output.find("volvox: "), std::string::npos) << res.output;
  res = run("denoise --weights " + (dir / "w.tza").string() + " --color " + (dir / "missing.exr").string() +
            " -o " + (dir / "x.pfm").string());
  EXPECT_EQ(res.status, 1);
  EXPECT_NE(res.output.find("missing.exr"), std::string::npos) << res.output;
}

// An animation end to end: render 3 frames, denoise them per frame and with the TAA stage, compare
// the sequences. Frame 0 is the same either way (no history); the per-frame run's frames equal the
// single-image command's; compare prints the temporal error of both and writes the strips, one file
// a frame and as one animated GIF.
TEST(Cli, DenoisesASequenceAndComparesIt) {
  const auto dir = test::temp_dir();
  const std::string r = (dir / "r").string(), w = (dir / "w.tza").string();
  write_tza_file(dir / "w.tza", make_random_unet_weights(UNetVariant::small, 9, 4));
  CommandResult res = run("render --scene spheres --width 32 --height 24 --spp 2 --frames 3 --camera pan --moving "
                          "--reference-spp 8 --format pfm -o " + r);
  ASSERT_EQ(res.status, 0) << res.output;
  const std::string inputs = " --weights " + w + " --color " + r + "_%04d_color.pfm --albedo " + r +
                             "_%04d_albedo.pfm --normal " + r + "_%04d_normal.pfm --motion " + r +
                             "_%04d_motion.pfm --depth " + r + "_%04d_depth.pfm --hdr --device cpu";
  for (const char* t : {"none", "taa", "both"}) {
    res = run(std::string("denoise --sequence") + inputs + " --temporal " + t + " -o " + (dir / t).string() + "_%d.pfm");
    ASSERT_EQ(res.status, 0) << res.output;
    EXPECT_NE(res.output.find("denoised 3 frames"), std::string::npos) << res.output;
  }
  EXPECT_EQ(read_image(dir / "none_0.pfm").pixels, read_image(dir / "taa_0.pfm").pixels);
  EXPECT_NE(read_image(dir / "none_2.pfm").pixels, read_image(dir / "taa_2.pfm").pixels);
  EXPECT_NE(read_image(dir / "taa_1.pfm").pixels, read_image(dir / "both_1.pfm").pixels);
  res = run("denoise --weights " + w + " --color " + r + "_0001_color.pfm --albedo " + r + "_0001_albedo.pfm --normal " +
            r + "_0001_normal.pfm --hdr --device cpu -o " + (dir / "single.pfm").string());
  ASSERT_EQ(res.status, 0) << res.output;
  EXPECT_EQ(read_image(dir / "single.pfm").pixels, read_image(dir / "none_1.pfm").pixels);
  res = run("compare --sequence --reference " + r + "_%04d_reference.pfm --motion " + r + "_%04d_motion.pfm --depth " +
            r + "_%04d_depth.pfm --normal " + r + "_%04d_normal.pfm " + (dir / "none").string() + "_%d.pfm " +
            (dir / "taa").string() + "_%d.pfm --side-by-side " + (dir / "strip_%02d.png").string() + " --gif " +
            (dir / "strips.gif").string() + " --gif-delay-ms 250");
  ASSERT_EQ(res.status, 0) << res.output;
  const Image strip = read_image(dir / "strip_02.png");
  EXPECT_EQ(strip.height, 24);
  EXPECT_EQ(strip.width, 3 * 32 + 2 * 8);  // per-frame, TAA, reference, two gaps
  const test::DecodedGif gif = test::read_gif(dir / "strips.gif");
  EXPECT_EQ(gif.width, strip.width);
  EXPECT_EQ(gif.height, strip.height);
  ASSERT_EQ(gif.frames.size(), 3u);
  EXPECT_EQ(gif.frames[2].delay_cs, 25);
  EXPECT_EQ(gif.loop_count, 0);
  EXPECT_NE(res.output.find("3 frames of 250 ms -> " + (dir / "strips.gif").string()), std::string::npos) << res.output;
  EXPECT_NE(res.output.find("3 frames, mean PSNR"), std::string::npos) << res.output;
  EXPECT_NE(res.output.find("temporal error"), std::string::npos) << res.output;
  // Errors: a pattern without a frame field, guides without --sequence, no frame at all.
  res = run(std::string("denoise --sequence") + inputs + " -o " + (dir / "plain.pfm").string());
  EXPECT_EQ(res.status, 1);
  EXPECT_NE(res.output.find("frame-number fields"), std::string::npos) << res.output;
  res = run("denoise --weights " + w + " --color " + r + "_0001_color.pfm --motion " + r + "_0001_motion.pfm -o " +
            (dir / "x.pfm").string());
  EXPECT_EQ(res.status, 1);
  EXPECT_NE(res.output.find("guides of a --sequence"), std::string::npos) << res.output;
  res = run(std::string("denoise --sequence --first-frame 7") + inputs + " -o " + (dir / "t").string() + "_%d.pfm");
  EXPECT_EQ(res.status, 1);
  EXPECT_NE(res.output.find("no frame"), std::string::npos) << res.output;
}

}  // namespace
}  // namespace vx

namespace vx {
namespace {

TEST(Cli, QualityPicksLargeOrSmallWeightsWhenInstalled) {
  const auto dir = test::temp_dir();
  write_tza_file(dir / "rt_ldr.tza", make_random_unet_weights(UNetVariant::base, 3, 1));
  write_tza_file(dir / "rt_ldr_large.tza", make_random_unet_weights(UNetVariant::large, 3, 2));
  write_image(dir / "c.pfm", Image(20, 20, 3));
  setenv("VOLVOX_WEIGHTS", dir.c_str(), 1);
  const std::string common = "denoise --device cpu --json --color " + (dir / "c.pfm").string() + " -o " +
                             (dir / "o.pfm").string();
  CommandResult high = run(common + " --quality high");
  CommandResult balanced = run(common + " --quality balanced");
  CommandResult fast = run(common + " --quality fast");  // no _small weights: the base network
  unsetenv("VOLVOX_WEIGHTS");
  ASSERT_EQ(high.status, 0) << high.output;
  EXPECT_NE(high.output.find("large U-Net"), std::string::npos) << high.output;
  EXPECT_NE(balanced.output.find("base U-Net"), std::string::npos) << balanced.output;
  EXPECT_NE(fast.output.find("base U-Net"), std::string::npos) << fast.output;
}

// Interactive mode from the command line: a tiny per-tile time target makes many tiles, and the
// result still equals the untiled one (tiles keep the overlap).
TEST(Cli, InteractiveTilesOnVulkanEqualUntiled) {
  bool have_vulkan = false;
  try {
    have_vulkan = !vk::VulkanContext::list_devices().empty();
  } catch (const Error&) {
  }
  if (!have_vulkan) GTEST_SKIP() << "no Vulkan device (install mesa-vulkan-drivers for lavapipe)";
  const auto dir = test::temp_dir();
  // Small: the 0.001 ms target shrinks tiles to 16 pixels, and each runs the network on lavapipe
  // (300 x 200 took 5 minutes of CI); 100 x 70 still gives tiles of several sizes and ragged edges.
  Image color(100, 70, 3);
  Tensor r = test::random_tensor({100 * 70 * 3}, 21, 0.0f, 1.0f);
  for (size_t i = 0; i < color.pixels.size(); ++i) color.pixels[i] = r.data<float>()[i];
  write_image(dir / "c.pfm", color);
  write_tza_file(dir / "w.tza", make_random_unet_weights(UNetVariant::small, 3, 5));
  const std::string common = "denoise --weights " + (dir / "w.tza").string() + " --color " + (dir / "c.pfm").string() +
                             " --device vulkan --precision fp32 --json";
  CommandResult whole = run(common + " -o " + (dir / "whole.pfm").string());
  ASSERT_EQ(whole.status, 0) << whole.output;
  CommandResult tiled = run(common + " --target-tile-ms 0.001 -o " + (dir / "tiled.pfm").string());
  ASSERT_EQ(tiled.status, 0) << tiled.output;
  EXPECT_EQ(tiled.output.find("\"tiles\":1,"), std::string::npos) << "expected several tiles: " << tiled.output;
  const Image a = read_image(dir / "whole.pfm"), b = read_image(dir / "tiled.pfm");
  ASSERT_EQ(a.pixels.size(), b.pixels.size());
  float worst = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i) worst = std::max(worst, std::fabs(a.pixels[i] - b.pixels[i]));
  EXPECT_LE(worst, 1e-5f);
}

}  // namespace
}  // namespace vx

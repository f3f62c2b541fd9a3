// What the filter's type, parameters and images mean (filter_mode.h) as OIDN 2.4 derives it, the
// combinations it refuses (with the filter's messages), the lightmap filter's need for user weights,
// OIDN's tileAlignment / tileOverlap, and the prefiltering weights a filter chooses by itself.
#include "common/test_util.h"
#include "denoise/denoise_helpers.h"
#include "denoise/filter_mode.h"

namespace vx::denoise {
namespace {

FilterParams rt_params(bool hdr, bool srgb = false) {
  FilterParams p;
  p.hdr = hdr;
  p.srgb = srgb;
  return p;
}

FilterParams lightmap_params(bool directional) {
  FilterParams p;
  p.type = FilterType::rt_lightmap;
  p.directional = directional;
  return p;
}

// The message of the InvalidArgument error `fn` throws ("" when it throws none).
template <class Fn>
std::string invalid_argument_message(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
    return e.what();
  }
  return "";
}

TEST(FilterMode, FollowsOidnsTransferAndSignedness) {
  FilterMode m = resolve_filter_mode(rt_params(true), true, true, true);
  EXPECT_EQ(m.main, MainInput::color);
  EXPECT_EQ(m.transfer, TransferKind::pu);
  EXPECT_TRUE(m.hdr && !m.snorm && m.albedo && m.normal);
  EXPECT_EQ(m.input_channels, 9);
  EXPECT_EQ(resolve_filter_mode(rt_params(false), true, false, false).transfer, TransferKind::srgb);
  EXPECT_EQ(resolve_filter_mode(rt_params(false, true), true, true, false).transfer, TransferKind::linear);

  // Prefiltering: the auxiliary image is the main input, alone (3 channels).
  m = resolve_filter_mode(rt_params(false), false, true, false);
  EXPECT_EQ(m.main, MainInput::albedo);
  EXPECT_EQ(m.transfer, TransferKind::srgb);
  EXPECT_TRUE(!m.snorm && !m.albedo && !m.normal);
  EXPECT_EQ(m.input_channels, 3);
  EXPECT_EQ(m.inputs_description(), "albedo alone");
  EXPECT_EQ(resolve_filter_mode(rt_params(false, true), false, true, false).transfer, TransferKind::linear);
  m = resolve_filter_mode(rt_params(false), false, false, true);
  EXPECT_EQ(m.main, MainInput::normal);
  EXPECT_EQ(m.transfer, TransferKind::linear);
  EXPECT_TRUE(m.snorm && !m.hdr);

  // RTLightmap: HDR with the log curve whatever hdr says; directional: signed and linear.
  FilterParams lightmap = lightmap_params(false);
  lightmap.hdr = false;  // not a lightmap parameter: ignored
  m = resolve_filter_mode(lightmap, true, false, false);
  EXPECT_TRUE(m.hdr && !m.snorm);
  EXPECT_EQ(m.transfer, TransferKind::log);
  m = resolve_filter_mode(lightmap_params(true), true, false, false);
  EXPECT_TRUE(!m.hdr && m.snorm);
  EXPECT_EQ(m.transfer, TransferKind::linear);
}

TEST(FilterMode, RefusesWhatOidnRefuses) {
  auto refusal = [](const FilterParams& p, bool color, bool albedo, bool normal) {
    return invalid_argument_message([&] { resolve_filter_mode(p, color, albedo, normal); });
  };
  EXPECT_NE(refusal(rt_params(true), false, true, false).find("hdr is not supported for filtering 'albedo' alone"),
            std::string::npos);
  EXPECT_NE(refusal(rt_params(true), false, false, true).find("'normal' alone"), std::string::npos);
  EXPECT_NE(refusal(rt_params(false, true), false, false, true).find("'normal' alone"), std::string::npos);
  EXPECT_NE(refusal(rt_params(false), false, true, true).find("not both"), std::string::npos);
  EXPECT_NE(refusal(rt_params(false), false, false, false).find("'color'"), std::string::npos);
  EXPECT_NE(refusal(rt_params(false), true, false, true).find("needs an 'albedo'"), std::string::npos);
  EXPECT_NE(refusal(rt_params(true, true), true, false, false).find("hdr and srgb"), std::string::npos);
  FilterParams directional_rt = rt_params(false);
  directional_rt.directional = true;
  EXPECT_NE(refusal(directional_rt, true, false, false).find("RTLightmap"), std::string::npos);
  EXPECT_NE(refusal(lightmap_params(false), true, true, false).find("unset 'albedo'"), std::string::npos);
  EXPECT_NE(refusal(lightmap_params(false), true, false, true).find("unset 'normal'"), std::string::npos);
  EXPECT_NE(refusal(lightmap_params(false), false, false, false).find("'color'"), std::string::npos);
  FilterParams srgb_lightmap = lightmap_params(true);
  srgb_lightmap.srgb = true;
  EXPECT_NE(refusal(srgb_lightmap, true, false, false).find("srgb"), std::string::npos);
}

// The filter refuses them at commit, with the caller's weights too, before any network is built.
TEST(FilterMode, FilterCommitRefusesHdrAlbedoAloneAndLightmapMisuse) {
  Image albedo(19, 11, 3), color(19, 11, 3), output(19, 11, 3);
  Filter hdr_albedo(Device::create("cpu"));
  hdr_albedo.set_image("albedo", test::view_of(albedo));
  hdr_albedo.set_image("output", test::view_of(output));
  hdr_albedo.params().hdr = true;
  hdr_albedo.set_weights_blob(test::random_weights_blob(UNetVariant::small, 3, 1));
  EXPECT_NE(invalid_argument_message([&] { hdr_albedo.commit(); }).find("hdr is not supported"), std::string::npos);

  // RTLightmap without weights: one clear message saying why none can be chosen.
  Filter lightmap(Device::create("cpu"));
  lightmap.params().type = FilterType::rt_lightmap;
  lightmap.set_image("color", test::view_of(color));
  lightmap.set_image("output", test::view_of(output));
  const std::string no_weights = invalid_argument_message([&] { lightmap.commit(); });
  EXPECT_NE(no_weights.find("RTLightmap filter needs user weights"), std::string::npos) << no_weights;
  EXPECT_NE(no_weights.find("\"weights\""), std::string::npos) << no_weights;
  EXPECT_NE(no_weights.find("only inside OIDN's binaries"), std::string::npos) << no_weights;
  EXPECT_NE(invalid_argument_message([&] { lightmap.execute(); }).find("needs user weights"), std::string::npos);

  // ... and with an albedo image, whatever the weights.
  lightmap.set_weights_blob(test::random_weights_blob(UNetVariant::small, 3, 2));
  lightmap.set_image("albedo", test::view_of(albedo));
  EXPECT_NE(invalid_argument_message([&] { lightmap.commit(); }).find("only the 'color' and 'output'"),
            std::string::npos);
  lightmap.unset_image("albedo");
  lightmap.commit();
  lightmap.execute();
  for (float v : output.pixels) ASSERT_TRUE(std::isfinite(v));

  // Weights for colour + albedo on an albedo alone: the message names both sides.
  Filter wrong(Device::create("cpu"));
  wrong.set_image("albedo", test::view_of(albedo));
  wrong.set_image("output", test::view_of(output));
  wrong.set_weights_blob(test::random_weights_blob(UNetVariant::small, 6, 3));
  const std::string channels = invalid_argument_message([&] { wrong.commit(); });
  EXPECT_NE(channels.find("take 6 input channels"), std::string::npos) << channels;
  EXPECT_NE(channels.find("albedo alone"), std::string::npos) << channels;
}

TEST(FilterMode, TileAlignmentAndOverlapAreOidns) {
  EXPECT_EQ(Filter::tile_alignment(), 16);
  Image color(40, 24, 3), output(40, 24, 3);
  Filter filter(Device::create("cpu"));
  EXPECT_EQ(filter.tile_overlap(), 0);  // before a commit
  filter.set_image("color", test::view_of(color));
  filter.set_image("output", test::view_of(output));
  filter.set_weights_blob(test::random_weights_blob(UNetVariant::base, 3, 4));
  filter.commit();
  EXPECT_EQ(filter.tile_overlap(), 96);  // round_up(174 / 2, 16)
  filter.set_weights_blob(test::random_weights_blob(UNetVariant::large, 3, 5));
  filter.commit();
  EXPECT_EQ(filter.tile_overlap(), 112);  // round_up(202 / 2, 16)
}

// Without weights, an auxiliary image alone takes OIDN's prefiltering networks: rt_alb_large for
// high quality, rt_nrm (no small one) for fast.
TEST(FilterMode, AuxiliaryImageAloneChoosesThePrefilteringWeights) {
  const auto dir = test::temp_dir();
  write_tza_file(dir / "rt_alb_large.tza", make_random_unet_weights(UNetVariant::large, 3, 6));
  write_tza_file(dir / "rt_nrm.tza", make_random_unet_weights(UNetVariant::base, 3, 7));
  test::ScopedEnv weights_env("VOLVOX_WEIGHTS", dir.c_str());
  test::ScopedEnv cache_env("XDG_CACHE_HOME", (dir / "no-cache").c_str());
  Image aux(21, 13, 3), output(21, 13, 3);
  for (size_t i = 0; i < aux.pixels.size(); ++i) aux.pixels[i] = 0.1f + 0.002f * float(i % 211);
  Filter albedo(Device::create("cpu"));
  albedo.set_image("albedo", test::view_of(aux));
  albedo.set_image("output", test::view_of(output));
  albedo.params().quality = Quality::high;
  albedo.execute();
  EXPECT_EQ(albedo.describe().rfind("large U-Net, 3 input channels", 0), 0u) << albedo.describe();
  Filter normal(Device::create("cpu"));
  normal.set_image("normal", test::view_of(aux));
  normal.set_image("output", test::view_of(output));
  normal.params().quality = Quality::fast;
  normal.execute();
  EXPECT_EQ(normal.describe().rfind("base U-Net, 3 input channels", 0), 0u) << normal.describe();
  for (float v : output.pixels) ASSERT_TRUE(std::isfinite(v) && v >= -1.0f && v <= 1.0f);
}

// A CPU device that records the network options each commit asks for.
class RecordingDevice final : public Device {
 public:
  std::string name() const override { return cpu_->name(); }
  std::unique_ptr<TileNetwork> make_network(Graph unet_graph, const NetworkOptions& options) override {
    asked.push_back(options);
    return cpu_->make_network(std::move(unet_graph), options);
  }
  std::shared_ptr<const runtime::ComputeDevice> compute_device() const override { return cpu_->compute_device(); }
  std::vector<NetworkOptions> asked;

 private:
  std::shared_ptr<Device> cpu_ = Device::create("cpu");
};

// OIDN's fastMath: quality below HIGH lets the device trade accuracy for speed (Vulkan: fp16
// accumulators); changing the quality makes the network again.
TEST(FilterMode, QualityBelowHighAsksForFastMath) {
  auto device = std::make_shared<RecordingDevice>();
  Image color(19, 11, 3), output(19, 11, 3);
  for (size_t i = 0; i < color.pixels.size(); ++i) color.pixels[i] = 0.2f + 0.003f * float(i % 97);
  Filter filter(device);
  filter.set_image("color", test::view_of(color));
  filter.set_image("output", test::view_of(output));
  filter.set_weights_blob(test::random_weights_blob(UNetVariant::small, 3, 8));
  const std::pair<Quality, bool> steps[] = {{Quality::high, false}, {Quality::balanced, true}, {Quality::fast, true},
                                            {Quality::high, false}};
  for (const auto& [quality, fast_math] : steps) {
    filter.params().quality = quality;
    filter.commit();  // params() changes take effect at the next commit, as OIDN's
    filter.execute();
    ASSERT_FALSE(device->asked.empty());
    EXPECT_EQ(device->asked.back().fast_math, fast_math) << "quality " << int(quality);
  }
  EXPECT_EQ(device->asked.size(), 3u) << "balanced -> fast keeps the network (both fast math)";
}

}  // namespace
}  // namespace vx::denoise

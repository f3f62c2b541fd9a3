// The whole filter on the Vulkan device against the CPU device: every U-Net variant and input-channel
// count with random weights, fp16 against fp32, tiling, profiling, kernel override, device
// selection and the error without a driver (the real weights: every_weight_set_test.cpp). Runs on
// lavapipe in CI (so images stay small), with the Khronos validation layer on when installed: any
// validation message fails the test.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>

#include "backends/vulkan/context.h"
#include "backends/vulkan/kernels/conv3x3.h"
#include "backends/vulkan/pipeline.h"
#include "common/test_util.h"
#include "denoise/denoise_helpers.h"
#include "denoise_vulkan/vulkan_device.h"
#include "formats/image_io.h"

namespace vx {
namespace {

using test::DenoiseInputs;
using test::max_rel_diff;
using test::view_of;

DenoiseInputs smooth_inputs_curved_normals(int w, int h, uint64_t seed) {
  DenoiseInputs in{Image(w, h, 3), Image(w, h, 3), Image(w, h, 3)};
  Tensor noise = test::random_tensor({int64_t(w) * h * 3}, seed, 0.0f, 1.0f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) {
        const size_t i = (size_t(y) * size_t(w) + size_t(x)) * 3 + size_t(c);
        const float base = 0.5f + 0.4f * std::sin(0.09f * float(x + 7 * c)) * std::cos(0.07f * float(y));
        in.color.pixels[i] = base * 2.0f * noise.data<float>()[i];
        in.albedo.pixels[i] = base;
        in.normal.pixels[i] = c == 2 ? 0.8f : (c == 0 ? 0.6f * std::sin(0.1f * float(x)) : 0.0f);
      }
  return in;
}

// Keeps the aux images the weights take (3: color, 6: + albedo, 9: + normal).
DenoiseInputs with_channels(DenoiseInputs in, int input_channels) {
  if (input_channels < 9) in.normal = {};
  if (input_channels < 6) in.albedo = {};
  return in;
}

struct RunOptions {
  bool hdr = false;
  int max_tile = 0;
  std::optional<Precision> precision = Precision::fp32;
  std::string kernels = "auto";
  bool profile = false;
};

Image denoise_on(const std::shared_ptr<denoise::Device>& device, DenoiseInputs& in, std::span<const std::byte> weights,
                 const RunOptions& o, denoise::ExecuteStats* stats = nullptr) {
  Image out(in.color.width, in.color.height, 3);
  denoise::Filter f(device);
  f.set_image("color", view_of(in.color));
  if (!in.albedo.empty()) f.set_image("albedo", view_of(in.albedo));
  if (!in.normal.empty()) f.set_image("normal", view_of(in.normal));
  f.set_image("output", view_of(out));
  f.params().hdr = o.hdr;
  f.params().max_tile_size = o.max_tile;
  f.params().precision = o.precision;
  f.params().kernels = o.kernels;
  f.set_profiling(o.profile);
  f.set_weights_blob(weights);
  f.commit();
  f.execute();
  if (stats) *stats = f.stats();
  return out;
}

Tensor as_tensor(const Image& img) {
  Tensor t(DType::f32, {int64_t(img.pixels.size())});
  std::copy(img.pixels.begin(), img.pixels.end(), t.data<float>());
  return t;
}

double peak_of(const Image& img) {
  double peak = 0;
  for (float v : img.pixels) peak = std::max(peak, double(std::abs(v)));
  return peak;
}

// PSNR = 10 log10(peak^2 / MSE), peak = max |reference| (test::psnr_db).
constexpr double kMinFp16PsnrDb = 55.0;
using test::kFp32Tolerance;

class VulkanDenoise : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (device_ || !skip_reason_.empty()) return;
    try {
      denoise::VulkanDeviceOptions o;
      o.validation = true;
      device_ = denoise::make_vulkan_device("vulkan", o);
      cpu_ = denoise::Device::create("cpu");
    } catch (const Error& e) {
      skip_reason_ = e.what();
    }
  }
  // Before static destruction, when a driver's own globals may already be gone.
  static void TearDownTestSuite() {
    device_.reset();
    cpu_.reset();
  }
  void SetUp() override {
    if (!device_) GTEST_SKIP() << "no Vulkan device: " << skip_reason_;
    seen_messages_ = denoise::vulkan_validation_messages(*device_).size();
  }
  void TearDown() override {
    if (!device_) return;
    auto messages = denoise::vulkan_validation_messages(*device_);
    for (size_t i = seen_messages_; i < messages.size(); ++i) ADD_FAILURE() << "validation: " << messages[i];
  }
  static bool has_fp16() { return denoise::vulkan_fp16_available(*device_); }

  static std::shared_ptr<denoise::Device> device_, cpu_;
  static std::string skip_reason_;
  size_t seen_messages_ = 0;
};
std::shared_ptr<denoise::Device> VulkanDenoise::device_;
std::shared_ptr<denoise::Device> VulkanDenoise::cpu_;
std::string VulkanDenoise::skip_reason_;

TEST_F(VulkanDenoise, DeviceNameAndValidation) {
  EXPECT_EQ(device_->name().rfind("vulkan:", 0), 0u) << device_->name();
  EXPECT_NE(device_->name().find('('), std::string::npos) << device_->name();
  if (!std::filesystem::exists("/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json"))
    GTEST_SKIP() << "vulkan-validationlayers not installed";
  EXPECT_TRUE(denoise::vulkan_validation_enabled(*device_));
}

TEST_F(VulkanDenoise, MatchesCpuForEveryVariantAndChannelCount) {
  const bool fp16 = has_fp16();
  int combo = 0;
  double worst_fp32 = 0, worst_psnr = INFINITY;
  for (UNetVariant variant : {UNetVariant::small, UNetVariant::base, UNetVariant::large})
    for (int ic : {3, 6, 9}) {
      // Alternate an aligned and an odd size (the filter pads odd sizes to multiples of 16).
      const int w = combo % 2 ? 40 : 64, h = combo % 2 ? 33 : 48;
      const bool hdr = combo % 3 != 0;
      SCOPED_TRACE(cat(unet_variant_name(variant), " ic ", ic, " ", w, "x", h, hdr ? " hdr" : " ldr"));
      DenoiseInputs in = with_channels(smooth_inputs_curved_normals(w, h, 10 + uint64_t(combo)), ic);
      const auto weights = test::random_weights_blob(variant, ic, 100 + uint64_t(combo));
      ++combo;
      const Image cpu = denoise_on(cpu_, in, weights, {.hdr = hdr});
      const Image vk32 = denoise_on(device_, in, weights, {.hdr = hdr});
      const double err = max_rel_diff(cpu, vk32);
      worst_fp32 = std::max(worst_fp32, err);
      EXPECT_LE(err, kFp32Tolerance);
      if (!fp16) continue;
      const Image vk16 = denoise_on(device_, in, weights, {.hdr = hdr, .precision = Precision::fp16});
      ASSERT_GT(peak_of(vk32), 1e-3) << "degenerate reference output";
      const double psnr = test::psnr_db(as_tensor(vk32), as_tensor(vk16));
      worst_psnr = std::min(worst_psnr, psnr);
      EXPECT_GE(psnr, kMinFp16PsnrDb);
    }
  std::printf("worst fp32 error vs cpu %.3g, lowest fp16 PSNR vs fp32 %.1f dB\n", worst_fp32, worst_psnr);
  if (!fp16) GTEST_SKIP() << "fp32 checked; the device has no fp16, so fp16 was not";
}

TEST_F(VulkanDenoise, TiledEqualsUntiled) {
  DenoiseInputs in = with_channels(smooth_inputs_curved_normals(250, 150, 21), 3);
  const auto weights = test::random_weights_blob(UNetVariant::small, 3, 22);
  denoise::ExecuteStats tiled_stats;
  const Image untiled = denoise_on(device_, in, weights, {.hdr = true});
  const Image tiled = denoise_on(device_, in, weights, {.hdr = true, .max_tile = 224}, &tiled_stats);
  EXPECT_GT(tiled_stats.tiles, 1);
  EXPECT_LE(max_rel_diff(untiled, tiled), 1e-5);
}

// OIDN's sanitising (issue 10): Inf and NaN input pixels count as 0, so the output is finite and
// equals the output for the same image with those pixels zeroed, on the device as on the CPU.
TEST_F(VulkanDenoise, NonFiniteInputsBecomeZero) {
  DenoiseInputs in = with_channels(smooth_inputs_curved_normals(37, 21, 41), 9);
  DenoiseInputs zeroed = in;
  const float bad[] = {INFINITY, -INFINITY, NAN};
  for (size_t i = 0; i < in.color.pixels.size(); i += 29) {
    in.color.pixels[i] = bad[i % 3];
    in.albedo.pixels[i] = bad[(i + 1) % 3];
    in.normal.pixels[i] = bad[(i + 2) % 3];
    zeroed.color.pixels[i] = zeroed.albedo.pixels[i] = zeroed.normal.pixels[i] = 0.0f;
  }
  const auto weights = test::random_weights_blob(UNetVariant::small, 9, 42);
  for (bool hdr : {true, false}) {
    const Image out = denoise_on(device_, in, weights, {.hdr = hdr});
    const Image want = denoise_on(cpu_, zeroed, weights, {.hdr = hdr});
    for (float v : out.pixels) ASSERT_TRUE(std::isfinite(v)) << "hdr " << hdr;
    EXPECT_LE(max_rel_diff(want, out), kFp32Tolerance) << "hdr " << hdr;
  }
}

TEST_F(VulkanDenoise, KernelOverrideOfAnUnknownLayerIsAnError) {
  DenoiseInputs in = with_channels(smooth_inputs_curved_normals(32, 32, 43), 3);
  const auto weights = test::random_weights_blob(UNetVariant::small, 3, 44);
  try {
    denoise_on(device_, in, weights, {.hdr = true, .kernels = "auto,enc_conv_typo=direct"});
    FAIL() << "an override of a layer the network lacks was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("enc_conv_typo"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(layers: "), std::string::npos) << e.what();  // the layers it has
  }
}

TEST_F(VulkanDenoise, ProfileNamesEveryLayerWithItsKernel) {
  DenoiseInputs in = with_channels(smooth_inputs_curved_normals(64, 48, 31), 6);
  const auto weights = test::random_weights_blob(UNetVariant::small, 6, 32);
  denoise::ExecuteStats auto_stats, direct_stats;
  const Image automatic = denoise_on(device_, in, weights, {.profile = true}, &auto_stats);
  const Image direct = denoise_on(device_, in, weights, {.kernels = "direct", .profile = true}, &direct_stats);
  // The fused U-Net: 5 encoder convs with pooling... every conv is one vx.FusedConv layer.
  ASSERT_FALSE(auto_stats.layers.empty());
  ASSERT_EQ(auto_stats.layers.size(), direct_stats.layers.size());
  double total = 0;
  for (size_t i = 0; i < auto_stats.layers.size(); ++i) {
    const auto& l = auto_stats.layers[i];
    EXPECT_EQ(l.op, "vx.FusedConv");
    EXPECT_FALSE(l.name.empty());
    // A variant the kernels know (auto picks coopmat_* variants on tensor-core devices).
    EXPECT_NO_THROW(vk::parse_variant(l.variant)) << l.variant;
    EXPECT_GE(l.ms, 0.0);
    total += l.ms;
    EXPECT_EQ(direct_stats.layers[i].name, l.name);
    EXPECT_EQ(direct_stats.layers[i].variant, "direct");
  }
  EXPECT_GT(total, 0.0) << "no GPU time recorded";
  // The device work end to end (input and output processing around the network) by the same
  // clock: it holds the network's time and fits in the whole execute() with its host copies.
  EXPECT_GE(auto_stats.ms_device, auto_stats.ms_network);
  EXPECT_GT(auto_stats.ms_network, 0.0);
  EXPECT_LE(auto_stats.ms_device, auto_stats.ms_total);
  EXPECT_LE(max_rel_diff(direct, automatic), kFp32Tolerance);
  EXPECT_GT(auto_stats.arena_bytes, 0u);
  EXPECT_GT(auto_stats.sum_activation_bytes, auto_stats.arena_bytes);
  try {
    denoise_on(device_, in, weights, {.kernels = "fastest"});
    FAIL() << "a bad kernel name must be rejected";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
  }
}

TEST_F(VulkanDenoise, AutoPicksVulkanOnlyForADiscreteGpu) {
  bool discrete = false;
  for (const auto& d : vk::VulkanContext::list_devices()) discrete = discrete || d.type == "discrete";
  const auto chosen = denoise::Device::create("auto");
  if (discrete) EXPECT_EQ(chosen->name().rfind("vulkan:", 0), 0u) << chosen->name();
  else EXPECT_EQ(chosen->name(), "cpu");
}

using test::ScopedEnv;

TEST(VulkanDenoiseNoDriver, CreateGivesAClearUnsupportedError) {
  ScopedEnv driver("VK_DRIVER_FILES", "/nonexistent/volvox_no_driver.json");
  ScopedEnv icd("VK_ICD_FILENAMES", "/nonexistent/volvox_no_driver.json");
  try {
    denoise::Device::create("vulkan");
    FAIL() << "a Vulkan device without a driver";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported) << e.what();
    EXPECT_NE(std::string(e.what()).find("ulkan"), std::string::npos) << e.what();
  }
  // auto falls back to the CPU.
  EXPECT_EQ(denoise::Device::create("auto")->name(), "cpu");
}

}  // namespace
}  // namespace vx

namespace vx {
namespace {

// Creates a context with its pipeline cache in `dir`, builds one pipeline, and returns how many
// bytes of cache it loaded from disk at creation. Skips (returns -1) without a Vulkan device.
long cached_context_run(const std::filesystem::path& dir, std::string* path = nullptr) {
  vk::ContextOptions o;
  o.pipeline_cache_dir = dir.string();
  vk::VulkanContext ctx(o);
  EXPECT_NE(ctx.pipeline_cache(), VK_NULL_HANDLE);
  vk::KernelLayout layout(ctx);
  std::string shader;  // any fp32 kernel runs everywhere (coopmat and fp16 ones need features)
  for (std::string_view name : vk::embedded_shader_names())
    if (name.find("coopmat") == std::string_view::npos && name.find("f16") == std::string_view::npos) {
      shader = std::string(name);
      break;
    }
  vk::ComputePipeline pipeline(ctx, layout, shader);
  if (path) *path = ctx.pipeline_cache_path();
  return long(ctx.pipeline_cache_loaded_bytes());
}

bool have_vulkan(std::string* why) {
  try {
    return !vk::VulkanContext::list_devices().empty();
  } catch (const Error& e) {
    *why = e.what();
    return false;
  }
}

TEST(VulkanPipelineCache, SecondContextLoadsTheSavedCache) {
  std::string why;
  if (!have_vulkan(&why)) GTEST_SKIP() << "no Vulkan device: " << why;
  const auto dir = test::temp_dir() / "pipelines";
  std::string path;
  EXPECT_EQ(cached_context_run(dir, &path), 0);  // nothing on disk yet
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  const auto saved = std::filesystem::file_size(path);
  EXPECT_GT(saved, 0u);
  EXPECT_EQ(cached_context_run(dir), long(saved));
  // No temporary files left behind by the atomic write.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files += entry.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST(VulkanPipelineCache, CorruptOrForeignFileIsIgnored) {
  std::string why;
  if (!have_vulkan(&why)) GTEST_SKIP() << "no Vulkan device: " << why;
  const auto dir = test::temp_dir() / "pipelines_bad";
  std::string path;
  cached_context_run(dir, &path);
  // Garbage of the right size, then a header of another device: both ignored, both rewritten.
  std::vector<char> data = [&] {
    std::ifstream in(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }();
  ASSERT_GE(data.size(), sizeof(VkPipelineCacheHeaderVersionOne));
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << "definitely not a pipeline cache, but long enough to have a header";
  }
  EXPECT_EQ(cached_context_run(dir), 0);
  data[16] ^= 0x5a;  // inside pipelineCacheUUID
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(data.data(), std::streamsize(data.size()));
  }
  EXPECT_EQ(cached_context_run(dir), 0);
  EXPECT_GT(cached_context_run(dir), 0);  // the last two runs wrote a valid file again
}

TEST(VulkanPipelineCache, DefaultFolderFollowsXdgCacheHome) {
  std::string why;
  if (!have_vulkan(&why)) GTEST_SKIP() << "no Vulkan device: " << why;
  const auto xdg = test::temp_dir() / "xdg";
  ScopedEnv env("XDG_CACHE_HOME", xdg.c_str());
  std::string path;
  cached_context_run("", &path);
  EXPECT_EQ(path.rfind((xdg / "volvox" / "pipelines").string(), 0), 0u) << path;
  EXPECT_TRUE(std::filesystem::exists(path)) << path;
}

}  // namespace
}  // namespace vx

namespace vx {
namespace {

TEST(VulkanDenoiseCli, ProfilePrintsEveryLayerWithKernelAndGpuTime) {
  std::string why;
  if (!have_vulkan(&why)) GTEST_SKIP() << "no Vulkan device: " << why;
  const auto dir = test::temp_dir();
  DenoiseInputs in = with_channels(smooth_inputs_curved_normals(40, 24, 41), 3);
  write_image(dir / "c.pfm", in.color);
  write_tza_file(dir / "w.tza", make_random_unet_weights(UNetVariant::small, 3, 42));
  const std::string cmd = test::cli_path() + " denoise --weights " + (dir / "w.tza").string() + " --color " +
                          (dir / "c.pfm").string() + " -o " + (dir / "out.pfm").string() +
                          " --hdr --device vulkan --precision fp32 --kernel direct --profile 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  const int status = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  // One line per fused conv: name, op, kernel, ms; the small U-Net has 16 convs.
  int rows = 0;
  double total_ms = 0;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    char name[64], op[64], kernel[64];
    double ms = -1;
    if (std::sscanf(line.c_str(), "%63s %63s %63s %lf", name, op, kernel, &ms) == 4 &&
        std::string(op) == "vx.FusedConv") {
      ++rows;
      EXPECT_STREQ(kernel, "direct") << line;
      EXPECT_GE(ms, 0.0) << line;
      total_ms += ms;
    }
  }
  EXPECT_EQ(rows, 16) << out;
  EXPECT_GT(total_ms, 0.0) << out;
  EXPECT_NE(out.find("on vulkan:"), std::string::npos) << out;
  // The same denoising through the library on the CPU.
  const Image cli = read_image(dir / "out.pfm");
  const Image cpu = test::denoise_cpu(in, write_tza(make_random_unet_weights(UNetVariant::small, 3, 42)), true);
  EXPECT_LE(max_rel_diff(cpu, cli), kFp32Tolerance);
}

}  // namespace
}  // namespace vx

// Prefiltering (an albedo or normal image alone) and lightmaps (RTLightmap: HDR with the log curve
// and autoexposure, directional with signed values) on the Vulkan device's whole-image path
// against the CPU filter, at an odd size: host images (f32, and f16 with an alpha channel) and
// images in the device's own buffers (which the host path cannot take, so the processing provably
// runs on the device), fp32 and fp16. OIDN's rt_alb / rt_nrm weights where installed, random
// U-Nets otherwise (and always for lightmaps: OIDN's lightmap weights are not published).
// Validation layer on: any message fails the test.
// Tolerances: fp32 max_rel_diff <= kFp32Tolerance (1e-4) against the CPU; device buffers against
// host images on the same device <= 1e-6; fp16 PSNR >= 55 dB against fp32 (peak: max |fp32|).
#include <cmath>
#include <random>

#include "common/test_util.h"
#include "denoise/denoise_helpers.h"
#include "denoise_vulkan/vulkan_device.h"
#include "runtime/device.h"

namespace vx {
namespace {

using denoise::FilterParams;
using denoise::FilterType;
using test::kFp32Tolerance;
using test::max_rel_diff;

constexpr int kOddWidth = 37, kOddHeight = 29;
constexpr double kPrefilterFp16PsnrDb = 55.0;

// A noisy image of the kind each input holds: albedo in [0, 1], unit normals in [-1, 1], HDR
// lightmap irradiance up to ~20, directional lightmap coefficients in [-1, 1].
enum class Content { albedo, normal, hdr_lightmap, directional };

Image noisy_image(Content content, uint64_t seed) {
  Image img(kOddWidth, kOddHeight, 3);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> noise(0.0f, 0.15f);
  for (int y = 0; y < kOddHeight; ++y)
    for (int x = 0; x < kOddWidth; ++x) {
      float* px = &img.pixels[(size_t(y) * kOddWidth + size_t(x)) * 3];
      const float u = 0.5f + 0.4f * std::sin(0.17f * float(x)) * std::cos(0.11f * float(y));
      if (content == Content::normal) {
        float n[3] = {std::sin(0.2f * float(x)), std::cos(0.15f * float(y)), 0.7f};
        for (float& v : n) v += noise(rng);
        const float len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) + 1e-6f;
        for (int c = 0; c < 3; ++c) px[c] = n[c] / len;
      } else {
        for (int c = 0; c < 3; ++c) {
          const float v = u * (0.6f + 0.2f * float(c)) + noise(rng);
          px[c] = content == Content::albedo         ? std::clamp(v, 0.0f, 1.0f)
                  : content == Content::hdr_lightmap ? std::max(0.0f, 20.0f * v * v)
                                                     : std::clamp(2.0f * v - 1.0f, -1.0f, 1.0f);
        }
      }
    }
  return img;
}

Tensor pixels_tensor(const Image& img) {
  Tensor t(DType::f32, {int64_t(img.pixels.size())});
  std::copy(img.pixels.begin(), img.pixels.end(), t.data<float>());
  return t;
}

class PrefilterVulkan : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (device_ || !skip_.empty()) return;
    try {
      denoise::VulkanDeviceOptions o;
      o.validation = true;
      device_ = denoise::make_vulkan_device("vulkan", o);
      cpu_ = denoise::Device::create("cpu");
    } catch (const Error& e) {
      skip_ = e.what();
    }
  }
  static void TearDownTestSuite() {
    device_.reset();
    cpu_.reset();
  }
  void SetUp() override {
    if (!device_) GTEST_SKIP() << "no Vulkan device: " << skip_;
    seen_ = denoise::vulkan_validation_messages(*device_).size();
  }
  void TearDown() override {
    if (!device_) return;
    auto m = denoise::vulkan_validation_messages(*device_);
    for (size_t i = seen_; i < m.size(); ++i) ADD_FAILURE() << "validation: " << m[i];
  }

  // `input` ("color", "albedo" or "normal") denoised alone into a 3-channel output.
  static Image run(const std::shared_ptr<denoise::Device>& device, const char* input_name, Image& input,
                   std::span<const std::byte> weights, FilterParams params, float* input_scale = nullptr) {
    Image out(input.width, input.height, 3);
    denoise::Filter f(device);
    f.set_image(input_name, test::view_of(input));
    f.set_image("output", test::view_of(out));
    f.params() = params;
    f.set_weights_blob(weights);
    f.execute();
    if (input_scale) *input_scale = f.stats().input_scale;
    return out;
  }

  // The same with the input and output in buffers of the device's own memory.
  static Image run_on_device_buffers(const char* input_name, const Image& input, std::span<const std::byte> weights,
                                     FilterParams params) {
    auto compute = device_->compute_device();
    const uint64_t bytes = input.pixels.size() * sizeof(float);
    auto in = compute->make_buffer(bytes, runtime::BufferStorage::device);
    auto out = compute->make_buffer(bytes, runtime::BufferStorage::managed);
    in->write(0, bytes, input.pixels.data());
    denoise::ImageView layout;
    layout.width = input.width;
    layout.height = input.height;
    denoise::Filter f(device_);
    f.set_device_image(input_name, layout, {in->native_handle(), 0});
    f.set_device_image("output", layout, {out->native_handle(), 0});
    f.params() = params;
    f.set_weights_blob(weights);
    f.execute();
    Image result(input.width, input.height, 3);
    out->read(0, bytes, result.pixels.data());
    return result;
  }

  // CPU fp32 against Vulkan fp32 (host images and device buffers) and fp16 (against Vulkan fp32).
  static void expect_matches_cpu(const char* input_name, Image& input, std::span<const std::byte> weights,
                                 FilterParams params) {
    params.precision = std::nullopt;
    float cpu_scale = 0, vk_scale = 0;
    const Image cpu = run(cpu_, input_name, input, weights, params, &cpu_scale);
    params.precision = Precision::fp32;
    const Image vk32 = run(device_, input_name, input, weights, params, &vk_scale);
    for (float v : vk32.pixels) ASSERT_TRUE(std::isfinite(v));
    EXPECT_NEAR(vk_scale, cpu_scale, 1e-5 * cpu_scale);
    const double err = max_rel_diff(cpu, vk32);
    EXPECT_LE(err, kFp32Tolerance);
    const Image on_device = run_on_device_buffers(input_name, input, weights, params);
    EXPECT_LE(max_rel_diff(vk32, on_device), 1e-6);
    double psnr = INFINITY;
    if (denoise::vulkan_fp16_available(*device_)) {
      params.precision = Precision::fp16;
      const Image vk16 = run(device_, input_name, input, weights, params);
      psnr = test::psnr_db(pixels_tensor(vk32), pixels_tensor(vk16));
      EXPECT_GE(psnr, kPrefilterFp16PsnrDb);
      EXPECT_LE(max_rel_diff(vk16, run_on_device_buffers(input_name, input, weights, params)), 1e-6);
    }
    std::printf("%s: fp32 max error vs cpu %.3g, fp16 PSNR vs fp32 %.1f dB\n", input_name, err, psnr);
  }

  static std::shared_ptr<denoise::Device> device_, cpu_;
  static std::string skip_;
  size_t seen_ = 0;
};
std::shared_ptr<denoise::Device> PrefilterVulkan::device_, PrefilterVulkan::cpu_;
std::string PrefilterVulkan::skip_;

TEST_F(PrefilterVulkan, AuxiliaryImageAloneMatchesCpuWithRandomWeights) {
  Image albedo = noisy_image(Content::albedo, 1), normal = noisy_image(Content::normal, 2);
  expect_matches_cpu("albedo", albedo, test::random_weights_blob(UNetVariant::small, 3, 11), {});
  FilterParams srgb;  // albedo that is sRGB-encoded already: no curve
  srgb.srgb = true;
  srgb.input_scale = 0.8f;  // the main input takes the caller's scale
  expect_matches_cpu("albedo", albedo, test::random_weights_blob(UNetVariant::small, 3, 12), srgb);
  expect_matches_cpu("normal", normal, test::random_weights_blob(UNetVariant::small, 3, 13), {});
}

TEST_F(PrefilterVulkan, RealPrefilterWeightsMatchCpu) {
  int ran = 0;
  std::vector<std::string> absent;
  for (const char* name : {"rt_alb", "rt_nrm"}) {
    SCOPED_TRACE(name);
    const auto file = test::real_weights_file(name);
    if (!file) {
      absent.push_back(std::string(name) + ".tza");
      continue;
    }
    const bool is_albedo = std::string(name) == "rt_alb";
    Image aux = noisy_image(is_albedo ? Content::albedo : Content::normal, 3);
    expect_matches_cpu(is_albedo ? "albedo" : "normal", aux, test::read_bytes(*file), {});
    ++ran;
  }
  if (!absent.empty())
    GTEST_SKIP() << "not installed (../shared/weights, $VOLVOX_WEIGHTS or the cache): " << test::comma_joined(absent)
                 << "; " << ran << " compared";
}

TEST_F(PrefilterVulkan, LightmapsMatchCpuWithARandomThreeChannelUNet) {
  const auto weights = test::random_weights_blob(UNetVariant::small, 3, 21);
  Image hdr = noisy_image(Content::hdr_lightmap, 4), directional = noisy_image(Content::directional, 5);
  FilterParams lightmap;
  lightmap.type = FilterType::rt_lightmap;
  expect_matches_cpu("color", hdr, weights, lightmap);  // autoexposure, log curve
  lightmap.input_scale = 0.05f;
  expect_matches_cpu("color", hdr, weights, lightmap);  // the caller's scale
  FilterParams dir;
  dir.type = FilterType::rt_lightmap;
  dir.directional = true;
  expect_matches_cpu("color", directional, weights, dir);  // signed, linear
}

// A 1-channel f16 normal with an alpha channel, into a 2-channel f16 output: the strided loads and
// stores of the device processing with the signed range.
TEST_F(PrefilterVulkan, NormalAloneFromStridedHalfImages) {
  const auto weights = test::random_weights_blob(UNetVariant::small, 3, 31);
  Image normal = noisy_image(Content::normal, 6);
  const int W = kOddWidth, H = kOddHeight;
  std::vector<uint16_t> in_half(size_t(W) * H * 2), out_half(size_t(W) * H * 3, 0x7bff);
  denoise::ImageView in_view;
  in_view.data = in_half.data();
  in_view.type = denoise::PixelType::f16;
  in_view.channels = 1;
  in_view.width = W;
  in_view.height = H;
  in_view.pixel_stride = 4;  // value and alpha
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) in_view.store(x, y, 0, normal.pixels[(size_t(y) * W + size_t(x)) * 3]);
  Image in_f32(W, H, 1);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) in_f32.pixels[size_t(y) * W + size_t(x)] = in_view.load(x, y, 0);
  denoise::ImageView out_view = in_view;
  out_view.data = out_half.data();
  out_view.channels = 2;
  out_view.pixel_stride = 6;  // two values and a spare half

  Image cpu_out(W, H, 2);
  denoise::Filter cf(cpu_);
  cf.set_image("normal", test::view_of(in_f32));
  cf.set_image("output", test::view_of(cpu_out));
  cf.set_weights_blob(weights);
  cf.execute();
  denoise::Filter vf(device_);
  vf.params().precision = Precision::fp32;
  vf.set_image("normal", in_view);
  vf.set_image("output", out_view);
  vf.set_weights_blob(weights);
  vf.execute();
  double worst = 0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      for (int c = 0; c < 2; ++c) {
        const float want = cpu_out.pixels[(size_t(y) * W + size_t(x)) * 2 + size_t(c)], got = out_view.load(x, y, c);
        ASSERT_GE(got, -1.0f);
        ASSERT_LE(got, 1.0f);
        worst = std::max(worst, double(std::abs(got - want)));
      }
      ASSERT_EQ(out_half[(size_t(y) * W + size_t(x)) * 3 + 2], 0x7bff) << "the spare half was written";
    }
  EXPECT_LE(worst, 1e-3);  // one half-precision rounding of values in [-1, 1]
}

}  // namespace
}  // namespace vx

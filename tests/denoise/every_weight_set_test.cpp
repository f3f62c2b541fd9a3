// Every OIDN RT weight set that is installed (the 21 of weights_store.h, looked for in
// ../shared/weights, $VOLVOX_WEIGHTS and the cache) x device x precision: the CPU at fp32 (the
// reference), Vulkan at fp32 and at fp16 (where the device has it), at a small odd size, with the
// inputs each network takes (color, + albedo, + normal; the prefiltering networks an albedo or
// normal image alone). Every output must be finite; Vulkan fp32 must match the CPU within
// max_rel_diff <= 1e-4 (|a - b| / max(1, |a|): absolute for values up to 1, relative above, as HDR
// outputs reach ~10), Vulkan fp16 must reach a PSNR of 55 dB against the CPU (peak: max |cpu|).
// The files not installed are listed. Validation layer on: any message fails the test.
#include <cmath>

#include "common/test_util.h"
#include "denoise/denoise_helpers.h"
#include "denoise/weights_store.h"
#include "denoise_vulkan/vulkan_device.h"

namespace vx {
namespace {

constexpr int kSetWidth = 37, kSetHeight = 29;  // one 48x32 tile: the large networks stay quick on lavapipe
constexpr double kSetFp16PsnrDb = 55.0;

// The inputs of weight set `name` (its images and parameters), from smooth noisy renders.
struct SetInputs {
  Image color, albedo, normal;
  denoise::FilterParams params;
};

SetInputs inputs_for(const denoise::KnownWeights& w) {
  SetInputs in;
  const bool albedo_alone = w.name.rfind("rt_alb", 0) == 0, normal_alone = w.name.rfind("rt_nrm", 0) == 0;
  in.params.hdr = w.name.rfind("rt_hdr", 0) == 0;
  in.params.clean_aux = w.name.find("_calb_cnrm") != std::string::npos;
  const Tensor noise = test::random_tensor({int64_t(kSetWidth) * kSetHeight * 3}, 77, -0.2f, 0.2f);
  Image color(kSetWidth, kSetHeight, 3), albedo(kSetWidth, kSetHeight, 3), normal(kSetWidth, kSetHeight, 3);
  for (int y = 0; y < kSetHeight; ++y)
    for (int x = 0; x < kSetWidth; ++x)
      for (int c = 0; c < 3; ++c) {
        const size_t i = (size_t(y) * kSetWidth + size_t(x)) * 3 + size_t(c);
        const float base = 0.5f + 0.4f * std::sin(0.13f * float(x + 5 * c)) * std::cos(0.09f * float(y));
        const float n = noise.data<float>()[i];
        color.pixels[i] = std::max(0.0f, (base + 2.0f * n) * (in.params.hdr ? 4.0f : 1.0f));
        albedo.pixels[i] = std::clamp(base + (albedo_alone ? n : 0.0f), 0.0f, 1.0f);
        const float clean_normal = c == 2 ? 0.8f : 0.5f * std::sin(0.1f * float(x + y));
        normal.pixels[i] = std::clamp(clean_normal + (normal_alone ? n : 0.0f), -1.0f, 1.0f);
      }
  if (albedo_alone) in.albedo = std::move(albedo);
  else if (normal_alone) in.normal = std::move(normal);
  else {
    in.color = std::move(color);
    if (w.input_channels >= 6) in.albedo = std::move(albedo);
    if (w.input_channels >= 9) in.normal = std::move(normal);
  }
  return in;
}

Image run_set(const std::shared_ptr<denoise::Device>& device, SetInputs& in, std::span<const std::byte> weights,
              std::optional<Precision> precision) {
  Image out(kSetWidth, kSetHeight, 3);
  denoise::Filter f(device);
  if (!in.color.empty()) f.set_image("color", test::view_of(in.color));
  if (!in.albedo.empty()) f.set_image("albedo", test::view_of(in.albedo));
  if (!in.normal.empty()) f.set_image("normal", test::view_of(in.normal));
  f.set_image("output", test::view_of(out));
  f.params() = in.params;
  f.params().precision = precision;
  f.set_weights_blob(weights);
  f.execute();
  return out;
}

Tensor set_pixels(const Image& img) {
  Tensor t(DType::f32, {int64_t(img.pixels.size())});
  std::copy(img.pixels.begin(), img.pixels.end(), t.data<float>());
  return t;
}

TEST(EveryWeightSet, OnEveryDeviceAndPrecisionMatchesCpuFp32) {
  std::shared_ptr<denoise::Device> vulkan;
  std::string no_vulkan;
  try {
    denoise::VulkanDeviceOptions o;
    o.validation = true;
    vulkan = denoise::make_vulkan_device("vulkan", o);
  } catch (const Error& e) {
    no_vulkan = e.what();
  }
  const auto cpu = denoise::Device::create("cpu");
  const bool fp16 = vulkan && denoise::vulkan_fp16_available(*vulkan);
  const size_t seen = vulkan ? denoise::vulkan_validation_messages(*vulkan).size() : 0;
  std::vector<std::string> absent;
  int ran = 0;
  double worst_fp32 = 0, worst_psnr = INFINITY;
  for (const denoise::KnownWeights& w : denoise::known_weights()) {
    SCOPED_TRACE(w.name);
    const auto file = test::real_weights_file(w.name);
    if (!file) {
      absent.push_back(w.name + ".tza");
      continue;
    }
    const auto weights = test::read_bytes(*file);
    SetInputs in = inputs_for(w);
    const Image reference = run_set(cpu, in, weights, Precision::fp32);
    for (float v : reference.pixels) ASSERT_TRUE(std::isfinite(v)) << "cpu fp32";
    ++ran;
    if (!vulkan) continue;
    const Image vk32 = run_set(vulkan, in, weights, Precision::fp32);
    for (float v : vk32.pixels) ASSERT_TRUE(std::isfinite(v)) << "vulkan fp32";
    const double err = test::max_rel_diff(reference, vk32);
    worst_fp32 = std::max(worst_fp32, err);
    EXPECT_LE(err, test::kFp32Tolerance) << "vulkan fp32";
    double psnr = INFINITY;
    if (fp16) {
      const Image vk16 = run_set(vulkan, in, weights, Precision::fp16);
      for (float v : vk16.pixels) ASSERT_TRUE(std::isfinite(v)) << "vulkan fp16";
      psnr = test::psnr_db(set_pixels(reference), set_pixels(vk16));
      worst_psnr = std::min(worst_psnr, psnr);
      EXPECT_GE(psnr, kSetFp16PsnrDb) << "vulkan fp16";
    }
    std::printf("%-24s vulkan fp32 max error %.3g, fp16 PSNR %.1f dB\n", w.name.c_str(), err, psnr);
  }
  if (vulkan) {
    auto messages = denoise::vulkan_validation_messages(*vulkan);
    for (size_t i = seen; i < messages.size(); ++i) ADD_FAILURE() << "validation: " << messages[i];
  }
  std::printf("weight sets: %d of %zu compared (worst vulkan fp32 error %.3g, lowest fp16 PSNR %.1f dB); not "
              "installed: %s\n",
              ran, denoise::known_weights().size(), worst_fp32, worst_psnr,
              absent.empty() ? "none" : test::comma_joined(absent).c_str());
  if (test::shared_dir()) {
    EXPECT_GE(ran, 3) << "../shared/weights holds rt_ldr, rt_ldr_alb_nrm and rt_hdr_alb_nrm";
  }
  if (ran == 0) GTEST_SKIP() << "no OIDN weights installed: " << test::comma_joined(absent);
  if (!vulkan) GTEST_SKIP() << "CPU checked; no Vulkan device: " << no_vulkan;
  if (!fp16) GTEST_SKIP() << "fp32 checked; the Vulkan device has no fp16";
}

}  // namespace
}  // namespace vx

// Denoising quality with OIDN's real weights (../shared/weights): on a sample scene rendered at
// 4 spp, each weight file must raise the PSNR against the converged reference by >= 10 dB; on the
// real 1024x1024 render in ../shared/images the output must be finite and in range.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "common/test_util.h"
#include "denoise/denoise_helpers.h"
#include "denoise/image_metrics.h"
#include "formats/image_io.h"
#include "samples/path_tracer.h"

namespace vx {
namespace {


// The reference is the average of two independent renders A and B. Its own remaining noise adds
// var = MSE(A, B) / 4 to any measured MSE (display-encoded, to first order), so the MSE against
// the converged image is estimated as MSE(x, reference) - MSE(A, B) / 4.
struct SampleScene {
  samples::RenderOutput noisy;
  Image reference;
  Image reference_a, reference_b;
};

constexpr int kReferenceSpp = 256;  // per half: 512 in all

// Renders once per build: ctest runs every test in its own process, so the renders are cached as
// PFM files in the build folder under a lock (delete build/*/test-cache after changing the path
// tracer: the cache is keyed by the render settings only).
samples::RenderOutput render_cached(const samples::RenderSettings& s) {
  const std::filesystem::path dir = std::filesystem::path(VOLVOX_BINARY_DIR) / "test-cache";
  auto path = [&](const char* channel) {
    return dir / cat(s.scene, "_", s.width, "x", s.height, "_", s.spp, "spp_seed", s.seed, "_", channel, ".pfm");
  };
  std::filesystem::create_directories(dir);
  // Parallel test processes wait for the one rendering instead of rendering too.
  const int lock = open((dir / "render.lock").c_str(), O_CREAT | O_RDWR, 0644);
  if (lock >= 0) flock(lock, LOCK_EX);
  struct Unlock {
    int fd;
    ~Unlock() {
      if (fd >= 0) close(fd);  // closing releases the lock
    }
  } unlock{lock};
  if (std::filesystem::exists(path("normal")))
    return {read_image(path("color")), read_image(path("albedo")), read_image(path("normal"))};
  samples::RenderOutput out = samples::render_scene(s);
  for (auto [channel, img] : {std::pair{"color", &out.color}, {"albedo", &out.albedo}, {"normal", &out.normal}}) {
    std::filesystem::path tmp = path(channel);
    tmp.replace_extension(cat(getpid(), ".tmp.pfm"));
    write_image(tmp, *img);
    std::filesystem::rename(tmp, path(channel));  // "normal" last: its presence means all are there
  }
  return out;
}

const SampleScene& sample_scene() {
  static const SampleScene scene = [] {
    samples::RenderSettings s;
    // The interior: a room lit only by a lamp hidden on top of a cabinet, shining at the ceiling,
    // so nearly all light is indirect (the case denoisers are for). On the Cornell-like "room",
    // lit directly by its ceiling light, the LDR networks gain 7 to 9 dB at 4 spp, 11 here.
    s.scene = "interior";
    s.width = 256;
    s.height = 256;
    s.spp = 4;
    s.seed = 11;
    SampleScene out;
    out.noisy = render_cached(s);
    s.spp = kReferenceSpp;
    s.seed = 12;
    out.reference_a = render_cached(s).color;
    s.seed = 13;
    out.reference_b = render_cached(s).color;
    out.reference = out.reference_a;
    for (size_t i = 0; i < out.reference.pixels.size(); ++i)
      out.reference.pixels[i] = 0.5f * (out.reference_a.pixels[i] + out.reference_b.pixels[i]);
    return out;
  }();
  return scene;
}

// PSNR against the converged image: the reference's own noise variance removed from the MSE.
double converged_psnr(const Image& reference, const Image& a, const Image& b, const Image& test) {
  const double mse = denoise::display_mse(reference, test) - denoise::display_mse(a, b) / 4;
  return -10.0 * std::log10(std::max(mse, 1e-12));
}

// LDR versions of the scene: what an LDR renderer hands over, linear and clamped to [0, 1], exposed
// so that the 99th percentile of the converged image's brightest channel sits at 1 (only the lights
// and their highlights clip; the usual "expose for the highlights" rule).
float ldr_exposure(const Image& reference) {
  std::vector<float> brightest;
  for (int y = 0; y < reference.height; ++y)
    for (int x = 0; x < reference.width; ++x) {
      float m = 0;
      for (int c = 0; c < reference.channels; ++c) m = std::max(m, reference.at(x, y, c));
      brightest.push_back(m);
    }
  auto p99 = brightest.begin() + ptrdiff_t(brightest.size() * 99 / 100);
  std::nth_element(brightest.begin(), p99, brightest.end());
  return *p99 > 0 ? 1.0f / *p99 : 1.0f;
}
Image ldr(Image img, float exposure) {
  for (float& v : img.pixels) v = std::clamp(v * exposure, 0.0f, 1.0f);
  return img;
}
Image exposed(Image img, float exposure) {
  for (float& v : img.pixels) v *= exposure;
  return img;
}

struct QualityCase {
  const char* weights;
  bool hdr, albedo, normal;
  double min_gain_db;
};

class Quality : public ::testing::TestWithParam<QualityCase> {};

TEST_P(Quality, RaisesPsnr) {
  VX_REQUIRE_SHARED(shared);
  const QualityCase& q = GetParam();
  const SampleScene& scene = sample_scene();
  test::DenoiseInputs in;
  const float e = q.hdr ? 1.0f : ldr_exposure(scene.reference);
  in.color = q.hdr ? scene.noisy.color : ldr(scene.noisy.color, e);
  if (q.albedo) in.albedo = scene.noisy.albedo;
  if (q.normal) in.normal = scene.noisy.normal;
  // display_encode clamps to [0, 1], so the exposed HDR references serve the LDR cases too.
  const Image reference = exposed(scene.reference, e), a = exposed(scene.reference_a, e),
              b = exposed(scene.reference_b, e);
  const Image denoised = test::denoise_cpu(in, test::read_bytes(shared / "weights" / q.weights), q.hdr);
  const double before = converged_psnr(reference, a, b, in.color);
  const double after = converged_psnr(reference, a, b, denoised);
  std::printf("%s: raw PSNR against the %d-spp reference: noisy %.2f dB, denoised %.2f dB\n", q.weights, 2 * kReferenceSpp,
              denoise::display_psnr(reference, in.color), denoise::display_psnr(reference, denoised));
  RecordProperty("psnr_noisy", std::to_string(before));
  RecordProperty("psnr_denoised", std::to_string(after));
  if (!q.hdr) std::printf("%s: LDR exposure %.3f\n", q.weights, e);
  std::printf("%s: converged PSNR: noisy %.2f dB -> denoised %.2f dB\n", q.weights, before, after);
  EXPECT_GE(after - before, q.min_gain_db) << "noisy " << before << " dB, denoised " << after << " dB";
}

INSTANTIATE_TEST_SUITE_P(RealWeights, Quality,
                         ::testing::Values(QualityCase{"rt_hdr_alb_nrm.tza", true, true, true, 10.0},
                                           QualityCase{"rt_ldr_alb_nrm.tza", false, true, true, 10.0},
                                           QualityCase{"rt_ldr.tza", false, false, false, 10.0}),
                         [](const auto& info) {
                           std::string n = info.param.weights;
                           return n.substr(0, n.find('.'));
                         });

TEST(RealRender, SharedImageDenoisesToFiniteValuesInRange) {
  VX_REQUIRE_SHARED(shared);
  test::DenoiseInputs in;
  in.color = read_image(shared / "images" / "noisy.png");
  in.albedo = read_image(shared / "images" / "albedo.png");
  in.normal = read_image(shared / "images" / "normal.png");
  for (float& v : in.normal.pixels) v = v * 2.0f - 1.0f;  // PNG normals are stored as n * 0.5 + 0.5
  const Image out = test::denoise_cpu(in, test::read_bytes(shared / "weights" / "rt_ldr_alb_nrm.tza"), false, 0, true);
  for (float v : out.pixels) ASSERT_TRUE(std::isfinite(v) && v >= 0.0f && v <= 1.0f) << v;
  // The noise is gone: the mean difference between horizontal neighbours drops at least 3-fold.
  auto roughness = [](const Image& img) {
    double sum = 0;
    for (int y = 0; y < img.height; ++y)
      for (int x = 1; x < img.width; ++x)
        for (int c = 0; c < 3; ++c) sum += std::abs(img.at(x, y, c) - img.at(x - 1, y, c));
    return sum / (3.0 * img.height * (img.width - 1));
  };
  EXPECT_LT(roughness(out) * 3, roughness(in.color)) << roughness(out) << " vs " << roughness(in.color);
}

}  // namespace
}  // namespace vx

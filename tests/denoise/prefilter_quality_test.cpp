// The prefiltering networks do their job with our processing: OIDN's rt_alb and rt_nrm on a crop
// of the real render's albedo and normal (../shared/images) with Gaussian noise added must remove
// most of it (the MSE against the clean crop at most half the noisy one's). A wrong curve or a
// wrong signed mapping of the normals would leave the output far from the clean image.
#include <cmath>
#include <random>

#include "common/test_util.h"
#include "denoise/denoise_helpers.h"
#include "formats/image_io.h"

namespace vx {
namespace {

constexpr int kCropX = 400, kCropY = 420, kCropW = 93, kCropH = 71;  // odd: padded to 96x80

double mean_squared_error(const Image& a, const Image& b) {
  double sum = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i) {
    const double d = double(a.pixels[i]) - double(b.pixels[i]);
    sum += d * d;
  }
  return sum / double(a.pixels.size());
}

TEST(PrefilterQuality, RealWeightsRemoveMostOfTheNoise) {
  VX_REQUIRE_SHARED(shared);
  std::vector<std::string> absent;
  for (const char* name : {"rt_alb", "rt_nrm"}) {
    SCOPED_TRACE(name);
    const auto file = test::real_weights_file(name);
    if (!file) {
      absent.push_back(std::string(name) + ".tza");
      continue;
    }
    const bool is_albedo = std::string(name) == "rt_alb";
    const Image full = read_image(shared / "images" / (is_albedo ? "albedo.png" : "normal.png"));
    Image clean(kCropW, kCropH, 3), noisy(kCropW, kCropH, 3), out(kCropW, kCropH, 3);
    std::mt19937_64 rng(61);
    std::normal_distribution<float> noise(0.0f, 0.08f);
    for (int y = 0; y < kCropH; ++y)
      for (int x = 0; x < kCropW; ++x)
        for (int c = 0; c < 3; ++c) {
          const float v = full.at(kCropX + x, kCropY + y, c);
          clean.at(x, y, c) = is_albedo ? v : v * 2.0f - 1.0f;  // the PNG stores n * 0.5 + 0.5
          noisy.at(x, y, c) = std::clamp(clean.at(x, y, c) + noise(rng), is_albedo ? 0.0f : -1.0f, 1.0f);
        }
    denoise::Filter f(denoise::Device::create("cpu"));
    f.set_image(is_albedo ? "albedo" : "normal", test::view_of(noisy));
    f.set_image("output", test::view_of(out));
    f.set_weights_blob(test::read_bytes(*file));
    f.execute();
    const double before = mean_squared_error(noisy, clean), after = mean_squared_error(out, clean);
    std::printf("%s: MSE against the clean crop %.3g noisy, %.3g filtered\n", name, before, after);
    EXPECT_LT(after, 0.5 * before);
  }
  if (!absent.empty()) GTEST_SKIP() << "not installed: " << test::comma_joined(absent);
}

}  // namespace
}  // namespace vx

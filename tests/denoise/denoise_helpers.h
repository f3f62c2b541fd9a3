// Shared by the denoise tests: views over vx::Image, filters over weight blobs, sample renders.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "denoise/filter.h"
#include "denoise/unet_spec.h"
#include "denoise/weights_store.h"
#include "formats/image.h"
#include "formats/tza.h"

namespace vx::test {

inline denoise::ImageView view_of(Image& image) { return denoise::image_view(image); }

// OIDN's weights file `name`.tza where the tests look for real weights: ../shared/weights, then
// $VOLVOX_WEIGHTS, then the cache; empty when none has it.
inline std::optional<std::filesystem::path> real_weights_file(const std::string& name) {
  std::vector<std::filesystem::path> folders;
  if (auto shared = shared_dir()) folders.push_back(*shared / "weights");
  if (const char* env = std::getenv("VOLVOX_WEIGHTS")) folders.push_back(env);
  folders.push_back(denoise::weights_cache_dir());
  for (const auto& folder : folders)
    if (std::filesystem::is_regular_file(folder / (name + ".tza"))) return folder / (name + ".tza");
  return std::nullopt;
}

// "a, b, c" (messages listing skipped files).
inline std::string comma_joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

inline std::vector<std::byte> random_weights_blob(UNetVariant variant, int input_channels, uint64_t seed = 7) {
  return write_tza(make_random_unet_weights(variant, input_channels, seed));
}

// The Vulkan filter against the CPU filter at fp32, in max_rel_diff.
inline constexpr double kFp32Tolerance = 1e-4;

// max |a - b| / max(1, |a|) over the pixels: absolute for small values, relative for large HDR
// ones; infinite when either has a NaN where the other does not match it.
inline double max_rel_diff(const Image& a, const Image& b) {
  double worst = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i) {
    const double d = std::abs(double(a.pixels[i]) - b.pixels[i]) / std::max(1.0, std::abs(double(a.pixels[i])));
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, d);
  }
  return worst;
}

struct DenoiseInputs {
  Image color, albedo, normal;
};

// Runs the CPU filter; aux images are used when non-empty.
inline Image denoise_cpu(DenoiseInputs& in, std::span<const std::byte> weights, bool hdr, int max_tile = 0,
                         bool srgb = false) {
  Image out(in.color.width, in.color.height, 3);
  denoise::Filter f(denoise::Device::create("cpu"));
  f.set_image("color", view_of(in.color));
  if (!in.albedo.empty()) f.set_image("albedo", view_of(in.albedo));
  if (!in.normal.empty()) f.set_image("normal", view_of(in.normal));
  f.set_image("output", view_of(out));
  f.params().hdr = hdr;
  f.params().srgb = srgb;
  f.params().max_tile_size = max_tile;
  f.set_weights_blob(weights);
  f.commit();
  f.execute();
  return out;
}

}  // namespace vx::test

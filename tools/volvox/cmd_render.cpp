// `volvox render`: renders a sample scene to noisy colour, albedo and normal images (the denoiser's
// inputs) and optionally a high-sample reference of the same scene.
#include <chrono>
#include <cstdio>

#include "command.h"
#include "core/error.h"
#include "flags.h"
#include "formats/image_io.h"
#include "samples/path_tracer.h"

namespace vx::cli {

namespace {

void save(const std::filesystem::path& path, const Image& image) { write_image(path, image); }

struct RenderOptions {
  samples::RenderSettings settings;
  std::string prefix;
  int reference_spp = 0;
  std::string format = "exr";
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

samples::RenderOutput render_timed(const samples::RenderSettings& settings, const char* what) {
  auto start = std::chrono::steady_clock::now();
  int last_percent = -1;
  auto progress = [&](double fraction) {
    int percent = int(fraction * 100);
    if (percent / 10 != last_percent / 10) std::fprintf(stderr, "\r%s: %3d%%", what, percent);
    last_percent = percent;
    return true;
  };
  samples::RenderOutput out = samples::render_scene(settings, progress);
  std::fprintf(stderr, "\r%s: %dx%d at %d spp in %.2f s\n", what, settings.width, settings.height, settings.spp,
               seconds_since(start));
  return out;
}

void validate(const RenderOptions& o) {
  VX_CHECK(o.format == "pfm" || o.format == "exr", InvalidArgument, "unknown --format '", o.format,
           "' (pfm or exr)");
  VX_CHECK(!o.prefix.empty(), InvalidArgument, "-o PREFIX is required");
  check_range("--width", o.settings.width, 1, kMaxImageSide);
  check_range("--height", o.settings.height, 1, kMaxImageSide);
  VX_CHECK(int64_t(o.settings.width) * o.settings.height * 3 <= kMaxImageValues, InvalidArgument, "--width ",
           o.settings.width, " x --height ", o.settings.height, " is larger than the image limit of ",
           kMaxImageValues / 3, " pixels");
  check_range("--spp", o.settings.spp, 1, 1 << 20);
  check_range("--reference-spp", o.reference_spp, 0, 1 << 20);
  check_range("--max-depth", o.settings.max_depth, 1, 1024);
  samples::make_scene(o.settings.scene);  // an unknown scene names the known ones
}

void run_render(const RenderOptions& o) {
  std::string ext = "." + o.format;
  samples::RenderOutput noisy = render_timed(o.settings, "render");
  save(o.prefix + "_color" + ext, noisy.color);
  save(o.prefix + "_albedo" + ext, noisy.albedo);
  save(o.prefix + "_normal" + ext, noisy.normal);
  if (o.reference_spp > 0) {
    samples::RenderSettings ref = o.settings;
    ref.spp = o.reference_spp;
    ref.seed = o.settings.seed ^ 0x5EEDF00DCAFEull;  // independent of the noisy image's samples
    save(o.prefix + "_reference" + ext, render_timed(ref, "reference").color);
  }
}

void setup_render(CLI::App& app) {
  auto options = std::make_shared<RenderOptions>();
  std::string names;
  for (const auto& n : samples::scene_names()) names += (names.empty() ? "" : ", ") + n;
  CLI::App* cmd = app.add_subcommand("render", "Path-trace a sample scene into colour, albedo and normal images");
  cmd->add_option("--scene", options->settings.scene, "scene: " + names)->required();
  cmd->add_option("--spp", options->settings.spp, "samples per pixel of the noisy image")->capture_default_str();
  cmd->add_option("-o,--output", options->prefix, "output prefix: PREFIX_color, _albedo, _normal, _reference")
      ->required();
  cmd->add_option("--width", options->settings.width, "image width")->capture_default_str();
  cmd->add_option("--height", options->settings.height, "image height")->capture_default_str();
  cmd->add_option("--seed", options->settings.seed, "random seed")->capture_default_str();
  cmd->add_option("--max-depth", options->settings.max_depth, "bounces counted")->capture_default_str();
  cmd->add_option("--reference-spp", options->reference_spp, "also render PREFIX_reference at this many spp")
      ->capture_default_str();
  cmd->add_option("--format", options->format, "pfm or exr")->capture_default_str();
  cmd->callback([options] {
    validate(*options);
    if (!validate_only()) run_render(*options);
  });
}

}  // namespace

VX_REGISTER_COMMAND(render, setup_render);

}  // namespace vx::cli

// `volvox render`: renders a sample scene to noisy colour, albedo and normal images (the denoiser's
// inputs) and optionally a high-sample reference of the same scene; with --frames N, an animation
// (samples/animation.h) with depth and motion vectors per frame (samples/motion.h).
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "command.h"
#include "core/error.h"
#include "flags.h"
#include "formats/image_io.h"
#include "samples/animation.h"
#include "samples/motion.h"
#include "samples/path_tracer.h"

namespace vx::cli {

namespace {

void save(const std::filesystem::path& path, const Image& image) { write_image(path, image); }

// PFM holds 1, 3 or 4 channels: 2-channel motion vectors go out as (dx, dy, 0).
Image with_zero_third_channel(const Image& two) {
  Image three(two.width, two.height, 3);
  for (size_t p = 0; p < size_t(two.width) * size_t(two.height); ++p) {
    three.pixels[p * 3] = two.pixels[p * 2];
    three.pixels[p * 3 + 1] = two.pixels[p * 2 + 1];
  }
  return three;
}

struct RenderOptions {
  samples::RenderSettings settings;
  std::string prefix;
  int reference_spp = 0;
  std::string format = "exr";
  int frames = 1;
  std::string camera = "still";
  bool moving = false;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

samples::RenderOutput render_timed(const samples::Scene& scene, const samples::RenderSettings& settings,
                                   const std::string& what) {
  auto start = std::chrono::steady_clock::now();
  int last_percent = -1;
  auto progress = [&](double fraction) {
    int percent = int(fraction * 100);
    if (percent / 10 != last_percent / 10) std::fprintf(stderr, "\r%s: %3d%%", what.c_str(), percent);
    last_percent = percent;
    return true;
  };
  samples::RenderOutput out = samples::render(scene, settings, progress);
  std::fprintf(stderr, "\r%s: %dx%d at %d spp in %.2f s\n", what.c_str(), settings.width, settings.height,
               settings.spp, seconds_since(start));
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
  check_range("--frames", o.frames, 1, 100000);
  samples::parse_camera_path(o.camera);
}

void run_render(const RenderOptions& o) {
  const std::string ext = "." + o.format;
  const samples::Scene base = samples::make_scene(o.settings.scene);
  const samples::Animation animation{o.frames, samples::parse_camera_path(o.camera), o.moving};
  for (int f = 0; f < o.frames; ++f) {
    // One frame: PREFIX_color...; an animation: PREFIX_0000_color... with depth and motion too.
    char number[16];
    std::snprintf(number, sizeof number, "_%04d", f);
    const std::string prefix = o.frames == 1 ? o.prefix : o.prefix + number;
    const std::string frame_name = o.frames == 1 ? std::string("render") : cat("frame ", f);
    const samples::Scene scene = samples::animated_scene(base, animation, f);
    samples::RenderSettings settings = o.settings;
    settings.seed = o.settings.seed + uint64_t(f) * 0x9E3779B97F4A7C15ull;  // fresh noise every frame
    samples::RenderOutput noisy = render_timed(scene, settings, frame_name);
    save(prefix + "_color" + ext, noisy.color);
    save(prefix + "_albedo" + ext, noisy.albedo);
    save(prefix + "_normal" + ext, noisy.normal);
    if (o.frames > 1) {
      const samples::Scene previous = samples::animated_scene(base, animation, std::max(0, f - 1));
      const samples::GeometryImages geometry =
          samples::render_geometry(scene, previous, o.settings.width, o.settings.height);
      save(prefix + "_depth" + ext, geometry.depth);
      save(prefix + "_motion" + ext, o.format == "pfm" ? with_zero_third_channel(geometry.motion) : geometry.motion);
    }
    if (o.reference_spp > 0) {
      samples::RenderSettings ref = settings;
      ref.spp = o.reference_spp;
      ref.seed = settings.seed ^ 0x5EEDF00DCAFEull;  // independent of the noisy image's samples
      save(prefix + "_reference" + ext, render_timed(scene, ref, frame_name + " reference").color);
    }
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
  cmd->add_option("--frames", options->frames,
                  "an animation of N frames: PREFIX_0000_color ... with _depth (distance along the pixel-centre "
                  "ray) and _motion (dx, dy in pixels to where the surface was in the previous frame; PFM adds a "
                  "zero third channel)")
      ->capture_default_str();
  cmd->add_option("--camera", options->camera, "camera path of an animation: still, orbit, dolly, pan")
      ->capture_default_str();
  cmd->add_flag("--moving", options->moving, "an animation's first non-emitting sphere moves sideways");
  cmd->callback([options] {
    validate(*options);
    if (!validate_only()) run_render(*options);
  });
}

}  // namespace

VX_REGISTER_COMMAND(render, setup_render);

}  // namespace vx::cli

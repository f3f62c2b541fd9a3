// volvox denoise: OIDN-compatible denoising of image files.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "command.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/thread_pool.h"
#include "flags.h"
#include "denoise/filter.h"
#include "denoise/weights_choice.h"
#include "denoise/weights_store.h"
#include "formats/image_io.h"

namespace vx::cli {
namespace {

struct DenoiseArgs {
  std::string weights, color, albedo, normal, output;
  bool hdr = false, srgb = false, clean_aux = false, json = false, profile = false;
  float input_scale = NAN;
  std::string device = "auto", precision = "auto", quality = "high", kernels = "auto";
  int max_tile = 0, max_memory_mb = -1, threads = 0, repeat = 1;
  double target_tile_ms = 0;
};

bool is_png(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& ch : ext) ch = char(std::tolower(ch));
  return ext == ".png";
}


void print_json(const DenoiseArgs& a, const Image& color, const denoise::Device& device,
                const denoise::Filter& filter) {
  const denoise::ExecuteStats& s = filter.stats();
  nlohmann::json j = {{"command", "denoise"},         {"width", color.width},
                      {"height", color.height},       {"device", device.name()},
                      {"network", filter.describe()}, {"ms_total", s.ms_total},
                      {"ms_network", s.ms_network},   {"ms_device", s.ms_device},
                      {"tiles", s.tiles},
                      {"tile_width", s.tile_width},   {"tile_height", s.tile_height},
                      {"input_scale", s.input_scale}, {"arena_bytes", s.arena_bytes},
                      {"sum_activation_bytes", s.sum_activation_bytes}};
  std::printf("%s\n", j.dump().c_str());
  std::fflush(stdout);
}

denoise::Quality quality_of(const std::string& name) {
  return name == "fast" ? denoise::Quality::fast : name == "balanced" ? denoise::Quality::balanced : denoise::Quality::high;
}

denoise::FilterParams filter_params(const DenoiseArgs& a) {
  denoise::FilterParams p;
  p.hdr = a.hdr;
  p.srgb = a.srgb;
  p.clean_aux = a.clean_aux;
  p.input_scale = a.input_scale;
  p.quality = quality_of(a.quality);
  p.max_tile_size = a.max_tile;
  p.max_memory_mb = a.max_memory_mb;
  p.target_tile_ms = a.target_tile_ms;
  p.precision = parse_precision(a.precision);
  p.kernels = a.kernels;
  return p;
}

// Every flag checked before any file is read; the output must not overwrite an input.
void validate(const DenoiseArgs& a) {
  check_threads(a.threads);
  check_device(a.device, /*allow_auto=*/true);
  check_range("--max-tile", a.max_tile, 0, kMaxImageSide);
  if (a.max_memory_mb != -1) check_range("--max-memory-mb", a.max_memory_mb, 1, 1 << 24);
  check_range("--repeat", a.repeat, 1, 1000000);
  VX_CHECK(std::isnan(a.input_scale) || (std::isnormal(a.input_scale) && a.input_scale > 0), InvalidArgument,
           "--input-scale ", a.input_scale,
           " must be a positive finite number of at least 1.2e-38 (leave it out for autoexposure)");
  VX_CHECK(a.target_tile_ms >= 0 && a.target_tile_ms <= 60000, InvalidArgument, "--target-tile-ms ",
           a.target_tile_ms, " must be between 0 and 60000");
  VX_CHECK(!(a.hdr && a.srgb), InvalidArgument, "--hdr and --srgb cannot both be set");
  VX_CHECK(!a.output.empty(), InvalidArgument, "-o/--output is empty");
  for (const auto& [flag, path] : {std::pair{"--color", a.color}, {"--albedo", a.albedo}, {"--normal", a.normal},
                                   {"--weights", a.weights}})
    VX_CHECK(path.empty() || !same_file(path, a.output), InvalidArgument, "-o ", a.output, " is the ", flag,
             " file: the output must not overwrite an input");
  image_format_for_path(a.output);  // a known extension before any work is done
}

void run_denoise(const DenoiseArgs& a) {
  if (a.threads > 0) ThreadPool::set_global_threads(a.threads);
  Image color = read_image(a.color);
  Image albedo, normal;
  if (!a.albedo.empty()) albedo = read_image(a.albedo);
  if (!a.normal.empty()) {
    normal = read_image(a.normal);
    // PNG stores normals as n * 0.5 + 0.5; the filter wants [-1, 1].
    if (is_png(a.normal))
      for (float& v : normal.pixels) v = v * 2.0f - 1.0f;
  }
  auto check_size = [&](const Image& img, const std::string& name, const std::string& path) {
    VX_CHECK(img.width == color.width && img.height == color.height, InvalidArgument, name, " image ", path, " is ",
             img.width, "x", img.height, " but the color image ", a.color, " is ", color.width, "x", color.height);
  };
  if (!albedo.empty()) check_size(albedo, "albedo", a.albedo);
  if (!normal.empty()) check_size(normal, "normal", a.normal);

  // The weights files this run may read: --weights, else every installed one the filter may choose.
  const denoise::FilterParams params = filter_params(a);
  std::vector<std::filesystem::path> weights_files;
  if (!a.weights.empty()) weights_files.push_back(denoise::resolve_weights(a.weights, ""));
  else
    for (const denoise::FoundWeights& w : denoise::installed_weights(
             denoise::weights_query(params, !albedo.empty(), !normal.empty())))
      if (w.file) weights_files.push_back(*w.file);
  for (const std::filesystem::path& weights : weights_files)
    VX_CHECK(!same_file(weights, a.output), InvalidArgument, "-o ", a.output, " is the weights file ", weights,
             ": the output must not overwrite an input");

  Image output(color.width, color.height, 3);
  auto device = denoise::Device::create(a.device, a.threads);
  denoise::Filter filter(device);
  filter.set_image("color", denoise::image_view(color));
  if (!albedo.empty()) filter.set_image("albedo", denoise::image_view(albedo));
  if (!normal.empty()) filter.set_image("normal", denoise::image_view(normal));
  filter.set_image("output", denoise::image_view(output));
  filter.params() = params;
  filter.set_profiling(a.profile);
  if (!a.weights.empty()) filter.set_weights_file(a.weights);
  const bool bar = !a.json && isatty(STDERR_FILENO);
  if (bar)
    filter.set_progress([](double p) {
      const int width = 40, done = int(p * width + 0.5);
      std::fprintf(stderr, "\r[%.*s%*s] %3d%%", done, "========================================", width - done, "",
                   int(p * 100 + 0.5));
      std::fflush(stderr);
      return true;
    });
  filter.commit();
  // --repeat runs the same denoise again (benchmarks: the first run includes first-touch costs);
  // with --json every run prints its own line.
  for (int run = 0; run < std::max(1, a.repeat); ++run) {
    filter.execute();
    if (a.json && run + 1 < a.repeat) print_json(a, color, *device, filter);
  }
  if (bar) std::fprintf(stderr, "\n");
  write_image(a.output, output);

  const denoise::ExecuteStats& s = filter.stats();
  if (a.profile) {
    std::printf("%-24s %-16s %-20s %10s\n", "layer", "op", "kernel", "ms");
    for (const auto& l : s.layers) std::printf("%-24s %-16s %-20s %10.3f\n", l.name.c_str(), l.op.c_str(), l.variant.c_str(), l.ms);
  }
  if (a.json) {
    print_json(a, color, *device, filter);
  } else {
    std::fprintf(stderr, "denoised %dx%d in %.1f ms (%d tile%s, %s) -> %s\n", color.width, color.height, s.ms_total,
                 s.tiles, s.tiles == 1 ? "" : "s", filter.describe().c_str(), a.output.c_str());
  }
}

void setup_denoise(CLI::App& app) {
  auto args = std::make_shared<DenoiseArgs>();
  CLI::App* cmd = app.add_subcommand("denoise", "Denoise a rendered image with OIDN's U-Net");
  cmd->add_option("--weights", args->weights, "OIDN .tza weights (default: $VOLVOX_WEIGHTS or the cache)");
  cmd->add_option("--color", args->color, "noisy color image (.exr .pfm .hdr .png)")->required();
  cmd->add_option("--albedo", args->albedo, "albedo image");
  cmd->add_option("--normal", args->normal, "normal image ([-1,1]; PNG as n*0.5+0.5)");
  cmd->add_option("-o,--output", args->output, "output image")->required();
  cmd->add_flag("--hdr", args->hdr, "color is HDR (linear radiance)");
  cmd->add_flag("--srgb", args->srgb, "LDR color is sRGB-encoded already");
  cmd->add_flag("--clean-aux", args->clean_aux, "albedo and normal are noise-free (selects *_calb_cnrm weights)");
  cmd->add_option("--input-scale", args->input_scale, "scale applied to color (default: autoexposure for HDR)");
  cmd->add_option("--device", args->device, "cpu, vulkan, vulkan:N or auto")->capture_default_str();
  cmd->add_option("--precision", args->precision, "fp32, fp16 or auto")->check(CLI::IsMember({"fp32", "fp16", "auto"}));
  cmd->add_option("--kernel", args->kernels,
                  "vulkan conv kernels: auto, direct, tiled or coopmat, then optional LAYER=VARIANT overrides "
                  "(e.g. auto,dec_conv0=direct)")
      ->capture_default_str();
  cmd->add_option("--quality", args->quality, "fast, balanced or high (weights choice)")
      ->check(CLI::IsMember({"fast", "balanced", "high"}));
  cmd->add_option("--max-tile", args->max_tile, "largest tile side in pixels (0: chosen from the memory limit)");
  cmd->add_option("--max-memory-mb", args->max_memory_mb,
                  "memory limit in MB: larger images are tiled to stay under it (default: the device's, "
                  "see README)");
  cmd->add_option("--target-tile-ms", args->target_tile_ms,
                  "interactive mode (vulkan): size tiles so each takes about this GPU time (0: off)");
  cmd->add_option("--threads", args->threads, "CPU threads (0: all)");
  cmd->add_flag("--json", args->json, "print one JSON line with timings");
  cmd->add_option("--repeat", args->repeat, "denoise N times (benchmarks; a JSON line per run with --json)");
  cmd->add_flag("--profile", args->profile, "print per-layer times and kernel variants");
  cmd->callback([args] {
    validate(*args);
    if (!validate_only()) run_denoise(*args);
  });
}

VX_REGISTER_COMMAND(denoise, setup_denoise);

}  // namespace
}  // namespace vx::cli

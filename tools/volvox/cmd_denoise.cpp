// volvox denoise: OIDN-compatible denoising of image files: a render (--color, with optional
// --albedo and --normal, which --prefilter-aux cleans first), or an auxiliary image alone.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "command.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/thread_pool.h"
#include "flags.h"
#include "denoise/filter.h"
#include "denoise/filter_mode.h"
#include "denoise/temporal_accumulator.h"
#include "denoise/weights_choice.h"
#include "denoise/weights_store.h"
#include "formats/image_io.h"
#include "frame_pattern.h"

namespace vx::cli {
namespace {

struct DenoiseArgs {
  std::string weights, color, albedo, normal, output;
  bool hdr = false, srgb = false, clean_aux = false, prefilter_aux = false, json = false, profile = false;
  float input_scale = NAN;
  std::string device = "auto", precision = "auto", quality = "high", kernels = "auto";
  int max_tile = 0, max_memory_mb = -1, threads = 0, repeat = 1;
  double target_tile_ms = 0;
  // --sequence: the image paths are frame patterns (frame_pattern.h); --temporal taa stabilises the
  // outputs with --motion, --depth and --normal (denoise/temporal_stabilizer.h).
  bool sequence = false;
  std::string motion, depth, temporal = "taa";
  float temporal_blend = 0.8f;
  int first_frame = 0;
};

bool is_png(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& ch : ext) ch = char(std::tolower(ch));
  return ext == ".png";
}


// `run`: 0 for the first execute (first-touch costs), then 1, 2, ... with --repeat; `ms_commit`: the
// commit before it (network, kernels, weights in their layouts, the arena: the one-time set-up).
void print_json(const DenoiseArgs& a, const Image& image, const denoise::Device& device,
                const denoise::Filter& filter, double ms_prefilter, double ms_commit, int run) {
  const denoise::ExecuteStats& s = filter.stats();
  nlohmann::json j = {{"command", "denoise"},         {"width", image.width},
                      {"height", image.height},       {"device", device.name()},
                      {"network", filter.describe()}, {"ms_total", s.ms_total},
                      {"ms_network", s.ms_network},   {"ms_device", s.ms_device},
                      {"tiles", s.tiles},
                      {"tile_width", s.tile_width},   {"tile_height", s.tile_height},
                      {"input_scale", s.input_scale}, {"arena_bytes", s.arena_bytes},
                      {"sum_activation_bytes", s.sum_activation_bytes},
                      {"ms_commit", ms_commit},       {"run", run}};
  if (a.prefilter_aux) j["ms_prefilter"] = ms_prefilter;
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

// The filter's parameters for cleaning one auxiliary image (OIDN's prefiltering): the run's device
// settings, quality and kernels, but neither hdr nor srgb (the rt_alb / rt_nrm networks take
// neither) nor the colour's input scale.
denoise::FilterParams prefilter_params(const DenoiseArgs& a) {
  denoise::FilterParams p = filter_params(a);
  p.hdr = p.srgb = p.clean_aux = false;
  p.input_scale = NAN;
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
  const bool color = !a.color.empty(), albedo = !a.albedo.empty(), normal = !a.normal.empty();
  VX_CHECK(color || albedo || normal, InvalidArgument,
           "no input image: give --color (a render to denoise), or --albedo or --normal alone (an auxiliary "
           "image to filter)");
  VX_CHECK(color || !(albedo && normal), InvalidArgument,
           "without --color give --albedo or --normal, not both: an auxiliary image is filtered alone");
  VX_CHECK(color || !a.clean_aux, InvalidArgument,
           "--clean-aux describes the auxiliary images beside --color; it has no use without --color");
  VX_CHECK(color || !a.prefilter_aux, InvalidArgument,
           "--prefilter-aux needs --color: it cleans --albedo and --normal before denoising the colour");
  VX_CHECK(!a.prefilter_aux || albedo || normal, InvalidArgument,
           "--prefilter-aux needs --albedo and/or --normal to clean");
  VX_CHECK(!(a.prefilter_aux && a.clean_aux), InvalidArgument,
           "--prefilter-aux and --clean-aux cannot both be set: --clean-aux says the auxiliary images are noise-free "
           "already, --prefilter-aux makes them so");
  // The combinations OIDN refuses (normal without albedo beside the colour, hdr for albedo alone,
  // hdr or srgb for normal alone), in the filter's own words.
  denoise::resolve_filter_mode(filter_params(a), color, albedo, normal);
  VX_CHECK(!a.output.empty(), InvalidArgument, "-o/--output is empty");
  for (const auto& [flag, path] : {std::pair{"--color", a.color}, {"--albedo", a.albedo}, {"--normal", a.normal},
                                   {"--weights", a.weights}})
    VX_CHECK(path.empty() || !same_file(path, a.output), InvalidArgument, "-o ", a.output, " is the ", flag,
             " file: the output must not overwrite an input");
  image_format_for_path(a.output);  // a known extension before any work is done
  VX_CHECK(a.sequence || (a.motion.empty() && a.depth.empty()), InvalidArgument,
           "--motion and --depth are guides of a --sequence");
  if (!a.sequence) return;
  VX_CHECK(color, InvalidArgument, "--sequence denoises --color frames");
  VX_CHECK(a.repeat == 1 && !a.prefilter_aux, InvalidArgument, "--sequence takes neither --repeat nor --prefilter-aux");
  VX_CHECK(a.temporal == "taa" || a.temporal == "none" || a.temporal == "accumulate" || a.temporal == "both",
           InvalidArgument, "--temporal '", a.temporal, "' (none, taa, accumulate or both)");
  VX_CHECK(a.temporal_blend >= 0 && a.temporal_blend < 1, InvalidArgument, "--temporal-blend ", a.temporal_blend,
           " must be in [0, 1)");
  check_range("--first-frame", a.first_frame, 0, 99999999);
  VX_CHECK(a.temporal == "none" || (!a.motion.empty() && !a.depth.empty() && normal), InvalidArgument,
           "--temporal ", a.temporal, " needs --motion, --depth and --normal frames (or --temporal none)");
  for (const auto& [flag, pattern] : {std::pair{"--color", a.color}, {"--albedo", a.albedo}, {"--normal", a.normal},
                                      {"--motion", a.motion}, {"--depth", a.depth}, {"-o", a.output}})
    if (!pattern.empty()) check_frame_pattern(flag, pattern);
}

// PNG stores normals as n * 0.5 + 0.5; the filter reads and writes [-1, 1].
void normals_from_png(Image& image) {
  for (float& v : image.pixels) v = v * 2.0f - 1.0f;
}
void normals_to_png(Image& image) {
  for (float& v : image.pixels) v = v * 0.5f + 0.5f;
}

// OIDN's prefiltering: `aux` ("albedo" or "normal") denoised alone with rt_alb / rt_nrm.
Image prefilter(const std::shared_ptr<denoise::Device>& device, const char* aux, Image& image,
                const DenoiseArgs& a) {
  Image clean(image.width, image.height, 3);
  denoise::Filter filter(device);
  filter.set_image(aux, denoise::image_view(image));
  filter.set_image("output", denoise::image_view(clean));
  filter.params() = prefilter_params(a);
  filter.execute();
  if (!a.json)
    std::fprintf(stderr, "prefiltered the %s in %.1f ms (%s)\n", aux, filter.stats().ms_total,
                 filter.describe().c_str());
  return clean;
}

void run_denoise(const DenoiseArgs& a) {
  if (a.threads > 0) ThreadPool::set_global_threads(a.threads);
  Image color, albedo, normal;
  if (!a.color.empty()) color = read_image(a.color);
  if (!a.albedo.empty()) albedo = read_image(a.albedo);
  if (!a.normal.empty()) {
    normal = read_image(a.normal);
    if (is_png(a.normal)) normals_from_png(normal);
  }
  // The image the filter denoises: the colour, else the auxiliary image given alone.
  const bool aux_alone = color.empty();
  const Image& main = !color.empty() ? color : !albedo.empty() ? albedo : normal;
  const std::string main_flag = !color.empty() ? "--color" : !albedo.empty() ? "--albedo" : "--normal";
  const std::string& main_path = !color.empty() ? a.color : !albedo.empty() ? a.albedo : a.normal;
  auto check_size = [&](const Image& img, const std::string& name, const std::string& path) {
    VX_CHECK(img.width == main.width && img.height == main.height, InvalidArgument, name, " image ", path, " is ",
             img.width, "x", img.height, " but the ", main_flag.substr(2), " image ", main_path, " is ", main.width,
             "x", main.height);
  };
  if (!aux_alone && !albedo.empty()) check_size(albedo, "albedo", a.albedo);
  if (!aux_alone && !normal.empty()) check_size(normal, "normal", a.normal);

  // The weights files this run may read: --weights, else every installed one the filter may choose
  // (and the prefiltering networks').
  denoise::FilterParams params = filter_params(a);
  if (a.prefilter_aux) params.clean_aux = true;  // the auxiliary images the colour pass sees are clean
  std::vector<denoise::WeightsQuery> queries;
  if (a.weights.empty())
    queries.push_back(denoise::weights_query(params, !color.empty(), !albedo.empty(), !normal.empty()));
  if (a.prefilter_aux && !albedo.empty())
    queries.push_back(denoise::weights_query(prefilter_params(a), false, true, false));
  if (a.prefilter_aux && !normal.empty())
    queries.push_back(denoise::weights_query(prefilter_params(a), false, false, true));
  std::vector<std::filesystem::path> weights_files;
  if (!a.weights.empty()) weights_files.push_back(denoise::resolve_weights(a.weights, ""));
  for (const denoise::WeightsQuery& query : queries)
    for (const denoise::FoundWeights& w : denoise::installed_weights(query))
      if (w.file) weights_files.push_back(*w.file);
  for (const std::filesystem::path& weights : weights_files)
    VX_CHECK(!same_file(weights, a.output), InvalidArgument, "-o ", a.output, " is the weights file ", weights,
             ": the output must not overwrite an input");

  auto device = denoise::Device::create(a.device, a.threads);
  double ms_prefilter = 0;
  if (a.prefilter_aux) {
    const auto t0 = std::chrono::steady_clock::now();
    if (!albedo.empty()) albedo = prefilter(device, "albedo", albedo, a);
    if (!normal.empty()) normal = prefilter(device, "normal", normal, a);
    ms_prefilter = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

  Image output(main.width, main.height, 3);
  denoise::Filter filter(device);
  if (!color.empty()) filter.set_image("color", denoise::image_view(color));
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
  const auto commit_start = std::chrono::steady_clock::now();
  filter.commit();
  const double ms_commit = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - commit_start).count();
  // --repeat runs the same denoise again (benchmarks: the first run includes first-touch costs; the
  // prefiltering ran once, above); with --json every run prints its own line.
  for (int run = 0; run < std::max(1, a.repeat); ++run) {
    filter.execute();
    if (a.json && run + 1 < a.repeat) print_json(a, main, *device, filter, ms_prefilter, ms_commit, run);
  }
  if (bar) std::fprintf(stderr, "\n");
  if (aux_alone && !normal.empty() && is_png(a.output)) normals_to_png(output);
  write_image(a.output, output);

  const denoise::ExecuteStats& s = filter.stats();
  if (a.profile) {
    std::printf("%-24s %-16s %-20s %10s\n", "layer", "op", "kernel", "ms");
    for (const auto& l : s.layers) std::printf("%-24s %-16s %-20s %10.3f\n", l.name.c_str(), l.op.c_str(), l.variant.c_str(), l.ms);
  }
  if (a.json) {
    print_json(a, main, *device, filter, ms_prefilter, ms_commit, std::max(1, a.repeat) - 1);
  } else {
    std::fprintf(stderr, "denoised %dx%d in %.1f ms (%d tile%s, %s) -> %s\n", main.width, main.height, s.ms_total,
                 s.tiles, s.tiles == 1 ? "" : "s", filter.describe().c_str(), a.output.c_str());
  }
}

// --sequence: the filter committed once for the first frame's size; every frame's images copied
// into the same buffers (the filter keeps its views), denoised (with the filter's temporal stage
// for taa) and written.
void run_denoise_sequence(const DenoiseArgs& a) {
  if (a.threads > 0) ThreadPool::set_global_threads(a.threads);
  auto device = denoise::Device::create(a.device, a.threads);
  denoise::Filter filter(device);
  denoise::TemporalAccumulator accumulator;
  const bool accumulate = a.temporal == "accumulate" || a.temporal == "both",
             stabilize = a.temporal == "taa" || a.temporal == "both";
  Image color, albedo, normal, motion, depth, output;
  int frames = 0;
  for (int f = a.first_frame; std::filesystem::exists(frame_path(a.color, f)); ++f, ++frames) {
    const auto start = std::chrono::steady_clock::now();
    // A frame's image into `into`: the first frame sets the size; later ones must match it and are
    // copied into the same pixels (the filter keeps views of its buffers).
    auto load = [&](Image& into, const std::string& pattern, const char* what) {
      Image img = read_image(frame_path(pattern, f));
      if (frames == 0) {
        into = std::move(img);
        return;
      }
      VX_CHECK(img.width == into.width && img.height == into.height && img.channels == into.channels,
               InvalidArgument, what, " frame ", frame_path(pattern, f), " is ", img.width, "x", img.height, "x",
               img.channels, " but frame ", a.first_frame, " was ", into.width, "x", into.height, "x", into.channels);
      std::copy(img.pixels.begin(), img.pixels.end(), into.pixels.begin());
    };
    load(color, a.color, "--color");
    if (!a.albedo.empty()) load(albedo, a.albedo, "--albedo");
    if (!a.normal.empty()) {
      load(normal, a.normal, "--normal");
      if (is_png(a.normal)) normals_from_png(normal);
    }
    if (a.temporal != "none") {
      load(motion, a.motion, "--motion");
      load(depth, a.depth, "--depth");
    }
    if (accumulate) {  // the network sees the accumulated colour (in the filter's buffer)
      const Image accumulated = accumulator.apply(color, motion, depth, normal);
      std::copy(accumulated.pixels.begin(), accumulated.pixels.end(), color.pixels.begin());
    }
    if (frames == 0) {
      output = Image(color.width, color.height, 3);
      filter.set_image("color", denoise::image_view(color));
      if (!albedo.empty()) filter.set_image("albedo", denoise::image_view(albedo));
      if (!normal.empty()) filter.set_image("normal", denoise::image_view(normal));
      filter.set_image("output", denoise::image_view(output));
      if (stabilize) {
        filter.set_image("motion", denoise::image_view(motion));
        filter.set_image("depth", denoise::image_view(depth));
      }
      filter.params() = filter_params(a);
      filter.params().temporal = stabilize ? denoise::TemporalMode::stabilize : denoise::TemporalMode::none;
      filter.params().temporal_blend = a.temporal_blend;
      if (!a.weights.empty()) filter.set_weights_file(a.weights);
      filter.commit();
    }
    filter.execute();
    const std::string out_path = frame_path(a.output, f);
    for (const std::string* pattern : {&a.color, &a.albedo, &a.normal, &a.motion, &a.depth})
      VX_CHECK(pattern->empty() || !same_file(frame_path(*pattern, f), out_path), InvalidArgument, "-o ", out_path,
               " is an input frame: the output must not overwrite an input");
    write_image(out_path, output);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "frame %d: %.1f ms -> %s\n", f, ms, out_path.c_str());
  }
  VX_CHECK(frames > 0, InvalidArgument, "no frame: ", frame_path(a.color, a.first_frame), " does not exist");
  std::fprintf(stderr, "denoised %d frames (%s, temporal %s)\n", frames, filter.describe().c_str(), a.temporal.c_str());
}

void setup_denoise(CLI::App& app) {
  auto args = std::make_shared<DenoiseArgs>();
  CLI::App* cmd = app.add_subcommand(
      "denoise",
      "Denoise a rendered image with OIDN's U-Net: --color (with optional --albedo and --normal), or --albedo or "
      "--normal alone (filters that auxiliary image with OIDN's rt_alb / rt_nrm networks)");
  cmd->add_option("--weights", args->weights,
                  "OIDN .tza weights for the image written to -o (default: OIDN's choice from $VOLVOX_WEIGHTS, the "
                  "cache or the built-in copies)");
  cmd->add_option("--color", args->color, "noisy color image (.exr .pfm .hdr .png); without it, --albedo or --normal "
                                          "alone is filtered");
  cmd->add_option("--albedo", args->albedo, "albedo image");
  cmd->add_option("--normal", args->normal, "normal image ([-1,1]; PNG as n*0.5+0.5)");
  cmd->add_option("-o,--output", args->output, "output image")->required();
  cmd->add_flag("--hdr", args->hdr, "color is HDR (linear radiance)");
  cmd->add_flag("--srgb", args->srgb, "LDR color is sRGB-encoded already");
  cmd->add_flag("--clean-aux", args->clean_aux, "albedo and normal are noise-free (selects *_calb_cnrm weights)");
  cmd->add_flag("--prefilter-aux", args->prefilter_aux,
                "denoise --albedo (rt_alb) and --normal (rt_nrm) first, then the color with them as clean "
                "auxiliary images (OIDN's prefiltering; *_calb_cnrm weights with both)");
  cmd->add_option("--input-scale", args->input_scale,
                  "scale applied to the image denoised (default: autoexposure for HDR, else 1)");
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
  cmd->add_flag("--sequence", args->sequence,
                "denoise an animation: --color, --albedo, --normal, --motion, --depth and -o are frame patterns "
                "such as 'frames/room_%04d_color.exr', frames from --first-frame until the colour file is missing");
  cmd->add_option("--motion", args->motion, "--sequence: motion vectors (dx, dy pixels to the previous frame)");
  cmd->add_option("--depth", args->depth, "--sequence: depth along the pixel-centre ray (0: sky)");
  cmd->add_option("--temporal", args->temporal,
                  "--sequence: taa (reproject the previous output, clamp to the neighbourhood, blend), accumulate "
                  "(reproject and average the noisy colour before the network), both, or none")
      ->capture_default_str();
  cmd->add_option("--temporal-blend", args->temporal_blend, "--sequence: the history's weight, [0, 1)")
      ->capture_default_str();
  cmd->add_option("--first-frame", args->first_frame, "--sequence: the first frame number")->capture_default_str();
  cmd->callback([args] {
    validate(*args);
    if (!validate_only()) args->sequence ? run_denoise_sequence(*args) : run_denoise(*args);
  });
}

VX_REGISTER_COMMAND(denoise, setup_denoise);

}  // namespace
}  // namespace vx::cli

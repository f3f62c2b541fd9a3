// volvox denoise: OIDN-compatible denoising of image files: a render (--color, with optional
// --albedo and --normal, which --prefilter-aux cleans first), or an auxiliary image alone.
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <future>
#include <iomanip>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <tuple>
#include <nlohmann/json.hpp>

#include "command.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/thread_pool.h"
#include "device_list.h"
#include "flags.h"
#include "denoise/filter.h"
#include "denoise/filter_mode.h"
#include "denoise/temporal_accumulator.h"
#include "denoise/weights_choice.h"
#include "denoise/weights_store.h"
#include "formats/image_io.h"
#include "frame_pattern.h"
#include "sequence_pipeline.h"

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
  // Farm chunks (issue 14): --range FIRST-LAST instead of first-frame-until-missing; outputs that exist
  // and validate are skipped unless --overwrite; --warmup frames before a temporal run's first frame
  // build its history (unset: none, but kChunkWarmup before the chunks of the later devices of a
  // --device list); --io-threads readers and as many writers.
  std::optional<std::string> range;
  bool overwrite = false;
  std::optional<int> warmup;
  int io_threads = 0;  // 0: auto_io_threads()
  std::optional<std::string> exr_compression;  // zip, zips, piz, rle, none; zip and zips take :LEVEL
  // Denoising lanes per device, each its own filter (0: 2 on a GPU with --temporal none, else 1).
  int filters = 0;
};

// The warm-up before each later device's chunk of a temporal run over several devices when
// --warmup is not given: the lost history's weight decays as blend^N, 0.8^16 = 2.8% with the
// default blend (docs/FARM.md).
constexpr int kChunkWarmup = 16;

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

// How outputs are written: --exr-compression NAME[:LEVEL] (EXR outputs only).
ImageWriteOptions write_options(const DenoiseArgs& a) {
  ImageWriteOptions options;
  if (!a.exr_compression) return options;
  const std::string& text = *a.exr_compression;
  const size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  const std::pair<const char*, ExrCompression> kinds[] = {{"zip", ExrCompression::zip},
                                                          {"zips", ExrCompression::zips},
                                                          {"piz", ExrCompression::piz},
                                                          {"rle", ExrCompression::rle},
                                                          {"none", ExrCompression::none}};
  const auto* kind = std::find_if(std::begin(kinds), std::end(kinds), [&](const auto& k) { return name == k.first; });
  const std::string level = colon == std::string::npos ? "" : text.substr(colon + 1);
  const bool zip = kind != std::end(kinds) && (kind->second == ExrCompression::zip || kind->second == ExrCompression::zips);
  VX_CHECK(kind != std::end(kinds) && (colon == std::string::npos || (zip && level.size() == 1 && level[0] >= '1' &&
                                                                      level[0] <= '9')),
           InvalidArgument, "--exr-compression '", text,
           "': expected zip, zips, piz, rle or none; zip and zips take a deflate level, e.g. zip:1 (fastest) to zip:9");
  options.exr_compression = kind->second;
  options.exr_zip_level = level.empty() ? 0 : level[0] - '0';
  return options;
}

// Every flag checked before any file is read; the output must not overwrite an input.
void validate(const DenoiseArgs& a) {
  check_threads(a.threads);
  if (a.sequence) {
    check_device_list(a.device);
  } else {
    VX_CHECK(!is_device_list(a.device), InvalidArgument, "--device ", a.device,
             ": several devices are for --sequence; a single image is denoised on one (e.g. --device vulkan:0)");
    check_device(a.device, /*allow_auto=*/true);
  }
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
  write_options(a);
  VX_CHECK(!a.exr_compression || image_format_for_path(a.output) == ImageFormat::Exr, InvalidArgument,
           "--exr-compression is for .exr outputs; -o ", a.output, " is not one");
  VX_CHECK(a.sequence || (a.motion.empty() && a.depth.empty()), InvalidArgument,
           "--motion and --depth are guides of a --sequence");
  VX_CHECK(a.sequence || (!a.range && !a.overwrite && !a.warmup && a.io_threads == 0 && a.filters == 0),
           InvalidArgument, "--range, --overwrite, --warmup, --io-threads and --filters are flags of --sequence");
  if (!a.sequence) return;
  VX_CHECK(color, InvalidArgument, "--sequence denoises --color frames");
  VX_CHECK(a.repeat == 1 && !a.prefilter_aux, InvalidArgument, "--sequence takes neither --repeat nor --prefilter-aux");
  VX_CHECK(a.temporal == "taa" || a.temporal == "none" || a.temporal == "accumulate" || a.temporal == "both",
           InvalidArgument, "--temporal '", a.temporal, "' (none, taa, accumulate or both)");
  VX_CHECK(a.temporal_blend >= 0 && a.temporal_blend < 1, InvalidArgument, "--temporal-blend ", a.temporal_blend,
           " must be in [0, 1)");
  check_range("--first-frame", a.first_frame, 0, kMaxFrameNumber);
  if (a.range) parse_frame_range("--range", *a.range);
  if (a.warmup) check_range("--warmup", *a.warmup, 0, 100000);
  VX_CHECK(a.warmup.value_or(0) == 0 || a.temporal != "none", InvalidArgument,
           "--warmup builds a temporal history; --temporal none keeps none");
  check_range("--io-threads", a.io_threads, 0, 64);
  check_range("--filters", a.filters, 0, 8);
  VX_CHECK(a.filters <= 1 || a.temporal == "none", InvalidArgument, "--filters ", a.filters,
           " denoises frames concurrently: only with --temporal none (a temporal history needs the frames in order)");
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
  write_image(a.output, output, write_options(a));

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

// --sequence: the frames to denoise, in order: each with whether its output is written (warm-up
// frames of a temporal mode are denoised for the history only), whether a new temporal history
// starts at it (the first frame of a run after a range start, a skipped frame or a chunk start) and
// its chunk (a temporal run over several devices: one chunk, and one history, per device).
struct SequenceJob {
  int frame = 0;
  bool write = true, reset = false;
  int chunk = 0;
};
// A chunk's frames written (first to last, the skipped ones between left out) and warm-up frames.
struct SequenceChunk {
  int first = -1, last = -1, warmup = 0;
};
struct SequencePlan {
  std::vector<SequenceJob> jobs;  // the chunks' jobs interleaved (each chunk's in frame order)
  std::vector<SequenceChunk> chunks;
  int frames = 0;          // written
  int frames_skipped = 0;  // outputs that exist and validate
  int frames_warmup = 0;
  int first = 0, last = -1;  // the frames selected (the range, or first-frame to the last present)
};

// The inputs every frame of the sequence reads: flag and pattern.
std::vector<std::pair<const char*, const std::string*>> frame_inputs(const DenoiseArgs& a) {
  std::vector<std::pair<const char*, const std::string*>> inputs{{"--color", &a.color}};
  if (!a.albedo.empty()) inputs.push_back({"--albedo", &a.albedo});
  if (!a.normal.empty()) inputs.push_back({"--normal", &a.normal});
  if (a.temporal != "none") inputs.push_back({"--motion", &a.motion}), inputs.push_back({"--depth", &a.depth});
  return inputs;
}
// The first input of frame f that does not exist, or "".
std::string missing_input(const DenoiseArgs& a, int f) {
  for (const auto& [flag, pattern] : frame_inputs(a))
    if (!std::filesystem::exists(frame_path(*pattern, f))) return cat("the ", flag, " input ", frame_path(*pattern, f));
  return "";
}

// An output a restarted run keeps: it reads back with the engine's reader, has the sequence's size
// and the 3 channels the filter writes, and only finite values. write_image is atomic (a killed run
// leaves no partial file under the output's name), so this catches files damaged or cut since, or
// written by something else.
bool output_is_valid(const std::string& path, int width, int height) {
  try {
    const Image image = read_image(path);
    if (image.width != width || image.height != height || image.channels != 3) return false;
    return std::all_of(image.pixels.begin(), image.pixels.end(), [](float v) { return std::isfinite(v); });
  } catch (const std::exception&) {
    return false;
  }
}

// The frames (--range, else --first-frame until the first missing colour), the outputs that exist
// and validate (checked on `threads` threads: a restart reads them all back), the warm-up frames;
// in a temporal mode the frames to write cut into up to `chunks` consecutive chunks of about equal
// length (one per device).
SequencePlan plan_sequence(const DenoiseArgs& a, int threads, int chunks) {
  SequencePlan plan;
  std::vector<int> frames;
  if (a.range) {
    const FrameRange range = parse_frame_range("--range", *a.range);
    for (int f = range.first; f <= range.last; ++f) {
      const std::string missing = missing_input(a, f);
      VX_CHECK(missing.empty(), InvalidArgument, "--range ", *a.range, ": frame ", f, ": ", missing, " does not exist");
      frames.push_back(f);
    }
  } else {
    for (int f = a.first_frame; f <= kMaxFrameNumber && std::filesystem::exists(frame_path(a.color, f)); ++f)
      frames.push_back(f);
    VX_CHECK(!frames.empty(), InvalidArgument, "no frame: ", frame_path(a.color, a.first_frame), " does not exist");
  }
  plan.first = frames.front(), plan.last = frames.back();
  for (int f : frames)
    for (const std::string* pattern : {&a.color, &a.albedo, &a.normal, &a.motion, &a.depth})
      VX_CHECK(pattern->empty() || !same_file(frame_path(*pattern, f), frame_path(a.output, f)), InvalidArgument,
               "-o ", frame_path(a.output, f), " is an input frame: the output must not overwrite an input");

  std::vector<char> skip(frames.size(), 0);
  if (!a.overwrite) {
    std::vector<size_t> existing;
    for (size_t i = 0; i < frames.size(); ++i)
      if (std::filesystem::exists(frame_path(a.output, frames[i]))) existing.push_back(i);
    if (!existing.empty()) {
      const Image first = read_image(frame_path(a.color, frames.front()));  // the sequence's size
      std::atomic<size_t> next{0};
      auto check = [&] {
        for (size_t k; (k = next++) < existing.size();)
          skip[existing[k]] = output_is_valid(frame_path(a.output, frames[existing[k]]), first.width, first.height);
      };
      std::vector<std::thread> pool;
      try {
        for (int t = 1; t < std::min<int>(threads, int(existing.size())); ++t) pool.emplace_back(check);
      } catch (const std::system_error&) {  // no more threads: the ones there (and this one) do the rest
      }
      check();
      for (std::thread& t : pool) t.join();
    }
  }

  const bool temporal = a.temporal != "none";
  const int to_write = int(std::count(skip.begin(), skip.end(), 0));
  plan.chunks.resize(size_t(temporal ? std::clamp(to_write, 1, std::max(1, chunks)) : 1));
  std::vector<std::vector<SequenceJob>> chunk_jobs(plan.chunks.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    const int f = frames[i];
    if (skip[i]) {
      std::fprintf(stderr, "frame %d: output exists, skipped\n", f);
      ++plan.frames_skipped;
      continue;
    }
    const int chunk = int(int64_t(plan.frames++) * int64_t(plan.chunks.size()) / to_write);
    SequenceChunk& c = plan.chunks[size_t(chunk)];
    std::vector<SequenceJob>& jobs = chunk_jobs[size_t(chunk)];
    const bool chunk_start = chunk > 0 && c.first < 0;
    if (c.first < 0) c.first = f;
    c.last = f;
    // A temporal history continues from the frame before when that was denoised in this run by the
    // same chunk; else a new one starts, after up to --warmup frames before this one (as many as
    // exist, not below --first-frame; kChunkWarmup by default at a later device's chunk start).
    if (temporal && (i == 0 || skip[i - 1] || chunk_start)) {
      const int warmup = a.warmup.value_or(chunk_start ? kChunkWarmup : 0);
      int w0 = f;
      while (w0 > a.first_frame && f - w0 < warmup && missing_input(a, w0 - 1).empty()) --w0;
      if (warmup > 0)
        std::fprintf(stderr, "frame %d: %d warm-up frame%s before it (of %s %d)\n", f, f - w0,
                     f - w0 == 1 ? "" : "s", a.warmup ? "--warmup" : "the chunks' default warm-up", warmup);
      for (int w = w0; w < f; ++w) jobs.push_back({w, false, w == w0, chunk}), ++plan.frames_warmup, ++c.warmup;
      jobs.push_back({f, true, w0 == f, chunk});
    } else {
      jobs.push_back({f, true, false, chunk});
    }
  }
  // Interleaved: the readers decode in job order, and every device is to be fed.
  for (size_t n = 0, more = 1; more; ++n) {
    more = 0;
    for (const std::vector<SequenceJob>& jobs : chunk_jobs)
      if (n < jobs.size()) plan.jobs.push_back(jobs[n]), more = 1;
  }
  return plan;
}

std::string format_duration(double seconds) {
  const long s = long(std::max(0.0, seconds) + 0.5);
  return s >= 3600 ? cat(s / 3600, "h", std::setw(2), std::setfill('0'), s / 60 % 60, "m")
                   : cat(s / 60, ":", std::setw(2), std::setfill('0'), s % 60);
}

// --io-threads 0: half the CPUs this process may run on (its affinity: a scheduler's allocation),
// at least 2 and at most 16 readers (and as many writers; EXR decoding and encoding are the host's
// heavy work per frame).
int auto_io_threads() {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                               : int(std::thread::hardware_concurrency());
  return std::clamp(cpus / 2, 2, 16);
}

// SIGINT and SIGTERM (Ctrl-C; a scheduler's cancel, before its SIGKILL) during a sequence: no new
// frame is started, the frames denoised are written, and the run ends with one line and status 1,
// leaving no temporary file. A second signal ends the process at once (SA_RESETHAND).
std::atomic<bool> g_denoise_sequence_cancel{false};
static_assert(std::atomic<bool>::is_always_lock_free);
extern "C" void denoise_sequence_on_signal(int) { g_denoise_sequence_cancel.store(true); }

class SequenceSignals {
 public:
  SequenceSignals() {
    g_denoise_sequence_cancel = false;
    struct sigaction action {};
    action.sa_handler = denoise_sequence_on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &action, &previous_int_);
    sigaction(SIGTERM, &action, &previous_term_);
  }
  ~SequenceSignals() {
    sigaction(SIGINT, &previous_int_, nullptr);
    sigaction(SIGTERM, &previous_term_, nullptr);
  }
  SequenceSignals(const SequenceSignals&) = delete;
  SequenceSignals& operator=(const SequenceSignals&) = delete;

 private:
  struct sigaction previous_int_ {}, previous_term_ {};
};

// fn(0) .. fn(n - 1) at once, a thread each (the devices' set-up: each opens and commits on its
// own device); rethrows the first error once all have ended.
void on_each_device(size_t n, const std::function<void(size_t)>& fn) {
  std::vector<std::future<void>> others;
  std::exception_ptr error;
  try {
    for (size_t d = 1; d < n; ++d) others.push_back(std::async(std::launch::async, [&fn, d] { fn(d); }));
    if (n > 0) fn(0);
  } catch (...) {
    error = std::current_exception();
  }
  for (std::future<void>& other : others) {
    try {
      other.get();
    } catch (...) {
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

// --sequence (issue 14, sequence_pipeline.h): frames decoded ahead by --io-threads readers into
// slots, denoised by --filters lanes on each --device (each lane its own filter, committed once;
// each frame's slot images set as its views; in the temporal modes one lane a device, each over its
// own chunk of frames in order, with the filter's temporal stage for taa), written by --io-threads
// writers. The outputs are the sequential loop's: the same network and parameters, and for the
// temporal modes the same order within a chunk (a later chunk's history starts at its warm-up).
void run_denoise_sequence(const DenoiseArgs& a) {
  using Clock = std::chrono::steady_clock;
  if (a.threads > 0) ThreadPool::set_global_threads(a.threads);
  const int io_threads = a.io_threads > 0 ? a.io_threads : auto_io_threads();
  const std::vector<std::string> kinds = resolve_device_list(a.device);
  const bool temporal = a.temporal != "none";
  const SequencePlan plan = plan_sequence(a, io_threads, int(kinds.size()));
  // The devices: one a chunk in a temporal mode, else one a job at most.
  const size_t device_count = plan.jobs.empty() ? 0
                              : temporal        ? plan.chunks.size()
                                                : std::min(kinds.size(), plan.jobs.size());
  std::vector<std::shared_ptr<denoise::Device>> devices(device_count);
  on_each_device(device_count, [&](size_t d) { devices[d] = denoise::Device::create(kinds[d], a.threads); });
  // Lanes: several filters on a device overlap one frame's host copies with another's device work
  // (frames are independent only without a temporal mode); on the CPU they would share the same
  // cores. Lane l runs on device l % devices, so that the first frames, taken in order, go to
  // different devices; in a temporal mode lane d takes chunk d (the pipeline's queue d).
  const bool on_cpu = !devices.empty() && devices.front()->name().rfind("cpu", 0) == 0;
  const int per_device = a.filters > 0 ? a.filters : !temporal && !devices.empty() && !on_cpu ? 2 : 1;
  const int lanes = per_device * int(std::max<size_t>(1, devices.size()));
  auto device_of = [&](int lane) { return size_t(lane) % devices.size(); };
  std::vector<std::unique_ptr<denoise::Filter>> filters;
  for (int lane = 0; lane < lanes && !devices.empty(); ++lane)
    filters.push_back(std::make_unique<denoise::Filter>(devices[device_of(lane)]));
  std::vector<denoise::TemporalAccumulator> accumulators(static_cast<size_t>(lanes));
  std::vector<int> lane_runs(size_t(lanes), 0);  // each lane's executes (touched by its thread only)
  const bool accumulate = a.temporal == "accumulate" || a.temporal == "both",
             stabilize = a.temporal == "taa" || a.temporal == "both";
  PipelineOptions options;
  options.readers = options.writers = io_threads;
  options.read_ahead = options.write_queue = io_threads + 1;
  options.lanes = lanes;
  if (plan.chunks.size() > 1) {
    options.queues = int(plan.chunks.size());
    for (const SequenceJob& job : plan.jobs) options.job_queue.push_back(job.chunk);
    for (size_t d = 0; d < plan.chunks.size(); ++d) {
      const SequenceChunk& c = plan.chunks[d];
      const std::string frames = c.first == c.last ? cat("frame ", c.first) : cat("frames ", c.first, "-", c.last);
      std::fprintf(stderr, "chunk %zu of %zu: %s on %s, after %d warm-up frame%s\n", d + 1, plan.chunks.size(),
                   frames.c_str(), devices[d]->name().c_str(), c.warmup, c.warmup == 1 ? "" : "s");
    }
  }
  const SequenceSignals signals;
  options.cancel = &g_denoise_sequence_cancel;
  options.cancel_message =
      "interrupted (SIGINT or SIGTERM): every output written is complete; the same command resumes (existing "
      "outputs are skipped)";

  // The first denoised frame's images: every later frame must match them.
  struct Shape {
    int width = 0, height = 0, channels = 0;
  };
  std::array<Shape, 5> shapes{};
  int shapes_frame = -1;
  // The rate is the steady state's: from the end of the first frame's denoise (the one-time set-up:
  // every lane's network, weights, kernels; the first execute's first-touch costs; `ms_setup`) to
  // the last write, over the frames written after the first; the GPU busy fraction is their device
  // time over that wall time. The other lanes start once the first frame is done.
  double ms_setup = 0, ms_device = 0, ms_device_steady = 0, sum_read = 0, sum_denoise = 0, sum_write = 0;
  int executed = 0;                  // executes (under stats_mutex)
  struct DeviceStats {
    int frames = 0, warmup = 0, executes = 0;
    double ms_device = 0, ms_device_steady = 0;
    bool setup = false;  // the first execute (the run's set-up) was this device's
  };
  std::vector<DeviceStats> device_stats(devices.size());  // under stats_mutex
  std::mutex stats_mutex;
  int written = 0;                   // stages.done's (under the pipeline's lock)
  int mean_processed = 0, mean_written = 0;  // the frames in the stage means
  const bool bar = isatty(STDERR_FILENO);
  const auto start = Clock::now();
  std::atomic<int64_t> steady_start_ns{0};  // set by the first execute's lane, read by progress on writer threads
  auto steady_seconds = [&] {
    const int64_t t0 = steady_start_ns.load();
    return t0 == 0 ? 0.0 : std::max(0.0, double(Clock::now().time_since_epoch().count() - t0) * 1e-9);
  };
  std::atomic<int> setup_job{-1};  // the first taken (set before any job is done)
  auto first_written = [&] { return setup_job >= 0 ? int(plan.jobs[size_t(setup_job.load())].write) : 0; };
  std::atomic<bool> setup_claimed{false};
  std::promise<void> setup_promise;
  const std::shared_future<void> setup_done = setup_promise.get_future().share();

  PipelineStages stages;
  stages.read = [&](FrameSlot& s) {
    const int f = plan.jobs[size_t(s.job)].frame;
    s.color = read_image(frame_path(a.color, f));
    if (!a.albedo.empty()) s.albedo = read_image(frame_path(a.albedo, f));
    if (!a.normal.empty()) {
      s.normal = read_image(frame_path(a.normal, f));
      if (is_png(a.normal)) normals_from_png(s.normal);
    }
    if (a.temporal != "none") {
      s.motion = read_image(frame_path(a.motion, f));
      s.depth = read_image(frame_path(a.depth, f));
    }
  };
  // Every image of a frame against the first's (`record`: this is the first).
  auto check_shapes = [&](const FrameSlot& s, int frame, bool record) {
    const std::array<std::tuple<const Image*, const std::string*, const char*>, 5> images{
        {{&s.color, &a.color, "--color"},
         {&s.albedo, &a.albedo, "--albedo"},
         {&s.normal, &a.normal, "--normal"},
         {&s.motion, &a.motion, "--motion"},
         {&s.depth, &a.depth, "--depth"}}};
    for (size_t i = 0; i < images.size(); ++i) {
      const auto& [img, pattern, what] = images[i];
      if (img->empty()) continue;
      if (record) {
        shapes[i] = {img->width, img->height, img->channels};
        continue;
      }
      const Shape& ref = shapes[i];
      VX_CHECK(img->width == ref.width && img->height == ref.height && img->channels == ref.channels,
               InvalidArgument, what, " frame ", frame_path(*pattern, frame), " is ", img->width, "x", img->height,
               "x", img->channels, " but frame ", shapes_frame, " was ", ref.width, "x", ref.height, "x",
               ref.channels);
    }
    if (record) shapes_frame = frame;
  };
  auto set_images = [&](denoise::Filter& filter, FrameSlot& s) {
    filter.set_image("color", denoise::image_view(s.color));
    if (!s.albedo.empty()) filter.set_image("albedo", denoise::image_view(s.albedo));
    if (!s.normal.empty()) filter.set_image("normal", denoise::image_view(s.normal));
    filter.set_image("output", denoise::image_view(s.output));
    if (stabilize) {
      filter.set_image("motion", denoise::image_view(s.motion));
      filter.set_image("depth", denoise::image_view(s.depth));
    }
  };
  stages.process = [&](FrameSlot& s, int lane) {
    const SequenceJob& job = plan.jobs[size_t(s.job)];
    denoise::Filter& filter = *filters[size_t(lane)];
    const bool setup = !setup_claimed.exchange(true);
    if (!setup) setup_done.get();  // waits for the first frame; rethrows its error
    try {
      check_shapes(s, job.frame, setup);
      // One lane a chunk in the temporal modes; a fresh filter has no history to reset.
      if (job.reset && lane_runs[size_t(lane)] > 0) filter.reset_history(), accumulators[size_t(lane)].reset();
      if (accumulate)  // what the network sees
        s.color = accumulators[size_t(lane)].apply(s.color, s.motion, s.depth, s.normal);
      if (s.output.width != s.color.width || s.output.height != s.color.height)
        s.output = Image(s.color.width, s.color.height, 3);
      if (setup) {  // every lane's filter: committed here, once, each device's on a thread of its own
        on_each_device(devices.size(), [&](size_t d) {
          for (size_t l = d; l < filters.size(); l += devices.size()) {
            denoise::Filter& f = *filters[l];
            set_images(f, s);
            f.params() = filter_params(a);
            f.params().temporal = stabilize ? denoise::TemporalMode::stabilize : denoise::TemporalMode::none;
            f.params().temporal_blend = a.temporal_blend;
            if (!a.weights.empty()) f.set_weights_file(a.weights);
            f.commit();
          }
        });
      }
      set_images(filter, s);
      filter.execute();
      ++lane_runs[size_t(lane)];
    } catch (...) {
      if (setup) setup_promise.set_exception(std::current_exception());
      throw;
    }
    std::lock_guard lock(stats_mutex);
    const double ms = filter.stats().ms_device;
    DeviceStats& ds = device_stats[device_of(lane)];
    ms_device += ms, ds.ms_device += ms;
    if (!setup) ms_device_steady += ms, ds.ms_device_steady += ms;
    ++executed, ++ds.executes, ++(job.write ? ds.frames : ds.warmup);
    if (setup) {
      ds.setup = true;
      setup_job = s.job;
      ms_setup = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      steady_start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
      setup_promise.set_value();
    }
    return job.write;
  };
  const ImageWriteOptions write = write_options(a);
  stages.write = [&](FrameSlot& s) {
    write_image(frame_path(a.output, plan.jobs[size_t(s.job)].frame), s.output, write);
  };
  stages.done = [&](const FrameSlot& s, bool was_written) {
    const SequenceJob& job = plan.jobs[size_t(s.job)];
    if (was_written) ++written;
    // The stage means are the steady state's too: without the first frame when there are others.
    if (s.job != setup_job || plan.jobs.size() == 1) {
      ++mean_processed, sum_read += s.ms_read, sum_denoise += s.ms_process;
      if (was_written) ++mean_written, sum_write += s.ms_write;
    }
    if (bar) {
      const double seconds = steady_seconds(), fps = seconds > 0 ? (written - first_written()) / seconds : 0;
      std::fprintf(stderr, "\r\033[K%d/%d frames  %.1f frames/s  ETA %s", written, plan.frames, fps,
                   fps > 0 ? format_duration((plan.frames - written) / fps).c_str() : "-");
    } else if (was_written) {
      std::fprintf(stderr, "frame %d: %.1f ms (read %.1f, write %.1f) -> %s\n", job.frame, s.ms_process, s.ms_read,
                   s.ms_write, frame_path(a.output, job.frame).c_str());
    } else {
      std::fprintf(stderr, "frame %d: %.1f ms, warm-up (not written)\n", job.frame, s.ms_process);
    }
    std::fflush(stderr);
  };
  run_pipeline(int(plan.jobs.size()), options, stages);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count(), steady = steady_seconds();
  if (bar && !plan.jobs.empty()) std::fprintf(stderr, "\n");
  const std::string network = executed > 0 ? filters.front()->describe() : "no frame denoised";
  // One frame has no steady state: then the whole run's rate.
  const bool has_steady = written - first_written() > 0 && steady > 0;
  const double fps = has_steady                     ? (written - first_written()) / steady
                     : seconds > 0 && written > 0 ? written / seconds
                                                  : 0;
  const double busy = has_steady ? ms_device_steady / (steady * 1000) : seconds > 0 ? ms_device / (seconds * 1000) : 0;
  const std::string on_devices = devices.size() > 1 ? cat(", ", devices.size(), " devices") : "";
  std::fprintf(stderr, "denoised %d frames (%s%s, temporal %s), %d skipped, %d warm-up; %.2f frames/s\n", written,
               network.c_str(), on_devices.c_str(), a.temporal.c_str(), plan.frames_skipped, plan.frames_warmup, fps);
  // --json: frames written, skipped and denoised for warm-up; seconds: the whole run's wall time;
  // seconds_steady, frames_per_second and gpu_busy_fraction (the executes' device time / wall time;
  // 0 without device timestamps, e.g. on the CPU; with several filters or devices their device work
  // may overlap and the sum exceed 1): after the first frame's set-up (ms_setup); the stages' mean
  // ms (read, denoise on the filter thread, write; ms_device of an execute) without the first frame.
  // `devices`: each device's frames written and warm-up frames, mean ms_device and busy fraction
  // (as above, over the same steady wall time), and in chunked temporal runs its chunk's frames.
  if (a.json) {
    auto mean = [](double sum, int n) { return n > 0 ? sum / n : 0.0; };
    std::string names;
    nlohmann::json device_entries = nlohmann::json::array();
    for (size_t d = 0; d < devices.size(); ++d) {
      const DeviceStats& ds = device_stats[d];
      const int steady_executes = ds.executes - int(ds.setup);
      nlohmann::json e = {
          {"device", devices[d]->name()},
          {"filters", per_device},
          {"frames", ds.frames},
          {"frames_warmup", ds.warmup},
          {"ms_device", steady_executes > 0 ? ds.ms_device_steady / steady_executes : mean(ds.ms_device, ds.executes)},
          {"gpu_busy_fraction", has_steady ? ds.ms_device_steady / (steady * 1000)
                                : seconds > 0 ? ds.ms_device / (seconds * 1000) : 0.0}};
      if (plan.chunks.size() > 1) e["first_frame"] = plan.chunks[d].first, e["last_frame"] = plan.chunks[d].last;
      device_entries.push_back(std::move(e));
      names += (d > 0 ? ", " : "") + devices[d]->name();
    }
    const nlohmann::json j = {
        {"command", "denoise"},
        {"sequence", true},
        {"first_frame", plan.first},
        {"last_frame", plan.last},
        {"frames", written},
        {"frames_skipped", plan.frames_skipped},
        {"frames_warmup", plan.frames_warmup},
        {"seconds", seconds},
        {"seconds_steady", steady},
        {"frames_per_second", fps},
        {"frames_per_second_overall", seconds > 0 ? written / seconds : 0.0},
        {"gpu_busy_fraction", busy},
        {"ms_read", mean(sum_read, mean_processed)},
        {"ms_denoise", mean(sum_denoise, mean_processed)},
        {"ms_write", mean(sum_write, mean_written)},
        {"ms_device", executed > 1 ? ms_device_steady / (executed - 1) : ms_device},
        {"ms_setup", ms_setup},
        {"width", shapes[0].width},
        {"height", shapes[0].height},
        {"device", names},
        {"devices", device_entries},
        {"network", network},
        {"temporal", a.temporal},
        {"io_threads", io_threads},
        {"filters", lanes},
        {"frames_in_flight", options.slots()}};
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
  }
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
  cmd->add_option("--device", args->device,
                  "cpu, vulkan, vulkan:N or auto; --sequence also takes several Vulkan devices: vulkan:all (every "
                  "GPU) or vulkan:N,M,... (an index twice: two queues on one GPU)")
      ->capture_default_str();
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
  cmd->add_flag("--json", args->json,
                "print one JSON line with timings (--sequence: frames, frames/s, GPU busy fraction, stage means)");
  cmd->add_option("--repeat", args->repeat, "denoise N times (benchmarks; a JSON line per run with --json)");
  cmd->add_flag("--profile", args->profile, "print per-layer times and kernel variants");
  cmd->add_flag("--sequence", args->sequence,
                "denoise an animation: --color, --albedo, --normal, --motion, --depth and -o are frame patterns "
                "such as 'frames/room_%04d_color.exr', frames from --first-frame until the colour file is missing (or --range); pipelined: reading, "
                "denoising and writing overlap");
  cmd->add_option("--motion", args->motion, "--sequence: motion vectors (dx, dy pixels to the previous frame)");
  cmd->add_option("--depth", args->depth, "--sequence: depth along the pixel-centre ray (0: sky)");
  cmd->add_option("--temporal", args->temporal,
                  "--sequence: taa (reproject the previous output, clamp to the neighbourhood, blend), accumulate "
                  "(reproject and average the noisy colour before the network), both, or none")
      ->capture_default_str();
  cmd->add_option("--temporal-blend", args->temporal_blend, "--sequence: the history's weight, [0, 1)")
      ->capture_default_str();
  cmd->add_option("--first-frame", args->first_frame,
                  "--sequence: the first frame number (with --range: warm-up frames start no earlier)")
      ->capture_default_str();
  cmd->add_option("--range", args->range,
                  "--sequence: denoise frames FIRST-LAST (inclusive; N is N-N); every input of them must exist");
  cmd->add_flag("--overwrite", args->overwrite,
                "--sequence: denoise every frame; without it a frame whose output exists and validates (reads "
                "back, the input's size, 3 channels, finite) is skipped");
  cmd->add_option("--warmup", args->warmup,
                  cat("--sequence, temporal modes: denoise up to N frames before the first frame of a run (a range "
                      "start, after a skipped frame, the chunk of a later --device of a list) to build the history; "
                      "they are not written (default: 0, and ",
                      kChunkWarmup, " before a later device's chunk)"));
  cmd->add_option("--filters", args->filters,
                  "--sequence --temporal none: frames denoised concurrently on each device, each by its own filter, "
                  "so that one's host copies overlap another's device work (0: 2 on a GPU, 1 on the CPU)")
      ->capture_default_str();
  cmd->add_option("--exr-compression", args->exr_compression,
                  "EXR outputs: zip (default), zips, piz, rle or none; zip and zips take a deflate level, zip:1 "
                  "(fastest) to zip:9 (lossless all: zip:1 and piz encode faster than zip)");
  cmd->add_option("--io-threads", args->io_threads,
                  "--sequence: file reader threads, and as many writers; io-threads + 1 frames are decoded ahead "
                  "and as many wait for a write (0: half the CPUs this process may use, 2 to 16)")
      ->capture_default_str();
  cmd->callback([args] {
    validate(*args);
    if (!validate_only()) args->sequence ? run_denoise_sequence(*args) : run_denoise(*args);
  });
}

VX_REGISTER_COMMAND(denoise, setup_denoise);

}  // namespace
}  // namespace vx::cli

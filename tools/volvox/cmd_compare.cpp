// volvox compare: PSNR of images against a reference, and an optional side-by-side strip; with
// --sequence, of frame sequences: PSNR per frame and the temporal error (denoise/temporal_metrics.h),
// with the strips one file a frame or as one animated GIF.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "command.h"
#include "core/error.h"
#include "core/file_io.h"
#include "denoise/image_metrics.h"
#include "denoise/temporal_metrics.h"
#include "formats/gif_writer.h"
#include "formats/image_io.h"
#include "frame_pattern.h"

namespace vx::cli {
namespace {

struct CompareArgs {
  std::string reference;
  std::vector<std::string> images;
  std::string side_by_side;
  bool sequence = false;
  std::string gif;  // --sequence: the strips as one animated GIF
  int gif_delay_ms = 100;
  bool gif_delay_given = false;
  std::string motion, depth, normal;  // --sequence: the reference's guides
  int first_frame = 0;
};

bool has_gif_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".gif";
}

// The inputs are frame patterns of images that read_image reads (not GIF), so a .gif path can be an
// input only as the pattern itself: that is what is refused.
void validate_gif(const CompareArgs& a) {
  VX_CHECK(a.gif.empty() || a.sequence, InvalidArgument, "--gif needs --sequence (it animates the frames' strips)");
  VX_CHECK(!a.gif_delay_given || !a.gif.empty(), InvalidArgument, "--gif-delay-ms is the frame delay of --gif");
  if (a.gif.empty()) return;
  VX_CHECK(has_gif_extension(a.gif), InvalidArgument, "--gif ", a.gif, " must end in .gif");
  check_range("--gif-delay-ms", a.gif_delay_ms, 10, 10000);
  for (const std::string* input : {&a.reference, &a.motion, &a.depth, &a.normal})
    VX_CHECK(input->empty() || !same_file(*input, a.gif), InvalidArgument, "--gif ", a.gif, " is an input (", *input,
             ")");
  for (const std::string& pattern : a.images)
    VX_CHECK(!same_file(pattern, a.gif), InvalidArgument, "--gif ", a.gif, " is one of the sequences compared");
}

void validate(const CompareArgs& a) {
  VX_CHECK(a.sequence || (a.motion.empty() && a.depth.empty() && a.normal.empty()), InvalidArgument,
           "--motion, --depth and --normal are guides of a --sequence");
  validate_gif(a);
  if (a.sequence) {
    if (!a.side_by_side.empty()) {
      check_frame_pattern("--side-by-side", a.side_by_side);
      image_format_for_path(a.side_by_side);
      for (const std::string& pattern : a.images)
        VX_CHECK(pattern != a.side_by_side && a.reference != a.side_by_side, InvalidArgument, "--side-by-side ",
                 a.side_by_side, " is one of the sequences compared");
    }
    VX_CHECK(!a.motion.empty() && !a.depth.empty() && !a.normal.empty(), InvalidArgument,
             "--sequence needs the reference's --motion, --depth and --normal frames (the temporal error)");
    check_range("--first-frame", a.first_frame, 0, 99999999);
    for (const auto& [flag, pattern] : {std::pair{"--reference", a.reference}, {"--motion", a.motion},
                                        {"--depth", a.depth}, {"--normal", a.normal}})
      check_frame_pattern(flag, pattern);
    for (const std::string& pattern : a.images) check_frame_pattern("an image pattern", pattern);
    return;
  }
  if (a.side_by_side.empty()) return;
  image_format_for_path(a.side_by_side);
  for (const std::string& path : a.images)
    VX_CHECK(!same_file(path, a.side_by_side), InvalidArgument, "--side-by-side ", a.side_by_side,
             " is one of the images compared");
  VX_CHECK(!same_file(a.reference, a.side_by_side), InvalidArgument, "--side-by-side ", a.side_by_side,
           " is the reference image");
}

void run_compare(const CompareArgs& a) {
  const Image reference = read_image(a.reference);
  std::vector<Image> images;
  for (const std::string& path : a.images) images.push_back(read_image(path));
  for (size_t i = 0; i < images.size(); ++i)
    std::printf("%-40s PSNR %6.2f dB\n", a.images[i].c_str(), denoise::display_psnr(reference, images[i]));
  if (!a.side_by_side.empty()) {
    std::vector<const Image*> strip;
    for (const Image& img : images) strip.push_back(&img);
    strip.push_back(&reference);
    write_image(a.side_by_side, denoise::side_by_side(strip));
    std::printf("side by side (%zu images, then the reference) -> %s\n", images.size(), a.side_by_side.c_str());
  }
}

// Per frame: each sequence's PSNR against the reference and, from the second frame on, its
// temporal error; then the mean PSNR and the RMS of the temporal errors over the frames.
void run_compare_sequence(const CompareArgs& a) {
  struct Frame {
    Image reference, depth, normal;
    std::vector<Image> images;
  };
  Frame previous;
  std::optional<AnimatedGifWriter> gif;  // opened at the first frame, which gives its size
  std::vector<double> psnr_sum(a.images.size(), 0), temporal_sq(a.images.size(), 0);
  int frames = 0;
  std::printf("%-6s", "frame");
  for (const std::string& p : a.images) std::printf("  %32.32s PSNR  temporal", p.c_str());
  std::printf("\n");
  for (int f = a.first_frame; std::filesystem::exists(frame_path(a.reference, f)); ++f, ++frames) {
    Frame now{read_image(frame_path(a.reference, f)), read_image(frame_path(a.depth, f)),
              read_image(frame_path(a.normal, f)), {}};
    const Image motion = read_image(frame_path(a.motion, f));
    std::printf("%-6d", f);
    for (size_t i = 0; i < a.images.size(); ++i) {
      now.images.push_back(read_image(frame_path(a.images[i], f)));
      const double psnr = denoise::display_psnr(now.reference, now.images[i]);
      psnr_sum[i] += psnr;
      if (frames == 0) {
        std::printf("  %32s %6.2f  %8s", "", psnr, "-");
        continue;
      }
      const double t = denoise::temporal_rmse(previous.images[i], now.images[i], previous.reference, now.reference,
                                              {&motion, &now.depth, &previous.depth, &now.normal, &previous.normal});
      temporal_sq[i] += t * t;
      std::printf("  %32s %6.2f  %8.5f", "", psnr, t);
    }
    std::printf("\n");
    if (!a.side_by_side.empty() || !a.gif.empty()) {  // this frame's images, then the reference
      std::vector<const Image*> panels;
      for (const Image& img : now.images) panels.push_back(&img);
      panels.push_back(&now.reference);
      const Image strip = denoise::side_by_side(panels);
      if (!a.side_by_side.empty()) write_image(frame_path(a.side_by_side, f), strip);
      if (!a.gif.empty()) {
        if (!gif) gif.emplace(a.gif, strip.width, strip.height, a.gif_delay_ms);
        gif->add_frame(strip);
      }
    }
    previous = std::move(now);
  }
  VX_CHECK(frames > 0, InvalidArgument, "no frame: ", frame_path(a.reference, a.first_frame), " does not exist");
  if (gif) {
    gif->finish();
    std::printf("animated GIF of the strips (the sequences, then the reference): %d frames of %d ms -> %s\n", frames,
                a.gif_delay_ms, a.gif.c_str());
  }
  for (size_t i = 0; i < a.images.size(); ++i)
    std::printf("%s: %d frames, mean PSNR %.2f dB, temporal error %.5f (RMS over frames 2..%d)\n", a.images[i].c_str(),
                frames, psnr_sum[i] / frames, frames > 1 ? std::sqrt(temporal_sq[i] / (frames - 1)) : 0.0, frames);
}

void setup_compare(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand("compare", "PSNR (display-encoded) of images against a reference");
  cmd->add_option("--reference", args->reference, "reference image")->required();
  cmd->add_option("images", args->images, "images to compare")->required();
  cmd->add_option("--side-by-side", args->side_by_side,
                  "write images then reference side by side (PNG); with --sequence a frame pattern, one strip a "
                  "frame (e.g. for ffmpeg -i strip_%04d.png)");
  cmd->add_flag("--sequence", args->sequence,
                "compare frame sequences: --reference and the images are patterns such as 'out/%04d.exr'; "
                "prints PSNR per frame and the temporal error (needs --motion, --depth, --normal)");
  cmd->add_option("--motion", args->motion, "--sequence: the reference's motion vectors");
  cmd->add_option("--depth", args->depth, "--sequence: the reference's depth");
  cmd->add_option("--normal", args->normal, "--sequence: the reference's normals");
  cmd->add_option("--first-frame", args->first_frame, "--sequence: the first frame number")->capture_default_str();
  cmd->add_option("--gif", args->gif,
                  "--sequence: the strips --side-by-side writes (images then reference) as one looping animated "
                  "GIF; one fixed palette with ordered dithering, so what does not change does not flicker");
  CLI::Option* gif_delay = cmd->add_option("--gif-delay-ms", args->gif_delay_ms,
                                           "--gif: how long each frame shows, 10 to 10000 ms (browsers show "
                                           "delays under 20 ms as 100 ms)")
                               ->capture_default_str();
  cmd->callback([args, gif_delay] {
    args->gif_delay_given = gif_delay->count() > 0;
    validate(*args);
    if (!validate_only()) args->sequence ? run_compare_sequence(*args) : run_compare(*args);
  });
}

VX_REGISTER_COMMAND(compare, setup_compare);

}  // namespace
}  // namespace vx::cli

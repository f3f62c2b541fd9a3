// volvox compare: PSNR of images against a reference, and an optional side-by-side strip.
#include <cstdio>

#include "command.h"
#include "core/error.h"
#include "core/file_io.h"
#include "denoise/image_metrics.h"
#include "formats/image_io.h"

namespace vx::cli {
namespace {

struct CompareArgs {
  std::string reference;
  std::vector<std::string> images;
  std::string side_by_side;
};

void validate(const CompareArgs& a) {
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

void setup_compare(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand("compare", "PSNR (display-encoded) of images against a reference");
  cmd->add_option("--reference", args->reference, "reference image")->required();
  cmd->add_option("images", args->images, "images to compare")->required();
  cmd->add_option("--side-by-side", args->side_by_side, "write images then reference side by side (PNG)");
  cmd->callback([args] {
    validate(*args);
    if (!validate_only()) run_compare(*args);
  });
}

VX_REGISTER_COMMAND(compare, setup_compare);

}  // namespace
}  // namespace vx::cli

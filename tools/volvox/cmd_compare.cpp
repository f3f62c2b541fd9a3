// volvox compare: PSNR of images against a reference, and an optional side-by-side strip.
#include <cstdio>

#include "command.h"
#include "denoise/image_metrics.h"
#include "formats/image_io.h"

namespace vx::cli {
namespace {

struct CompareArgs {
  std::string reference;
  std::vector<std::string> images;
  std::string side_by_side;
};

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

void setup(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand("compare", "PSNR (display-encoded) of images against a reference");
  cmd->add_option("--reference", args->reference, "reference image")->required();
  cmd->add_option("images", args->images, "images to compare")->required();
  cmd->add_option("--side-by-side", args->side_by_side, "write images then reference side by side (PNG)");
  cmd->callback([args] { run_compare(*args); });
}

VX_REGISTER_COMMAND(compare, setup);

}  // namespace
}  // namespace vx::cli

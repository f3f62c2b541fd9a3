// Synthesises an HDR animation for the streaming benchmark (bench/denoise/stream_h200.sh): N frames of
// WIDTHxHEIGHT colour, albedo and normal as OpenEXR (half, as renderers write them), made by tiling
// the real render in ../shared/images (noisy.png decoded from sRGB and scaled by 4 to radiance above
// 1; albedo; normal from n*0.5+0.5) with a pan of (7, 3) pixels a frame, so frames differ as an
// animation's do. Without those images (--images '') the frames are procedural noise over gradients.
// Frames are written on all cores; rendering 1080p frames would take minutes on a small machine.
//   stream_frames --width 1920 --height 1088 --frames 200 --images ../shared/images -o DIR/f
//   -> DIR/f_0000_color.exr, DIR/f_0000_albedo.exr, DIR/f_0000_normal.exr, ...
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "formats/image_io.h"

namespace {

float srgb_to_linear(float v) { return v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f); }

// `src` (3+ channels) repeated over width x height, shifted by (dx, dy).
vx::Image tile(const vx::Image& src, int width, int height, int dx, int dy) {
  vx::Image out(width, height, 3);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c)
        out.at(x, y, c) = src.at((x + dx) % src.width, (y + dy) % src.height, std::min(c, src.channels - 1));
  return out;
}

vx::Image procedural(int which, int width, int height) {
  vx::Image img(width, height, 3);
  std::mt19937 rng(uint32_t(17 + which));
  std::uniform_real_distribution<float> noise(0.0f, 1.0f);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const float u = float(x) / float(width), v = float(y) / float(height);
      if (which == 0) {  // colour: a gradient with sample noise, radiance up to ~8
        for (int c = 0; c < 3; ++c) img.at(x, y, c) = (0.5f + 4.0f * u * v + 0.5f * float(c)) * noise(rng) * 2.0f;
      } else if (which == 1) {  // albedo
        img.at(x, y, 0) = 0.2f + 0.6f * u, img.at(x, y, 1) = 0.3f + 0.4f * v, img.at(x, y, 2) = 0.5f;
      } else {  // normal: a hemisphere of directions
        const float nx = 2 * u - 1, ny = 2 * v - 1, nz = std::sqrt(std::max(0.0f, 1 - 0.5f * (nx * nx + ny * ny)));
        const float len = std::sqrt(nx * nx * 0.25f + ny * ny * 0.25f + nz * nz);
        img.at(x, y, 0) = 0.5f * nx / len, img.at(x, y, 1) = 0.5f * ny / len, img.at(x, y, 2) = nz / len;
      }
    }
  return img;
}

int usage() {
  std::fprintf(stderr,
               "usage: stream_frames --width W --height H --frames N [--images DIR (default ../shared/images; '' "
               "for procedural)] [--compression zip|zip:LEVEL|zips|piz|rle|none] -o PREFIX\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int width = 0, height = 0, frames = 0;
  std::string images = "../shared/images", prefix;
  vx::ImageWriteOptions write;  // --compression zip (default), zip:1 .. zip:9, zips, piz, rle, none
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--width") width = std::atoi(value.c_str());
    else if (flag == "--height") height = std::atoi(value.c_str());
    else if (flag == "--frames") frames = std::atoi(value.c_str());
    else if (flag == "--images") images = value;
    else if (flag == "-o") prefix = value;
    else if (flag == "--compression") {
      const std::string name = value.substr(0, value.find(':'));
      if (name == "zip") write.exr_compression = vx::ExrCompression::zip;
      else if (name == "zips") write.exr_compression = vx::ExrCompression::zips;
      else if (name == "piz") write.exr_compression = vx::ExrCompression::piz;
      else if (name == "rle") write.exr_compression = vx::ExrCompression::rle;
      else if (name == "none") write.exr_compression = vx::ExrCompression::none;
      else return usage();
      if (value.find(':') != std::string::npos) write.exr_zip_level = std::atoi(value.c_str() + value.find(':') + 1);
    }
    else return usage();
  }
  if (argc % 2 == 0 || width <= 0 || height <= 0 || width > 16384 || height > 16384 || frames <= 0 ||
      frames > 100000 || prefix.empty())
    return usage();
  try {
    std::vector<vx::Image> sources;  // colour, albedo, normal
    const bool real = !images.empty() && std::filesystem::exists(std::filesystem::path(images) / "noisy.png");
    if (real) {
      vx::Image color = vx::read_image(std::filesystem::path(images) / "noisy.png");
      for (float& v : color.pixels) v = 4.0f * srgb_to_linear(v);
      vx::Image albedo = vx::read_image(std::filesystem::path(images) / "albedo.png");
      vx::Image normal = vx::read_image(std::filesystem::path(images) / "normal.png");
      for (float& v : normal.pixels) v = v * 2.0f - 1.0f;
      sources = {std::move(color), std::move(albedo), std::move(normal)};
    } else {
      for (int k = 0; k < 3; ++k) sources.push_back(procedural(k, std::max(width, 64), std::max(height, 64)));
    }
    std::fprintf(stderr, "%d frames of %dx%d from %s\n", frames, width, height,
                 real ? images.c_str() : "procedural noise");
    std::atomic<int> next{0}, failed{0};
    auto work = [&] {
      try {
        for (int f; (f = next++) < frames && !failed;) {
          char number[16];
          std::snprintf(number, sizeof number, "_%04d_", f);
          const char* names[3] = {"color", "albedo", "normal"};
          for (int k = 0; k < 3; ++k)
            vx::write_image(prefix + number + names[k] + ".exr", tile(sources[size_t(k)], width, height, 7 * f, 3 * f),
                            write);
        }
      } catch (const std::exception& e) {
        if (!failed++) std::fprintf(stderr, "stream_frames: %s\n", e.what());
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < std::max(1u, std::thread::hardware_concurrency()); ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    return failed ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stream_frames: %s\n", e.what());
    return 1;
  }
}

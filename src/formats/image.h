// An image on the host: width x height pixels of `channels` float32 values, interleaved, rows top
// to bottom. Every image file format reads into and writes from this.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace vx {

struct Image {
  int width = 0;
  int height = 0;
  int channels = 0;
  std::vector<float> pixels;  // width * height * channels

  Image() = default;
  Image(int w, int h, int c) : width(w), height(h), channels(c), pixels(size_t(w) * size_t(h) * size_t(c), 0.0f) {}
  float& at(int x, int y, int c) { return pixels[(size_t(y) * size_t(width) + size_t(x)) * size_t(channels) + size_t(c)]; }
  float at(int x, int y, int c) const {
    return pixels[(size_t(y) * size_t(width) + size_t(x)) * size_t(channels) + size_t(c)];
  }
  bool empty() const { return pixels.empty(); }
};

}  // namespace vx

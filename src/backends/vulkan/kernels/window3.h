// A sliding window (Conv, ConvTranspose, pooling) of 1 to 3 spatial axes padded to three, as the
// shaders take it: specialization constants in shaders/window_geometry.glsl's order.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "ops/window_geometry.h"

namespace vx::vk {

// A 1-D to 3-D window padded to three spatial axes (z, y, x): leading axes get extent 1 and pad 0.
struct Window3 {
  std::array<int32_t, 3> in{1, 1, 1}, kernel{1, 1, 1}, stride{1, 1, 1}, dilation{1, 1, 1}, pad_begin{0, 0, 0},
      pad_end{0, 0, 0}, out{1, 1, 1};
  // in, kernel, stride, dilation, pad_begin, out: 18 values (shaders/window_geometry.glsl order).
  std::vector<int32_t> spec_constants() const;
  int64_t in_size() const { return int64_t(in[0]) * in[1] * in[2]; }
  int64_t out_size() const { return int64_t(out[0]) * out[1] * out[2]; }
  int64_t kernel_size() const { return int64_t(kernel[0]) * kernel[1] * kernel[2]; }
};
Window3 window3(const WindowGeometry& g, const std::vector<int64_t>& input);

}  // namespace vx::vk

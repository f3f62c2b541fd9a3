#include "denoise/processing.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "core/thread_pool.h"

namespace vx::denoise {

namespace {
inline float nan_to_zero(float v) { return std::isnan(v) ? 0.0f : v; }
// Non-finite input pixels become 0 before anything else, as OIDN does: the output stays finite.
inline float finite_or_zero(float v) { return std::isfinite(v) ? v : 0.0f; }
inline float clampf(float v, float lo, float hi) { return std::fmin(std::fmax(v, lo), hi); }
}  // namespace

void process_input_tile(const ImageView& input, const ImageView* albedo, const ImageView* normal, const Tile& tile,
                        const ProcessingParams& params, Tensor& network_input) {
  const int64_t C = network_input.dim(1), H = network_input.dim(2), W = network_input.dim(3);
  VX_CHECK(C == params.input_channels, Internal, "input tensor has ", C, " channels, expected ",
           params.input_channels);
  VX_CHECK(C == 3 || albedo, Internal, "the network needs albedo");
  VX_CHECK(C != 9 || normal, Internal, "the network needs normals");
  float* data = network_input.data<float>();
  std::memset(data, 0, network_input.nbytes());
  const TransferFunction transfer(params.transfer);
  const float input_min = params.snorm ? -1.0f : 0.0f;
  const float input_max = params.hdr ? FLT_MAX : 1.0f;
  const size_t plane = size_t(H) * size_t(W);
  ThreadPool::global().parallel_for(tile.in_h, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int y = tile.in_y + int(row);
      float* dst = data + size_t(tile.buffer_y + row) * size_t(W) + size_t(tile.buffer_x);
      for (int col = 0; col < tile.in_w; ++col) {
        const int x = tile.in_x + col;
        float rgb[3];
        input.load3(x, y, rgb);
        for (int c = 0; c < 3; ++c) {
          float v = clampf(finite_or_zero(rgb[c]) * params.input_scale, input_min, input_max);
          if (params.snorm) v = v * 0.5f + 0.5f;
          dst[size_t(c) * plane + size_t(col)] = transfer.forward(v);
        }
        if (C >= 6) {
          albedo->load3(x, y, rgb);
          for (int c = 0; c < 3; ++c) dst[size_t(3 + c) * plane + size_t(col)] = clampf(finite_or_zero(rgb[c]), 0.0f, 1.0f);
        }
        if (C >= 9) {
          normal->load3(x, y, rgb);
          for (int c = 0; c < 3; ++c)
            dst[size_t(6 + c) * plane + size_t(col)] = clampf(finite_or_zero(rgb[c]), -1.0f, 1.0f) * 0.5f + 0.5f;
        }
      }
    }
  });
}

void process_output_tile(const Tensor& network_output, const Tile& tile, const ProcessingParams& params,
                         const ImageView& output) {
  const int64_t H = network_output.dim(2), W = network_output.dim(3);
  const float* data = network_output.data<float>();
  const TransferFunction transfer(params.transfer);
  const size_t plane = size_t(H) * size_t(W);
  const float inv_scale = 1.0f / params.input_scale;
  ThreadPool::global().parallel_for(tile.out_h, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const size_t by = size_t(tile.buffer_y + tile.out_offset_y + int(row));
      const int y = tile.out_y + int(row);
      for (int col = 0; col < tile.out_w; ++col) {
        const size_t bx = size_t(tile.buffer_x + tile.out_offset_x + col);
        float rgb[3];
        for (int c = 0; c < 3; ++c)
          rgb[c] = transfer.inverse(std::fmax(nan_to_zero(data[size_t(c) * plane + by * size_t(W) + bx]), 0.0f));
        // OIDN averages before the range clamps (a mean of clamped channels would differ).
        if (output.channels == 1) rgb[0] = rgb[1] = rgb[2] = (rgb[0] + rgb[1] + rgb[2]) * (1.0f / 3.0f);
        for (float& v : rgb) {
          if (params.snorm) v = std::fmax(v * 2.0f - 1.0f, -1.0f);
          if (!params.hdr) v = std::fmin(v, 1.0f);
          v = clampf(v * inv_scale, -FLT_MAX, FLT_MAX);  // a small inputScale must not overflow to Inf
        }
        const int x = tile.out_x + col;
        for (int c = 0; c < output.channels; ++c) output.store(x, y, c, rgb[c]);
      }
    }
  });
}

}  // namespace vx::denoise

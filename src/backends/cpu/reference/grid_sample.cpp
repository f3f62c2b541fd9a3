// GridSample (opset 16), 2-D: Y[n, c, i, j] samples X[n, c] at grid[n, i, j] = (x, y) in [-1, 1],
// modes bilinear / nearest / bicubic (A = -0.75), padding zeros / border / reflection,
// align_corners. Follows PyTorch's grid_sampler_2d, from which the ONNX test data comes: bilinear
// and nearest pad the continuous coordinate, bicubic pads each of its 4x4 taps.
#include <algorithm>
#include <cmath>

#include "backends/cpu/kernel_registry.h"
#include "core/error.h"

namespace vx::cpu::ref {
namespace {

enum class Padding { zeros, border, reflection };

double unnormalize(double g, int64_t size, bool align_corners) {
  return align_corners ? (g + 1) / 2 * double(size - 1) : ((g + 1) * double(size) - 1) / 2;
}

double reflect(double v, double twice_low, double twice_high) {
  if (twice_low == twice_high) return 0;
  const double low = twice_low / 2, span = (twice_high - twice_low) / 2;
  v = std::fabs(v - low);
  const double extra = std::fmod(v, span);
  const int64_t flips = int64_t(std::floor(v / span));
  return flips % 2 == 0 ? extra + low : span - extra + low;
}

double pad_coordinate(double v, int64_t size, Padding padding, bool align_corners) {
  if (padding == Padding::border) return std::clamp(v, 0.0, double(size - 1));
  if (padding == Padding::reflection) {
    v = align_corners ? reflect(v, 0, 2.0 * double(size - 1)) : reflect(v, -1, 2.0 * double(size) - 1);
    return std::clamp(v, 0.0, double(size - 1));
  }
  return v;
}

double cubic1(double x, double a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
double cubic2(double x, double a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

void grid_sample_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  const std::string what = "GridSample '" + node.name + "'";
  VX_CHECK(ctx.has_input(0) && ctx.has_input(1), InvalidArgument, what, ": needs X and grid");
  const Tensor &x = ctx.input(0), &grid = ctx.input(1);
  VX_CHECK(x.rank() == 4 && grid.rank() == 4 && grid.dim(0) == x.dim(0) && grid.dim(3) == 2, InvalidArgument, what,
           ": X ", x.shape().str(), " must be [N, C, H, W] and grid ", grid.shape().str(), " [N, H_out, W_out, 2]");
  const std::string mode = node.attrs.get_string("mode", "bilinear");
  const std::string pad_name = node.attrs.get_string("padding_mode", "zeros");
  VX_CHECK(mode == "bilinear" || mode == "nearest" || mode == "bicubic", Unsupported, what, ": mode '", mode, "'");
  VX_CHECK(pad_name == "zeros" || pad_name == "border" || pad_name == "reflection", Unsupported, what,
           ": padding_mode '", pad_name, "'");
  const Padding padding = pad_name == "zeros" ? Padding::zeros : pad_name == "border" ? Padding::border : Padding::reflection;
  const bool align = node.attrs.get_int("align_corners", 0) != 0;
  const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), Ho = grid.dim(1), Wo = grid.dim(2);
  Tensor& y = ctx.output(0, x.dtype(), Shape({N, C, Ho, Wo}));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t i = 0; i < Ho; ++i)
      for (int64_t j = 0; j < Wo; ++j) {
        const int64_t g = ((n * Ho + i) * Wo + j) * 2;
        const double ux = unnormalize(grid.get(g), W, align), uy = unnormalize(grid.get(g + 1), H, align);
        for (int64_t c = 0; c < C; ++c) {
          const int64_t base = (n * C + c) * H * W;
          auto at = [&](int64_t yy, int64_t xx) {
            return yy >= 0 && yy < H && xx >= 0 && xx < W ? x.get(base + yy * W + xx) : 0.0;
          };
          double v = 0;
          if (mode == "bicubic") {
            const double x0 = std::floor(ux), y0 = std::floor(uy), tx = ux - x0, ty = uy - y0;
            const double a = -0.75;
            const double cx[4] = {cubic2(tx + 1, a), cubic1(tx, a), cubic1(1 - tx, a), cubic2(2 - tx, a)};
            const double cy[4] = {cubic2(ty + 1, a), cubic1(ty, a), cubic1(1 - ty, a), cubic2(2 - ty, a)};
            for (int p = 0; p < 4; ++p)
              for (int q = 0; q < 4; ++q) {
                const double px = pad_coordinate(x0 - 1 + q, W, padding, align);
                const double py = pad_coordinate(y0 - 1 + p, H, padding, align);
                v += cy[p] * cx[q] * at(int64_t(py), int64_t(px));
              }
          } else {
            const double px = pad_coordinate(ux, W, padding, align), py = pad_coordinate(uy, H, padding, align);
            if (mode == "nearest") {
              v = at(int64_t(std::nearbyint(py)), int64_t(std::nearbyint(px)));
            } else {
              const double x0 = std::floor(px), y0 = std::floor(py), tx = px - x0, ty = py - y0;
              const int64_t xi = int64_t(x0), yi = int64_t(y0);
              v = (1 - ty) * ((1 - tx) * at(yi, xi) + tx * at(yi, xi + 1)) +
                  ty * ((1 - tx) * at(yi + 1, xi) + tx * at(yi + 1, xi + 1));
            }
          }
          y.set(((n * C + c) * Ho + i) * Wo + j, v);
        }
      }
}

}  // namespace

VX_REGISTER_CPU_KERNEL(grid_sample_reference, {"GridSample", "reference", 0, nullptr, grid_sample_kernel});

}  // namespace vx::cpu::ref

// Reference MaxPool: 1 to 3 spatial axes, kernel, strides, pads, dilations, ceil_mode, and the
// optional Indices output.
#include <limits>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/reference_ops.h"
#include "core/error.h"

namespace vx::cpu::ref {

void max_pool(const Tensor& x, const WindowGeometry& g, Tensor& y, Tensor* indices) {
  const size_t rank = g.rank();
  VX_CHECK(rank >= 1 && rank <= 3 && x.rank() == rank + 2 && y.rank() == rank + 2, InvalidArgument,
           "max_pool: X ", x.shape().str(), " and Y ", y.shape().str(), " must be N,C plus 1 to 3 spatial axes");
  auto pad3 = [&](const std::vector<int64_t>& v, int64_t fill) {
    std::vector<int64_t> r(3 - rank, fill);
    r.insert(r.end(), v.begin(), v.end());
    return r;
  };
  std::vector<int64_t> in_ext(x.shape().begin() + 2, x.shape().end());
  const auto in = pad3(in_ext, 1), out = pad3(g.output, 1), k = pad3(g.kernel, 1), s = pad3(g.strides, 1),
             d = pad3(g.dilations, 1), p = pad3(g.pads_begin, 0);
  VX_CHECK(y.dim(0) == x.dim(0) && y.dim(1) == x.dim(1), InvalidArgument, "max_pool: Y has shape ", y.shape().str());
  for (size_t i = 0; i < rank; ++i)
    VX_CHECK(y.dim(i + 2) == g.output[i], InvalidArgument, "max_pool: Y has shape ", y.shape().str());
  const int64_t planes = x.dim(0) * x.dim(1), in_plane = in[0] * in[1] * in[2], out_plane = out[0] * out[1] * out[2];
  const float* xp = x.data<float>();
  float* yp = y.data<float>();
  int64_t* ip = indices ? indices->data<int64_t>() : nullptr;
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t oz = 0; oz < out[0]; ++oz)
      for (int64_t oy = 0; oy < out[1]; ++oy)
        for (int64_t ox = 0; ox < out[2]; ++ox) {
          float best = -std::numeric_limits<float>::infinity();
          int64_t best_index = -1;
          for (int64_t kz = 0; kz < k[0]; ++kz) {
            const int64_t iz = oz * s[0] - p[0] + kz * d[0];
            if (iz < 0 || iz >= in[0]) continue;
            for (int64_t ky = 0; ky < k[1]; ++ky) {
              const int64_t iy = oy * s[1] - p[1] + ky * d[1];
              if (iy < 0 || iy >= in[1]) continue;
              for (int64_t kx = 0; kx < k[2]; ++kx) {
                const int64_t ix = ox * s[2] - p[2] + kx * d[2];
                if (ix < 0 || ix >= in[2]) continue;
                const int64_t at = pl * in_plane + (iz * in[1] + iy) * in[2] + ix;
                if (best_index < 0 || xp[at] > best) {
                  best = xp[at];
                  best_index = at;
                }
              }
            }
          }
          const int64_t o = pl * out_plane + (oz * out[1] + oy) * out[2] + ox;
          yp[o] = best;
          if (ip) ip[o] = best_index;
        }
}


}  // namespace vx::cpu::ref

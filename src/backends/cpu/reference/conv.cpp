// Reference Conv: direct loops, double accumulation, 1 to 3 spatial axes, groups, pads, strides,
// dilations (ONNX semantics).
#include <algorithm>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/reference_ops.h"
#include "core/error.h"

namespace vx::cpu::ref {

WindowGeometry conv_geometry(const Attributes& attrs, const Shape& x, const Shape& w, const std::string& what) {
  VX_CHECK(x.rank() >= 3 && x.rank() <= 5 && w.rank() == x.rank(), InvalidArgument, what, ": input ", x.str(),
           " and weights ", w.str(), " must both be N,C plus 1 to 3 spatial axes");
  std::vector<int64_t> in(x.begin() + 2, x.end()), k(w.begin() + 2, w.end());
  WindowGeometry g = window_geometry(attrs, in, k, false, what);
  VX_CHECK(g.kernel == k, InvalidArgument, what, ": kernel_shape does not match the weights ", w.str());
  return g;
}

void conv(const Tensor& x, const Tensor& w, const Tensor* bias, const WindowGeometry& g, int64_t group, Tensor& y,
          ThreadPool& pool) {
  const size_t rank = g.rank();
  VX_CHECK(rank >= 1 && rank <= 3 && x.rank() == rank + 2 && w.rank() == rank + 2 && y.rank() == rank + 2,
           InvalidArgument, "conv: ranks of X ", x.shape().str(), ", W ", w.shape().str(), ", Y ", y.shape().str(),
           " do not agree");
  const int64_t n = x.dim(0), c = x.dim(1), m = w.dim(0);
  VX_CHECK(group >= 1 && c % group == 0 && m % group == 0 && w.dim(1) == c / group, InvalidArgument, "conv: X ",
           x.shape().str(), " and W ", w.shape().str(), " do not fit group ", group);
  VX_CHECK(y.dim(0) == n && y.dim(1) == m, InvalidArgument, "conv: Y has shape ", y.shape().str());
  VX_CHECK(!bias || bias->numel() == m, InvalidArgument, "conv: bias has ", bias ? bias->numel() : 0, " values for ",
           m, " output channels");
  // Pad every geometry to 3 spatial axes (depth, height, width) with extent 1.
  auto pad3 = [&](const std::vector<int64_t>& v, int64_t fill) {
    std::vector<int64_t> r(3 - rank, fill);
    r.insert(r.end(), v.begin(), v.end());
    return r;
  };
  std::vector<int64_t> in_ext(x.shape().begin() + 2, x.shape().end());
  const auto in = pad3(in_ext, 1), out = pad3(g.output, 1), k = pad3(g.kernel, 1), s = pad3(g.strides, 1),
             d = pad3(g.dilations, 1), p = pad3(g.pads_begin, 0);
  for (size_t i = 0; i < rank; ++i)
    VX_CHECK(y.dim(i + 2) == g.output[i], InvalidArgument, "conv: Y has shape ", y.shape().str());
  const int64_t cg = c / group, mg = m / group;
  const int64_t in_plane = in[0] * in[1] * in[2], out_plane = out[0] * out[1] * out[2], k_size = k[0] * k[1] * k[2];
  const float* xp = x.data<float>();
  const float* wp = w.data<float>();
  const float* bp = bias ? bias->data<float>() : nullptr;
  float* yp = y.data<float>();
  pool.parallel_for(n * m, [&](int64_t begin, int64_t end) {
    for (int64_t nm = begin; nm < end; ++nm) {
      const int64_t b = nm / m, oc = nm % m, first_c = (oc / mg) * cg;
      for (int64_t oz = 0; oz < out[0]; ++oz)
        for (int64_t oy = 0; oy < out[1]; ++oy)
          for (int64_t ox = 0; ox < out[2]; ++ox) {
            double acc = bp ? double(bp[oc]) : 0.0;
            for (int64_t ic = 0; ic < cg; ++ic) {
              const float* xc = xp + (b * c + first_c + ic) * in_plane;
              const float* wc = wp + (oc * cg + ic) * k_size;
              for (int64_t kz = 0; kz < k[0]; ++kz) {
                const int64_t iz = oz * s[0] - p[0] + kz * d[0];
                if (iz < 0 || iz >= in[0]) continue;
                for (int64_t ky = 0; ky < k[1]; ++ky) {
                  const int64_t iy = oy * s[1] - p[1] + ky * d[1];
                  if (iy < 0 || iy >= in[1]) continue;
                  for (int64_t kx = 0; kx < k[2]; ++kx) {
                    const int64_t ix = ox * s[2] - p[2] + kx * d[2];
                    if (ix < 0 || ix >= in[2]) continue;
                    acc += double(xc[(iz * in[1] + iy) * in[2] + ix]) * double(wc[(kz * k[1] + ky) * k[2] + kx]);
                  }
                }
              }
            }
            yp[(b * m + oc) * out_plane + (oz * out[1] + oy) * out[2] + ox] = float(acc);
          }
    }
  });
}

namespace {

void conv_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  const std::string what = "Conv '" + node.name + "'";
  VX_CHECK(ctx.has_input(0) && ctx.has_input(1), InvalidArgument, what, ": needs inputs X and W");
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  VX_CHECK(x.dtype() == DType::f32 && w.dtype() == DType::f32, Unsupported, what, ": only float32 is supported");
  const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  WindowGeometry g = conv_geometry(node.attrs, x.shape(), w.shape(), what);
  std::vector<int64_t> out = {x.dim(0), w.dim(0)};
  out.insert(out.end(), g.output.begin(), g.output.end());
  Tensor& y = ctx.output(0, DType::f32, Shape(out));
  conv(x, w, b, g, node.attrs.get_int("group", 1), y, ctx.pool());
}

}  // namespace

VX_REGISTER_CPU_KERNEL(conv_reference, {"Conv", "reference", 0, nullptr, conv_kernel});

}  // namespace vx::cpu::ref

// Reference ConvTranspose: output_padding, output_shape, pads and auto_pad, strides, dilations,
// groups and bias, 1 to 3 spatial axes; accumulated in double.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/broadcast.h"
#include "backends/cpu/reference/kernel_util.h"
#include "ops/conv_transpose_geometry.h"

namespace vx::cpu::ref {
namespace {

void conv_transpose_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const Attributes& attrs = ctx.node().attrs;
  const ConvTransposeGeometry geo = conv_transpose_geometry(attrs, x.shape(), w.shape(), node_label(ctx));
  const size_t nd = x.rank() - 2;
  const int64_t batch = x.dim(0), channels = x.dim(1), group = geo.group;
  const int64_t per_group_in = channels / group, per_group_out = w.dim(1), out_channels = per_group_out * group;
  const std::vector<int64_t> in(x.shape().begin() + 2, x.shape().end());
  const std::vector<int64_t>& strides = geo.strides;
  const std::vector<int64_t>& dilations = geo.dilations;
  const std::vector<int64_t>& kernel = geo.kernel;
  const std::vector<int64_t>& out = geo.output;
  const std::vector<int64_t>& pad_begin = geo.pads_begin;

  int64_t in_size = product(in, 0, nd), out_size = product(out, 0, nd), k_size = product(kernel, 0, nd);
  std::vector<double> xv = read_doubles(x), wv = read_doubles(w);
  std::vector<double> y(size_t(batch * out_channels * out_size), 0.0);
  if (ctx.has_input(2)) {
    std::vector<double> bias = read_doubles(ctx.input(2));
    VX_CHECK(int64_t(bias.size()) == out_channels, InvalidArgument, node_label(ctx), ": bias has ", bias.size(),
             " values for ", out_channels, " output channels");
    for (int64_t nb = 0; nb < batch; ++nb)
      for (int64_t c = 0; c < out_channels; ++c)
        std::fill_n(y.begin() + (nb * out_channels + c) * out_size, out_size, bias[size_t(c)]);
  }

  // For each (input position, kernel position) pair, the output position it adds to (or -1).
  std::vector<int64_t> in_strides = strides_of(in), k_strides = strides_of(kernel), out_strides = strides_of(out);
  std::vector<int64_t> target(size_t(in_size * k_size), -1);
  for (int64_t p = 0; p < in_size; ++p)
    for (int64_t q = 0; q < k_size; ++q) {
      int64_t offset = 0;
      bool inside = true;
      for (size_t d = 0; d < nd && inside; ++d) {
        int64_t ip = p / in_strides[d] % in[d], kq = q / k_strides[d] % kernel[d];
        int64_t o = ip * strides[d] + kq * dilations[d] - pad_begin[d];
        inside = o >= 0 && o < out[d];
        offset += o * out_strides[d];
      }
      if (inside) target[size_t(p * k_size + q)] = offset;
    }

  for (int64_t nb = 0; nb < batch; ++nb)
    for (int64_t g = 0; g < group; ++g)
      for (int64_t ci = g * per_group_in; ci < (g + 1) * per_group_in; ++ci) {
        const double* xp = xv.data() + (nb * channels + ci) * in_size;
        for (int64_t m = 0; m < per_group_out; ++m) {
          const double* wp = wv.data() + (ci * per_group_out + m) * k_size;
          double* yp = y.data() + (nb * out_channels + g * per_group_out + m) * out_size;
          for (int64_t p = 0; p < in_size; ++p) {
            double xval = xp[p];
            const int64_t* t = target.data() + p * k_size;
            for (int64_t q = 0; q < k_size; ++q)
              if (t[q] >= 0) yp[t[q]] += xval * wp[q];
          }
        }
      }
  write_doubles(ctx.output(0, x.dtype(), geo.output_shape), y);
}

}  // namespace

VX_REGISTER_CPU_KERNEL(conv_transpose, {"ConvTranspose", "reference", 0, nullptr, conv_transpose_kernel});

}  // namespace vx::cpu::ref

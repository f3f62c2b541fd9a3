// Reference ConvTranspose: output_padding, output_shape, pads and auto_pad, strides, dilations,
// groups and bias, 1 to 3 spatial axes; accumulated in double.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/broadcast.h"
#include "backends/cpu/reference/kernel_util.h"

namespace vx::cpu::ref {
namespace {

void conv_transpose_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const Attributes& attrs = ctx.node().attrs;
  VX_CHECK(x.rank() >= 3 && w.rank() == x.rank(), InvalidArgument, node_label(ctx), ": input ", x.shape().str(),
           " and weight ", w.shape().str(), " must be N-D images of equal rank");
  size_t nd = x.rank() - 2;
  int64_t batch = x.dim(0), channels = x.dim(1), group = attrs.get_int("group", 1);
  VX_CHECK(group >= 1 && channels % group == 0 && w.dim(0) == channels, InvalidArgument, node_label(ctx),
           ": weight ", w.shape().str(), " does not fit ", channels, " input channels in ", group, " groups");
  int64_t per_group_in = channels / group, per_group_out = w.dim(1), out_channels = per_group_out * group;

  auto per_axis = [&](const char* name, int64_t fallback) {
    std::vector<int64_t> v = attrs.get_ints(name);
    if (v.empty()) v.assign(nd, fallback);
    VX_CHECK(v.size() == nd, InvalidArgument, node_label(ctx), ": ", name, " has ", v.size(), " entries for ", nd,
             " spatial axes");
    return v;
  };
  std::vector<int64_t> strides = per_axis("strides", 1), dilations = per_axis("dilations", 1);
  std::vector<int64_t> output_padding = per_axis("output_padding", 0);
  std::vector<int64_t> kernel(w.shape().begin() + 2, w.shape().end());
  std::vector<int64_t> kernel_attr = attrs.get_ints("kernel_shape");
  VX_CHECK(kernel_attr.empty() || kernel_attr == kernel, InvalidArgument, node_label(ctx), ": kernel_shape ",
           Shape(kernel_attr).str(), " differs from the weight's ", Shape(kernel).str());
  std::vector<int64_t> pads = attrs.get_ints("pads");
  if (pads.empty()) pads.assign(2 * nd, 0);
  VX_CHECK(pads.size() == 2 * nd, InvalidArgument, node_label(ctx), ": pads has ", pads.size(), " entries");
  std::string auto_pad = attrs.get_string("auto_pad", "NOTSET");
  std::vector<int64_t> output_shape = attrs.get_ints("output_shape");
  if (output_shape.size() == nd + 2) output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  VX_CHECK(output_shape.empty() || output_shape.size() == nd, InvalidArgument, node_label(ctx),
           ": output_shape has ", output_shape.size(), " entries");

  std::vector<int64_t> in(x.shape().begin() + 2, x.shape().end()), out(nd), pad_begin(nd);
  for (size_t i = 0; i < nd; ++i) {
    VX_CHECK(strides[i] >= 1 && dilations[i] >= 1 && output_padding[i] >= 0, InvalidArgument, node_label(ctx),
             ": strides and dilations must be >= 1 and output_padding >= 0");
    int64_t full = strides[i] * (in[i] - 1) + output_padding[i] + (kernel[i] - 1) * dilations[i] + 1;
    if (!output_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      // The output extent is given (or in * stride): pad the difference, the odd one at the end
      // for SAME_UPPER and at the start otherwise (as ONNX Runtime does).
      out[i] = !output_shape.empty() ? output_shape[i] : in[i] * strides[i];
      int64_t total = std::max<int64_t>(0, full - out[i]);
      pad_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else if (auto_pad == "VALID") {
      out[i] = full;
      pad_begin[i] = 0;
    } else {
      VX_CHECK(auto_pad == "NOTSET", Unsupported, node_label(ctx), ": unknown auto_pad '", auto_pad, "'");
      out[i] = full - pads[i] - pads[i + nd];
      pad_begin[i] = pads[i];
    }
    VX_CHECK(out[i] >= 0, InvalidArgument, node_label(ctx), ": negative output extent on spatial axis ", i);
  }

  std::vector<int64_t> out_dims = {batch, out_channels};
  out_dims.insert(out_dims.end(), out.begin(), out.end());
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
  write_doubles(ctx.output(0, x.dtype(), Shape(out_dims)), y);
}

}  // namespace

VX_REGISTER_CPU_KERNEL(conv_transpose, {"ConvTranspose", "reference", 0, nullptr, conv_transpose_kernel});

}  // namespace vx::cpu::ref

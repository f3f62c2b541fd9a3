// ConvInteger (opset 10): Y (int32) = conv(X - x_zero_point, W - w_zero_point) on 8-bit integer
// inputs; QLinearConv (opset 10): the same accumulation plus the int32 bias, requantised with
// x_scale * w_scale / y_scale (w_scale per tensor or per output channel), rounded half to even and
// saturated to y's 8-bit type. The zero-point-shifted values become float32 (exact) and go through the float reference
// convolution, which accumulates in double: exact for every sum an int32 can hold up to 2^53.
// Padding contributes zero after the shift, as ONNX specifies.
#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/reference_ops.h"
#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace vx::cpu::ref {
namespace {

// X or W as float32 minus its zero point: a scalar, or (W only) one per output channel.
Tensor shifted(const Tensor& t, const Tensor* zero_point, const std::string& what, const char* name) {
  VX_CHECK(t.dtype() == DType::u8 || t.dtype() == DType::i8, InvalidArgument, what, ": ", name,
           " must be uint8 or int8, not ", dtype_name(t.dtype()));
  const int64_t channels = t.rank() > 0 ? t.dim(0) : 1;
  const int64_t zp_count = zero_point ? zero_point->numel() : 0;
  VX_CHECK(!zero_point || zp_count == 1 || (zp_count == channels && std::string(name) == "W"), InvalidArgument,
           what, ": ", name, "'s zero point has ", zp_count, " values");
  if (zero_point)
    VX_CHECK(zero_point->dtype() == t.dtype(), InvalidArgument, what, ": ", name, "'s zero point has dtype ",
             dtype_name(zero_point->dtype()), ", ", name, " has ", dtype_name(t.dtype()));
  Tensor out(DType::f32, t.shape());
  float* o = out.data<float>();
  const int64_t per_channel = channels > 0 ? t.numel() / channels : 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    double zp = 0;
    if (zp_count == 1) zp = zero_point->get(0);
    else if (zp_count > 1) zp = zero_point->get(i / per_channel);
    o[i] = float(t.get(i) - zp);
  }
  return out;
}

void conv_integer_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  const std::string what = "ConvInteger '" + node.name + "'";
  VX_CHECK(ctx.has_input(0) && ctx.has_input(1), InvalidArgument, what, ": needs inputs X and W");
  const Tensor x = shifted(ctx.input(0), ctx.has_input(2) ? &ctx.input(2) : nullptr, what, "X");
  const Tensor w = shifted(ctx.input(1), ctx.has_input(3) ? &ctx.input(3) : nullptr, what, "W");
  WindowGeometry g = conv_geometry(node.attrs, x.shape(), w.shape(), what);
  std::vector<int64_t> dims = {x.dim(0), w.dim(0)};
  dims.insert(dims.end(), g.output.begin(), g.output.end());
  Tensor y(DType::f32, Shape(dims));
  conv(x, w, nullptr, g, node.attrs.get_int("group", 1), y, ctx.pool());
  Tensor& out = ctx.output(0, DType::i32, Shape(dims));
  const float* yp = y.data<float>();
  int32_t* op = out.data<int32_t>();
  for (int64_t i = 0; i < y.numel(); ++i) op[i] = int32_t(std::lrint(yp[i]));
}

void qlinear_conv_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  const std::string what = "QLinearConv '" + node.name + "'";
  for (size_t i = 0; i < 8; ++i) VX_CHECK(ctx.has_input(i), InvalidArgument, what, ": input ", i, " is required");
  const Tensor x = shifted(ctx.input(0), &ctx.input(2), what, "X");
  const Tensor w = shifted(ctx.input(3), &ctx.input(5), what, "W");
  const double x_scale = ctx.input(1).get(0), y_scale = ctx.input(6).get(0);
  const Tensor& w_scale = ctx.input(4);
  const Tensor& y_zero = ctx.input(7);
  VX_CHECK(y_zero.dtype() == DType::u8 || y_zero.dtype() == DType::i8, InvalidArgument, what,
           ": y_zero_point must be uint8 or int8");
  VX_CHECK(y_scale != 0, InvalidArgument, what, ": y_scale is 0");
  WindowGeometry g = conv_geometry(node.attrs, x.shape(), w.shape(), what);
  std::vector<int64_t> dims = {x.dim(0), w.dim(0)};
  dims.insert(dims.end(), g.output.begin(), g.output.end());
  const int64_t m = w.dim(0);
  VX_CHECK(w_scale.numel() == 1 || w_scale.numel() == m, InvalidArgument, what, ": w_scale has ", w_scale.numel(),
           " values for ", m, " output channels");
  const Tensor* bias = ctx.has_input(8) ? &ctx.input(8) : nullptr;
  VX_CHECK(!bias || bias->numel() == m, InvalidArgument, what, ": B has ", bias ? bias->numel() : 0, " values");
  Tensor acc(DType::f32, Shape(dims));
  conv(x, w, nullptr, g, node.attrs.get_int("group", 1), acc, ctx.pool());
  Tensor& out = ctx.output(0, y_zero.dtype(), Shape(dims));
  const double lo = y_zero.dtype() == DType::u8 ? 0 : -128, hi = y_zero.dtype() == DType::u8 ? 255 : 127;
  const int64_t per_channel = acc.numel() / (dims[0] * m);
  for (int64_t i = 0; i < acc.numel(); ++i) {
    const int64_t c = (i / per_channel) % m;
    const double a = double(acc.data<float>()[i]) + (bias ? bias->get(c) : 0.0);
    const double scale = x_scale * w_scale.get(w_scale.numel() == 1 ? 0 : c) / y_scale;
    out.set(i, std::clamp(std::nearbyint(a * scale) + y_zero.get(0), lo, hi));
  }
}

}  // namespace

VX_REGISTER_CPU_KERNEL(qlinear_conv_reference, {"QLinearConv", "reference", 0, nullptr, qlinear_conv_kernel});
VX_REGISTER_CPU_KERNEL(conv_integer_reference, {"ConvInteger", "reference", 0, nullptr, conv_integer_kernel});

}  // namespace vx::cpu::ref

// Reference linear quantisation: QuantizeLinear (to uint8 / int8 / int32, per tensor or per axis,
// rounding half to even), DequantizeLinear, DynamicQuantizeLinear, and vx.FakeQuantize (a per-tensor
// QuantizeLinear -> DequantizeLinear pair, ops/fused_ops.h).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/broadcast.h"
#include "backends/cpu/reference/kernel_util.h"
#include "ops/fused_ops.h"

namespace vx::cpu::ref {
namespace {

// ---- quantisation ----

// Broadcasts a per-tensor (one value) or per-axis (1-D, extent of `axis`) parameter over `shape`:
// the parameter index of each element.
std::vector<size_t> per_axis_index(const Shape& shape, const Tensor& param, int64_t axis_attr,
                                   const KernelContext& ctx) {
  std::vector<size_t> idx(size_t(shape.numel()), 0);
  if (param.numel() == 1 && param.rank() <= 1) return idx;
  VX_CHECK(param.rank() == 1, InvalidArgument, node_label(ctx), ": scale / zero point must be a scalar or 1-D, got ",
           param.shape().str());
  size_t axis = size_t(normalize_axis(axis_attr, int64_t(shape.rank()), ctx));
  VX_CHECK(param.numel() == shape[axis], InvalidArgument, node_label(ctx), ": ", param.numel(),
           " per-axis parameters for extent ", shape[axis]);
  int64_t inner = product(shape.dims(), axis + 1, shape.rank());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = size_t(int64_t(i) / inner % shape[axis]);
  return idx;
}

void quantize_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& scale = ctx.input(1);
  int64_t axis = ctx.node().attrs.get_int("axis", 1);
  DType out_type = ctx.has_input(2) ? ctx.input(2).dtype() : DType::u8;
  VX_CHECK(out_type == DType::u8 || out_type == DType::i8 || out_type == DType::i32, Unsupported, node_label(ctx),
           ": cannot quantize to ", dtype_name(out_type));
  double lo = out_type == DType::u8 ? 0 : out_type == DType::i8 ? -128 : -2147483648.0;
  double hi = out_type == DType::u8 ? 255 : out_type == DType::i8 ? 127 : 2147483647.0;
  std::vector<size_t> scale_at = per_axis_index(x.shape(), scale, axis, ctx);
  std::vector<size_t> zero_at = ctx.has_input(2) ? per_axis_index(x.shape(), ctx.input(2), axis, ctx) : scale_at;
  std::vector<double> sv = read_doubles(scale), zv = ctx.has_input(2) ? read_doubles(ctx.input(2)) : std::vector<double>(sv.size(), 0.0);
  Tensor& y = ctx.output(0, out_type, x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    // Divide in float as the spec's runtimes do, then round half to even.
    float q = float(x.get(i)) / float(sv[scale_at[size_t(i)]]);
    double v = std::nearbyint(double(q)) + zv[zero_at[size_t(i)]];
    y.set(i, std::clamp(v, lo, hi));
  }
}

void dequantize_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& scale = ctx.input(1);
  int64_t axis = ctx.node().attrs.get_int("axis", 1);
  std::vector<size_t> scale_at = per_axis_index(x.shape(), scale, axis, ctx);
  std::vector<size_t> zero_at = ctx.has_input(2) ? per_axis_index(x.shape(), ctx.input(2), axis, ctx) : scale_at;
  std::vector<double> sv = read_doubles(scale), zv = ctx.has_input(2) ? read_doubles(ctx.input(2)) : std::vector<double>(sv.size(), 0.0);
  Tensor& y = ctx.output(0, scale.dtype(), x.shape());
  for (int64_t i = 0; i < x.numel(); ++i)
    y.set(i, double(float(x.get(i) - zv[zero_at[size_t(i)]]) * float(sv[scale_at[size_t(i)]])));
}

// The pair's two steps as the kernels above compute them: divide in float, round half to even, add
// the zero point and clamp (the quantised value), then subtract the zero point and multiply by the
// scale in float.
void fake_quantize_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.dtype() == DType::f32, InvalidArgument, node_label(ctx), ": expects float32, got ", dtype_name(x.dtype()));
  const Attributes& a = ctx.node().attrs;
  const float scale = a.get_float("scale", 1.0f);
  const double zero = double(a.get_int("zero_point", 0));
  const double lo = double(a.get_int("qmin", 0)), hi = double(a.get_int("qmax", 255));
  Tensor& y = ctx.output(0, DType::f32, x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double q = std::clamp(std::nearbyint(double(x.data<float>()[i] / scale)) + zero, lo, hi);
    y.data<float>()[i] = float(q - zero) * scale;
  }
}

// u8 quantisation with a scale and zero point chosen from the data's range (which includes 0).
void dynamic_quantize_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  std::vector<float> v = read_floats(x);
  float lo = 0, hi = 0;
  for (float e : v) {
    lo = std::min(lo, e);
    hi = std::max(hi, e);
  }
  float scale = (hi - lo) / 255.0f;
  float zero = scale == 0 ? 0.0f : std::clamp(std::nearbyint(0.0f - lo / scale), 0.0f, 255.0f);
  Tensor& y = ctx.output(0, DType::u8, x.shape());
  for (size_t i = 0; i < v.size(); ++i)
    y.set(int64_t(i), scale == 0 ? zero : std::clamp(std::nearbyint(v[i] / scale) + zero, 0.0f, 255.0f));
  ctx.output(1, DType::f32, Shape{}).set(0, scale);
  ctx.output(2, DType::u8, Shape{}).set(0, zero);
}

}  // namespace

VX_REGISTER_CPU_KERNEL(quantize_linear, {"QuantizeLinear", "reference", 0, nullptr, quantize_kernel});
VX_REGISTER_CPU_KERNEL(dequantize_linear, {"DequantizeLinear", "reference", 0, nullptr, dequantize_kernel});
VX_REGISTER_CPU_KERNEL(fake_quantize, {kFakeQuantize, "reference", 0, nullptr, fake_quantize_kernel});
VX_REGISTER_CPU_KERNEL(dynamic_quantize_linear,
                       {"DynamicQuantizeLinear", "reference", 0, nullptr, dynamic_quantize_kernel});

}  // namespace vx::cpu::ref

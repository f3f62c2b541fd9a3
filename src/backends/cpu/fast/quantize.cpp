// QuantizeLinear (float32 to uint8 / int8 / int32) and DequantizeLinear (those to float32), per
// tensor or per axis, and vx.FakeQuantize (a per-tensor pair fused, ops/fused_ops.h), over the
// thread pool: the Q / DQ pairs of a quantised (QDQ) model's activations ran on the reference,
// which converts every element through double and allocates an index per element. The arithmetic
// is the reference's (reference/quantize.cpp): quantising divides in float, rounds half to even,
// adds the zero point and clamps in double; dequantising subtracts the zero point in double, rounds
// to float and multiplies by the scale in float. Scales must be float32; parameters of another
// shape than one value or one per element of the axis go to the reference, which reports them.
// vx.FakeQuantize computes both steps in one pass; it is a layout follower (cpu_layout.h): the
// loop runs over the raw buffer in whatever layout the value has.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/fused_ops.h"
#include "ops/shape_rules.h"

namespace vx::cpu::fast {
namespace {

constexpr int64_t kQuantizeElementsPerTask = 16384;

bool integer_type(DType t) { return t == DType::u8 || t == DType::i8 || t == DType::i32; }

// The element's parameter index is (i / inner) % extent; per tensor, extent 1.
struct ParamLayout {
  int64_t extent = 1, inner = 1;
};

// How a scale (and zero point) of this shape spreads over `x`; false when it cannot (the reference
// reports why).
bool param_layout(const Shape& x, const Tensor& param, int64_t axis_attr, ParamLayout& out) {
  if (param.numel() == 1 && param.rank() <= 1) {
    out = {1, std::max<int64_t>(1, x.numel())};
    return true;
  }
  if (param.rank() != 1 || axis_attr < -int64_t(x.rank()) || axis_attr >= int64_t(x.rank())) return false;
  const size_t axis = size_t(axis_attr < 0 ? axis_attr + int64_t(x.rank()) : axis_attr);
  if (param.numel() != x[axis]) return false;
  int64_t inner = 1;
  for (size_t d = axis + 1; d < x.rank(); ++d) inner *= x[d];
  out = {x[axis], inner};
  return true;
}

// Zero points as double (0 without them), one per parameter.
template <class Z>
void read_zero_points(const Tensor& z, std::vector<double>& out) {
  for (int64_t i = 0; i < z.numel(); ++i) out[size_t(i)] = double(z.data<Z>()[i]);
}
bool zero_points(KernelContext& ctx, int64_t count, std::vector<double>& out) {
  out.assign(size_t(count), 0.0);
  if (!ctx.has_input(2)) return true;
  const Tensor& z = ctx.input(2);
  if (z.numel() != count) return false;
  switch (z.dtype()) {
    case DType::u8: read_zero_points<uint8_t>(z, out); return true;
    case DType::i8: read_zero_points<int8_t>(z, out); return true;
    case DType::i32: read_zero_points<int32_t>(z, out); return true;
    default: return false;
  }
}

// Runs fn(begin, end, parameter) over runs of elements that share a parameter, threaded.
template <class Fn>
void for_each_run(ThreadPool& pool, int64_t n, const ParamLayout& p, Fn&& fn) {
  if (n == 0) return;
  const int64_t runs = (n + p.inner - 1) / p.inner;
  if (p.inner >= kQuantizeElementsPerTask) {  // long runs (per tensor, or large planes): blocks within them
    const int64_t blocks_per_run = (p.inner + kQuantizeElementsPerTask - 1) / kQuantizeElementsPerTask;
    pool.parallel_for(runs * blocks_per_run, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const int64_t run = b / blocks_per_run, begin = run * p.inner + (b % blocks_per_run) * kQuantizeElementsPerTask;
        fn(begin, std::min({n, (run + 1) * p.inner, begin + kQuantizeElementsPerTask}), run % p.extent);
      }
    });
    return;
  }
  pool.parallel_for(runs, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) fn(r * p.inner, std::min(n, (r + 1) * p.inner), r % p.extent);
  }, std::max<int64_t>(1, kQuantizeElementsPerTask / p.inner));
}

template <class Q>
void quantize_range(const float* x, Q* y, int64_t begin, int64_t end, float scale, double zero, double lo, double hi) {
  for (int64_t i = begin; i < end; ++i) {
    const double v = double(std::nearbyint(x[i] / scale)) + zero;
    y[i] = Q(v < lo ? lo : (hi < v ? hi : v));
  }
}

template <class Q>
void dequantize_range(const Q* x, float* y, int64_t begin, int64_t end, float scale, double zero) {
  for (int64_t i = begin; i < end; ++i) y[i] = float(double(x[i]) - zero) * scale;
}

// Q then DQ of one element. For uint8 / int8 the float sum of the rounded quotient and the zero
// point is exact wherever it is not clamped, so float arithmetic gives the reference's double result.
inline float fake_quantize_value(float x, float scale, float zero, float lo, float hi) {
  const float v = std::nearbyint(x / scale) + zero;
  return ((v < lo ? lo : (hi < v ? hi : v)) - zero) * scale;
}

void fake_quantize_range(const float* x, float* y, int64_t begin, int64_t end, float scale, float zero, float lo,
                         float hi) {
  for (int64_t i = begin; i < end; ++i) y[i] = fake_quantize_value(x[i], scale, zero, lo, hi);
}

bool fake_quantize_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] {
    if (node.input(0) == kNoValue || g.value(node.input(0)).dtype != DType::f32 || node.outputs.size() != 1)
      return false;
    const int64_t lo = node.attrs.get_int("qmin", 0), hi = node.attrs.get_int("qmax", 255);
    node.attrs.get_float("scale", 1.0f);
    node.attrs.get_int("zero_point", 0);
    return lo >= -128 && hi <= 255 && lo <= hi;  // 8-bit ranges: the float sum is exact
  });
}

void fake_quantize_fast(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Attributes& a = ctx.node().attrs;
  const float scale = a.get_float("scale", 1.0f), zero = float(a.get_int("zero_point", 0));
  const float lo = float(a.get_int("qmin", 0)), hi = float(a.get_int("qmax", 255));
  const float* in = x.data<float>();
  float* out = ctx.output(0, DType::f32, x.shape()).data<float>();
  const ParamLayout per_tensor{1, std::max<int64_t>(1, x.numel())};
  for_each_run(ctx.pool(), x.numel(), per_tensor, [&](int64_t begin, int64_t end, int64_t) {
    fake_quantize_range(in, out, begin, end, scale, zero, lo, hi);
  });
}

bool quantize_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] {
    if (node.input(0) == kNoValue || node.input(1) == kNoValue || node.outputs.size() != 1) return false;
    if (g.value(node.input(0)).dtype != DType::f32 || g.value(node.input(1)).dtype != DType::f32) return false;
    node.attrs.get_int("axis", 1);
    return node.input(2) == kNoValue || integer_type(g.value(node.input(2)).dtype);
  });
}

KernelFn make_quantize(const Node& node, const Graph&) {
  return [reference = reference_kernel_of(node)](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const DType to = ctx.has_input(2) ? ctx.input(2).dtype() : DType::u8;
    ParamLayout p;
    std::vector<double> zero;
    const int64_t axis = ctx.node().attrs.get_int("axis", 1);
    if (x.dtype() != DType::f32 || scale.dtype() != DType::f32 || !integer_type(to) ||
        !param_layout(x.shape(), scale, axis, p) || !zero_points(ctx, scale.numel(), zero))
      return reference(ctx);
    Tensor& y = ctx.output(0, to, x.shape());
    const float* in = x.data<float>();
    const float* s = scale.data<float>();
    const double lo = to == DType::u8 ? 0 : to == DType::i8 ? -128 : -2147483648.0;
    const double hi = to == DType::u8 ? 255 : to == DType::i8 ? 127 : 2147483647.0;
    for_each_run(ctx.pool(), x.numel(), p, [&](int64_t begin, int64_t end, int64_t c) {
      switch (to) {
        case DType::u8: return quantize_range(in, y.data<uint8_t>(), begin, end, s[c], zero[size_t(c)], lo, hi);
        case DType::i8: return quantize_range(in, y.data<int8_t>(), begin, end, s[c], zero[size_t(c)], lo, hi);
        default: return quantize_range(in, y.data<int32_t>(), begin, end, s[c], zero[size_t(c)], lo, hi);
      }
    });
  };
}

bool dequantize_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] {
    if (node.input(0) == kNoValue || node.input(1) == kNoValue || node.outputs.size() != 1) return false;
    if (!integer_type(g.value(node.input(0)).dtype) || g.value(node.input(1)).dtype != DType::f32) return false;
    node.attrs.get_int("axis", 1);
    return node.input(2) == kNoValue || g.value(node.input(2)).dtype == g.value(node.input(0)).dtype;
  });
}

KernelFn make_dequantize(const Node& node, const Graph&) {
  return [reference = reference_kernel_of(node)](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    ParamLayout p;
    std::vector<double> zero;
    const int64_t axis = ctx.node().attrs.get_int("axis", 1);
    if (!integer_type(x.dtype()) || scale.dtype() != DType::f32 || !param_layout(x.shape(), scale, axis, p) ||
        !zero_points(ctx, scale.numel(), zero))
      return reference(ctx);
    float* out = ctx.output(0, DType::f32, x.shape()).data<float>();
    const float* s = scale.data<float>();
    for_each_run(ctx.pool(), x.numel(), p, [&](int64_t begin, int64_t end, int64_t c) {
      switch (x.dtype()) {
        case DType::u8: return dequantize_range(x.data<uint8_t>(), out, begin, end, s[c], zero[size_t(c)]);
        case DType::i8: return dequantize_range(x.data<int8_t>(), out, begin, end, s[c], zero[size_t(c)]);
        default: return dequantize_range(x.data<int32_t>(), out, begin, end, s[c], zero[size_t(c)]);
      }
    });
  };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(quantize_linear_fast,
                       {"QuantizeLinear", kFastVariant, 10, quantize_supports, nullptr, make_quantize});
VX_REGISTER_CPU_KERNEL(fake_quantize_fast,
                       {kFakeQuantize, kFastVariant, 10, fake_quantize_supports, fake_quantize_fast});
VX_REGISTER_CPU_KERNEL(dequantize_linear_fast,
                       {"DequantizeLinear", kFastVariant, 10, dequantize_supports, nullptr, make_dequantize});

}  // namespace vx::cpu::fast

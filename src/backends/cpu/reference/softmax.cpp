// Reference Softmax, LogSoftmax and Hardmax: opset < 13 coerces the input to 2-D at `axis`
// (default 1), 13+ works along one axis (default -1). Sums in double.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "backends/cpu/reference/math_util.h"

namespace vx::cpu::ref {
namespace {

enum class SoftKind { softmax, log_softmax, hardmax };

template <SoftKind kind>
void softmax_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.dtype() == DType::f32, Unsupported, node_label(ctx), ": floats only");
  const int64_t rank = int64_t(x.rank());
  const bool legacy = ctx.opset() > 0 && ctx.opset() < 13;
  const int64_t axis = normalize_axis(ctx.node().attrs.get_int("axis", legacy ? 1 : -1), rank, ctx);
  AxisSplit s = split_at(x.shape(), axis);
  if (legacy) {  // coerce to 2-D: [prod(dims before axis), prod(dims from axis)]
    s.n *= s.inner;
    s.inner = 1;
  }
  Tensor& y = ctx.output(0, DType::f32, x.shape());
  const float* in = x.data<float>();
  float* out = y.data<float>();
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i) {
      const float* p = in + o * s.n * s.inner + i;
      float* q = out + o * s.n * s.inner + i;
      float m = -std::numeric_limits<float>::infinity();
      int64_t arg = 0;
      for (int64_t k = 0; k < s.n; ++k)
        if (p[k * s.inner] > m) m = p[k * s.inner], arg = k;
      if constexpr (kind == SoftKind::hardmax) {
        for (int64_t k = 0; k < s.n; ++k) q[k * s.inner] = k == arg ? 1.0f : 0.0f;
        continue;
      }
      double sum = 0;
      for (int64_t k = 0; k < s.n; ++k) sum += std::exp(double(p[k * s.inner]) - m);
      for (int64_t k = 0; k < s.n; ++k) {
        double v = double(p[k * s.inner]) - m;
        if constexpr (kind == SoftKind::softmax) q[k * s.inner] = float(std::exp(v) / sum);
        else q[k * s.inner] = float(v - std::log(sum));
      }
    }
}

}  // namespace

VX_REGISTER_CPU_KERNEL(softmax, {"Softmax", "reference", 0, nullptr, with_f16_as_f32(softmax_kernel<SoftKind::softmax>)});
VX_REGISTER_CPU_KERNEL(log_softmax, {"LogSoftmax", "reference", 0, nullptr,
                                     with_f16_as_f32(softmax_kernel<SoftKind::log_softmax>)});
VX_REGISTER_CPU_KERNEL(hardmax, {"Hardmax", "reference", 0, nullptr, with_f16_as_f32(softmax_kernel<SoftKind::hardmax>)});

}  // namespace vx::cpu::ref

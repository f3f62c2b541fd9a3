// Reference CumSum: exclusive, reverse, the axis a scalar input; any numeric dtype, accumulated in
// the element type.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "backends/cpu/reference/math_util.h"

namespace vx::cpu::ref {
namespace {

void cumsum_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  std::vector<int64_t> axis_v = int_values(ctx.input(1), ctx, "axis");
  VX_CHECK(axis_v.size() == 1, InvalidArgument, node_label(ctx), ": axis must be a scalar");
  const int64_t axis = normalize_axis(axis_v[0], int64_t(x.rank()), ctx);
  const bool exclusive = ctx.node().attrs.get_int("exclusive", 0) != 0;
  const bool reverse = ctx.node().attrs.get_int("reverse", 0) != 0;
  AxisSplit s = split_at(x.shape(), axis);
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  dispatch<kNumeric>(x.dtype(), ctx, [&](auto t) {
    using T = decltype(t);
    const T* in = x.data<T>();
    T* out = y.data<T>();
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t i = 0; i < s.inner; ++i) {
        const int64_t base = o * s.n * s.inner + i;
        T acc = T(0);
        for (int64_t j = 0; j < s.n; ++j) {
          int64_t k = reverse ? s.n - 1 - j : j;
          T v = in[base + k * s.inner];
          if (exclusive) {
            out[base + k * s.inner] = acc;
            acc = T(acc + v);
          } else {
            acc = T(acc + v);
            out[base + k * s.inner] = acc;
          }
        }
      }
  });
}

}  // namespace

VX_REGISTER_CPU_KERNEL(cumsum, {"CumSum", "reference", 0, nullptr, with_f16_as_f32(cumsum_kernel)});

}  // namespace vx::cpu::ref

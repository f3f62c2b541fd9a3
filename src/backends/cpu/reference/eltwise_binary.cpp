// Reference kernels for ONNX's broadcasting element-wise ops on two or more inputs: Add, Sub, Mul,
// Div, Pow, Mod, BitShift, PRelu, Min, Max, Sum, Mean, Where. Integer arithmetic wraps (computed
// unsigned) and integer division by zero yields 0 rather than trapping.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "backends/cpu/reference/math_util.h"

namespace vx::cpu::ref {
namespace {

// out[i] = op(a[ia], b[ib]) over the broadcast of a and b (out already has the broadcast shape).
template <class A, class B, class Out, class Op>
void binary_apply(const Tensor& a, const Tensor& b, Tensor& out, Op op) {
  const A* pa = a.data<A>();
  const B* pb = b.data<B>();
  Out* po = out.data<Out>();
  if (a.shape() == out.shape() && b.shape() == out.shape()) {
    for (int64_t i = 0; i < out.numel(); ++i) po[i] = op(pa[i], pb[i]);
    return;
  }
  std::array<std::vector<int64_t>, 2> strides{broadcast_strides(a.shape(), out.shape()),
                                              broadcast_strides(b.shape(), out.shape())};
  for_each_broadcast<2>(out.shape(), strides,
                        [&](int64_t i, const std::array<int64_t, 2>& o) { po[i] = op(pa[o[0]], pb[o[1]]); });
}

void check_same_dtype(const KernelContext& ctx, const Tensor& a, const Tensor& b) {
  VX_CHECK(a.dtype() == b.dtype(), InvalidArgument, node_label(ctx), ": inputs have different element types (",
           dtype_name(a.dtype()), " and ", dtype_name(b.dtype()), ")");
}

// Wrapping integer arithmetic without undefined behaviour.
template <class T>
T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) return T(uint64_t(a) + uint64_t(b));
  else return a + b;
}
template <class T>
T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>) return T(uint64_t(a) - uint64_t(b));
  else return a - b;
}
template <class T>
T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) return T(uint64_t(a) * uint64_t(b));
  else return a * b;
}
template <class T>
T safe_div(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>)
      if (a == std::numeric_limits<T>::min() && b == T(-1)) return a;
    return T(a / b);
  } else {
    return a / b;
  }
}

template <class T>
T max_propagating_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  return a < b ? b : a;
}
template <class T>
T min_propagating_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  return b < a ? b : a;
}

enum class Arith { add, sub, mul, div };

template <Arith kind>
void arith_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  check_same_dtype(ctx, a, b);
  Tensor& out = ctx.output(0, a.dtype(), broadcast_shapes(a.shape(), b.shape()));
  dispatch<kNumeric>(a.dtype(), ctx, [&](auto t) {
    using T = decltype(t);
    binary_apply<T, T, T>(a, b, out, [](T x, T y) {
      if constexpr (kind == Arith::add) return wrap_add(x, y);
      else if constexpr (kind == Arith::sub) return wrap_sub(x, y);
      else if constexpr (kind == Arith::mul) return wrap_mul(x, y);
      else return safe_div(x, y);
    });
  });
}

// Pow: the exponent may have another numeric type (opset 12+); the result has the base's type.
void pow_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  Tensor b = ctx.input(1).dtype() == DType::f32 ? ctx.input(1) : ctx.input(1).to(DType::f32);
  Tensor& out = ctx.output(0, a.dtype(), broadcast_shapes(a.shape(), b.shape()));
  dispatch<kNumeric>(a.dtype(), ctx, [&](auto t) {
    using T = decltype(t);
    binary_apply<T, float, T>(a, b, out, [](T x, float y) {
      if constexpr (std::is_floating_point_v<T>) {
        return T(std::pow(x, y));
      } else {
        double r = std::pow(double(x), double(y));
        return std::isfinite(r) ? T(int64_t(r)) : T(0);
      }
    });
  });
}

// Mod: fmod = 0 takes the divisor's sign (Python's %), fmod = 1 the dividend's (C's fmod).
void mod_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  check_same_dtype(ctx, a, b);
  const bool c_style = ctx.node().attrs.get_int("fmod", 0) != 0;
  Tensor& out = ctx.output(0, a.dtype(), broadcast_shapes(a.shape(), b.shape()));
  dispatch<kNumeric>(a.dtype(), ctx, [&](auto t) {
    using T = decltype(t);
    binary_apply<T, T, T>(a, b, out, [c_style](T x, T y) -> T {
      if constexpr (std::is_floating_point_v<T>) {
        T r = std::fmod(x, y);
        if (!c_style && r != 0 && ((r < 0) != (y < 0))) r += y;
        return r;
      } else {
        if (y == 0) return 0;
        if constexpr (std::is_signed_v<T>)
          if (y == T(-1)) return 0;
        T r = T(x % y);
        if (!c_style && r != 0 && ((r < 0) != (y < 0))) r = T(r + y);
        return r;
      }
    });
  });
}

void bitshift_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  check_same_dtype(ctx, a, b);
  const std::string direction = ctx.node().attrs.get_string("direction", "");
  VX_CHECK(direction == "LEFT" || direction == "RIGHT", InvalidArgument, node_label(ctx), ": direction must be LEFT or RIGHT, not '",
           direction, "'");
  const bool left = direction == "LEFT";
  Tensor& out = ctx.output(0, a.dtype(), broadcast_shapes(a.shape(), b.shape()));
  dispatch<kInt>(a.dtype(), ctx, [&](auto t) {
    using T = decltype(t);
    using U = std::make_unsigned_t<T>;
    binary_apply<T, T, T>(a, b, out, [left](T x, T y) -> T {
      uint64_t shift = uint64_t(y);
      if (shift >= 8 * sizeof(T)) return 0;
      return T(left ? U(U(x) << shift) : U(U(x) >> shift));
    });
  });
}

// PRelu: the slope broadcasts onto X (unidirectionally).
void prelu_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor slope = ctx.input(1);
  check_same_dtype(ctx, x, slope);
  // Old exporters (PyTorch, opset < 7) give one slope per channel as a 1-D [C]: align it with axis 1.
  if (slope.rank() == 1 && x.rank() > 2 && slope.dim(0) == x.dim(1) && slope.dim(0) != x.dim(x.rank() - 1)) {
    std::vector<int64_t> dims(x.rank() - 1, 1);
    dims[0] = slope.dim(0);
    slope = slope.reshaped(Shape(dims));
  }
  Shape shape = broadcast_shapes(x.shape(), slope.shape());
  VX_CHECK(shape == x.shape(), InvalidArgument, node_label(ctx), ": slope ", slope.shape().str(),
           " does not broadcast to X ", x.shape().str());
  Tensor& out = ctx.output(0, x.dtype(), shape);
  dispatch<kFloat | kSigned>(x.dtype(), ctx, [&](auto t) {
    using T = decltype(t);
    binary_apply<T, T, T>(x, slope, out, [](T v, T s) { return v < 0 ? T(s * v) : v; });
  });
}

enum class Fold { min, max, sum, mean };

template <Fold kind>
void variadic_kernel(KernelContext& ctx) {
  VX_CHECK(ctx.num_inputs() >= 1 && ctx.has_input(0), InvalidArgument, node_label(ctx), " needs at least one input");
  std::vector<Shape> shapes;
  const Tensor& first = ctx.input(0);
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    check_same_dtype(ctx, first, ctx.input(i));
    shapes.push_back(ctx.input(i).shape());
  }
  Shape shape = broadcast_shapes(shapes);
  Tensor& out = ctx.output(0, first.dtype(), shape);
  dispatch<kNumeric>(first.dtype(), ctx, [&](auto t) {
    using T = decltype(t);
    binary_apply<T, T, T>(first, first, out, [](T x, T) { return x; });
    for (size_t i = 1; i < ctx.num_inputs(); ++i) {
      binary_apply<T, T, T>(out, ctx.input(i), out, [](T x, T y) {
        if constexpr (kind == Fold::min) return min_propagating_nan(x, y);
        else if constexpr (kind == Fold::max) return max_propagating_nan(x, y);
        else return wrap_add(x, y);
      });
    }
    if constexpr (kind == Fold::mean) {
      T* p = out.data<T>();
      for (int64_t i = 0; i < out.numel(); ++i) p[i] = safe_div(p[i], T(ctx.num_inputs()));
    }
  });
}

void where_kernel(KernelContext& ctx) {
  const Tensor& cond = ctx.input(0);
  const Tensor& x = ctx.input(1);
  const Tensor& y = ctx.input(2);
  VX_CHECK(cond.dtype() == DType::boolean, InvalidArgument, node_label(ctx), ": the condition must be bool, not ",
           dtype_name(cond.dtype()));
  check_same_dtype(ctx, x, y);
  Shape shape = broadcast_shapes({cond.shape(), x.shape(), y.shape()});
  Tensor& out = ctx.output(0, x.dtype(), shape);
  dispatch<kAll>(x.dtype(), ctx, [&](auto t) {
    using T = decltype(t);
    const uint8_t* pc = static_cast<const uint8_t*>(cond.raw());
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    T* po = out.data<T>();
    std::array<std::vector<int64_t>, 3> strides{broadcast_strides(cond.shape(), shape),
                                                broadcast_strides(x.shape(), shape),
                                                broadcast_strides(y.shape(), shape)};
    for_each_broadcast<3>(shape, strides, [&](int64_t i, const std::array<int64_t, 3>& o) {
      po[i] = pc[o[0]] ? px[o[1]] : py[o[2]];
    });
  });
}

}  // namespace

VX_REGISTER_CPU_KERNEL(add, {"Add", "reference", 0, nullptr, with_f16_as_f32(arith_kernel<Arith::add>)});
VX_REGISTER_CPU_KERNEL(sub, {"Sub", "reference", 0, nullptr, with_f16_as_f32(arith_kernel<Arith::sub>)});
VX_REGISTER_CPU_KERNEL(mul, {"Mul", "reference", 0, nullptr, with_f16_as_f32(arith_kernel<Arith::mul>)});
VX_REGISTER_CPU_KERNEL(div, {"Div", "reference", 0, nullptr, with_f16_as_f32(arith_kernel<Arith::div>)});
VX_REGISTER_CPU_KERNEL(pow, {"Pow", "reference", 0, nullptr, with_f16_as_f32(pow_kernel)});
VX_REGISTER_CPU_KERNEL(mod, {"Mod", "reference", 0, nullptr, with_f16_as_f32(mod_kernel)});
VX_REGISTER_CPU_KERNEL(bitshift, {"BitShift", "reference", 0, nullptr, bitshift_kernel});
VX_REGISTER_CPU_KERNEL(prelu, {"PRelu", "reference", 0, nullptr, with_f16_as_f32(prelu_kernel)});
VX_REGISTER_CPU_KERNEL(min, {"Min", "reference", 0, nullptr, with_f16_as_f32(variadic_kernel<Fold::min>)});
VX_REGISTER_CPU_KERNEL(max, {"Max", "reference", 0, nullptr, with_f16_as_f32(variadic_kernel<Fold::max>)});
VX_REGISTER_CPU_KERNEL(sum, {"Sum", "reference", 0, nullptr, with_f16_as_f32(variadic_kernel<Fold::sum>)});
VX_REGISTER_CPU_KERNEL(mean, {"Mean", "reference", 0, nullptr, with_f16_as_f32(variadic_kernel<Fold::mean>)});
VX_REGISTER_CPU_KERNEL(where, {"Where", "reference", 0, nullptr, with_f16_as_f32(where_kernel)});

}  // namespace vx::cpu::ref

// Reference kernels for Cast and CastLike. The target type follows the importer's mapping onto our
// dtypes (ops/onnx_dtype.h: double -> f32, 16-bit integers -> i32, unsigned 32/64-bit -> i64). Float
// to integer conversion truncates toward zero and saturates at the type's range (NaN -> 0) instead
// of the undefined behaviour a plain C++ conversion would have.
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "backends/cpu/reference/math_util.h"
#include "core/half.h"
#include "ops/onnx_dtype.h"

namespace vx::cpu::ref {
namespace {

template <class T>
T saturate_from_double(double v) {
  if constexpr (std::is_floating_point_v<T>) {
    return T(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else {
    if (std::isnan(v)) return T(0);
    v = std::trunc(v);
    if (v <= double(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (v >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return T(v);
  }
}

void convert(const Tensor& in, Tensor& out, const KernelContext& ctx) {
  if (in.dtype() == out.dtype()) {
    if (in.nbytes()) std::memcpy(out.raw(), in.raw(), in.nbytes());
    return;
  }
  const bool float_source = in.dtype() == DType::f32 || in.dtype() == DType::f16;
  if (out.dtype() == DType::f16) {
    uint16_t* o = static_cast<uint16_t*>(out.raw());
    for (int64_t i = 0; i < in.numel(); ++i) o[i] = float_to_half(float(in.get(i)));
    return;
  }
  if (float_source || out.dtype() == DType::f32) {
    dispatch<kAll>(out.dtype(), ctx, [&](auto t) {
      using T = decltype(t);
      T* o = out.data<T>();
      for (int64_t i = 0; i < in.numel(); ++i) o[i] = saturate_from_double<T>(in.get(i));
    });
    return;
  }
  // Integer / bool to integer / bool: exact, wrapping like C++ integer conversions.
  dispatch<kInt | kBool>(in.dtype(), ctx, [&](auto s) {
    using S = decltype(s);
    const S* src = in.data<S>();
    dispatch<kInt | kBool>(out.dtype(), ctx, [&](auto t) {
      using T = decltype(t);
      T* o = out.data<T>();
      for (int64_t i = 0; i < in.numel(); ++i) {
        if constexpr (std::is_same_v<T, bool>) o[i] = src[i] != 0;
        else o[i] = T(src[i]);
      }
    });
  });
}

void cast_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  int64_t to = ctx.node().attrs.get_int("to", -1);
  std::optional<DType> target = dtype_from_onnx(to);
  VX_CHECK(target.has_value(), Unsupported, node_label(ctx), ": cast to ONNX data type ", to, " is not supported");
  Tensor& y = ctx.output(0, *target, x.shape());
  convert(x, y, ctx);
}

void cast_like_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0, ctx.input(1).dtype(), x.shape());
  convert(x, y, ctx);
}

}  // namespace

VX_REGISTER_CPU_KERNEL(cast, {"Cast", "reference", 0, nullptr, cast_kernel});
VX_REGISTER_CPU_KERNEL(cast_like, {"CastLike", "reference", 0, nullptr, cast_like_kernel});

}  // namespace vx::cpu::ref

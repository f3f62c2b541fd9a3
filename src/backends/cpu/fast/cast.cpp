// Cast and CastLike between every pair of element types (float32, float16, int8, uint8, int32,
// int64, bool), over the thread pool in blocks, with the reference's rules (reference/cast.cpp):
// float to integer truncates toward zero and saturates (NaN -> 0); integer to integer wraps; to bool
// is "not zero"; a value reaches float16 through float32, as there. A typed loop per pair instead
// of the reference's per-element conversion through double for every element. Exact.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "core/half.h"
#include "ops/onnx_dtype.h"

namespace vx::cpu::fast {
namespace {

constexpr int64_t kCastElementsPerTask = 16384;

struct F16 {  // float16 stored as its bits (Tensor's Half)
  uint16_t bits;
};

template <class T>
constexpr bool is_float_v = std::is_same_v<T, float> || std::is_same_v<T, F16>;

template <class S>
double as_double(S v) {
  if constexpr (std::is_same_v<S, F16>) return double(half_to_float(v.bits));
  else return double(v);
}

// One element as the reference converts it.
template <class S, class T>
T convert(S v) {
  if constexpr (std::is_same_v<T, F16>) {
    return F16{float_to_half(float(as_double(v)))};
  } else if constexpr (is_float_v<S> || std::is_same_v<T, float>) {
    const double d = as_double(v);
    if constexpr (std::is_same_v<T, float>) return float(d);
    else if constexpr (std::is_same_v<T, bool>) return d != 0;
    else {
      if (std::isnan(d)) return T(0);
      const double t = std::trunc(d);
      if (t <= double(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
      if (t >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
      return T(t);
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else {
    return T(v);  // integer / bool to integer: wraps as C++ does
  }
}

template <class Fn>
bool with_type(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::f32: fn(float{}); return true;
    case DType::f16: fn(F16{}); return true;
    case DType::i8: fn(int8_t{}); return true;
    case DType::u8: fn(uint8_t{}); return true;
    case DType::i32: fn(int32_t{}); return true;
    case DType::i64: fn(int64_t{}); return true;
    case DType::boolean: fn(bool{}); return true;
  }
  return false;
}

void convert_tensor(const Tensor& in, Tensor& out, ThreadPool& pool) {
  const int64_t n = in.numel();
  if (n == 0) return;
  if (in.dtype() == out.dtype()) {
    std::memcpy(out.raw(), in.raw(), in.nbytes());
    return;
  }
  with_type(in.dtype(), [&](auto s) {
    using S = decltype(s);
    with_type(out.dtype(), [&](auto t) {
      using T = decltype(t);
      const S* src = static_cast<const S*>(in.raw());
      T* dst = static_cast<T*>(out.raw());
      const int64_t blocks = (n + kCastElementsPerTask - 1) / kCastElementsPerTask;
      pool.parallel_for(blocks, [&](int64_t b0, int64_t b1) {
        const int64_t end = std::min(n, b1 * kCastElementsPerTask);
        for (int64_t i = b0 * kCastElementsPerTask; i < end; ++i) dst[i] = convert<S, T>(src[i]);
      });
    });
  });
}

bool cast_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] {
    return node.outputs.size() == 1 && node.input(0) != kNoValue && dtype_from_onnx(node.attrs.get_int("to", -1));
  });
}

KernelFn make_cast(const Node& node, const Graph&) {
  return [to = *dtype_from_onnx(node.attrs.get_int("to", -1))](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    convert_tensor(x, ctx.output(0, to, x.shape()), ctx.pool());
  };
}

bool cast_like_supports(const Node& node, const Graph&) {
  return node.outputs.size() == 1 && node.input(0) != kNoValue && node.input(1) != kNoValue;
}

void cast_like_fast(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  convert_tensor(x, ctx.output(0, ctx.input(1).dtype(), x.shape()), ctx.pool());
}

}  // namespace

VX_REGISTER_CPU_KERNEL(cast_fast, {"Cast", kFastVariant, 10, cast_supports, nullptr, make_cast});
VX_REGISTER_CPU_KERNEL(cast_like_fast, {"CastLike", kFastVariant, 10, cast_like_supports, cast_like_fast});

}  // namespace vx::cpu::fast

// Helpers for the reference kernels written once as templates over the element type (eltwise_binary,
// eltwise_unary, reduce, softmax, cumsum, compare_logic, cast, ...): dtype dispatch, float16
// handled by computing in float32, scalar and integer inputs, axis-wise loops.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/broadcast.h"
#include "backends/cpu/reference/kernel_util.h"
#include "core/error.h"
#include "core/tensor.h"

namespace vx::cpu::ref {

// Calls fn(T{}) with T the C++ type of `dtype` (f16 excluded: see with_f16_as_f32).
// Which families are allowed is the caller's choice; an excluded dtype is Unsupported.
enum TypeSet : unsigned { kFloat = 1, kSigned = 2, kUnsigned = 4, kBool = 8, kInt = kSigned | kUnsigned,
                          kNumeric = kFloat | kInt, kAll = kNumeric | kBool };

template <unsigned allowed, class Fn>
void dispatch(DType dtype, const KernelContext& ctx, Fn&& fn) {
  switch (dtype) {
    case DType::f32: if constexpr ((allowed & kFloat) != 0) return fn(float{}); break;
    case DType::i8: if constexpr ((allowed & kSigned) != 0) return fn(int8_t{}); break;
    case DType::i32: if constexpr ((allowed & kSigned) != 0) return fn(int32_t{}); break;
    case DType::i64: if constexpr ((allowed & kSigned) != 0) return fn(int64_t{}); break;
    case DType::u8: if constexpr ((allowed & kUnsigned) != 0) return fn(uint8_t{}); break;
    case DType::boolean: if constexpr ((allowed & kBool) != 0) return fn(bool{}); break;
    case DType::f16: break;
  }
  fail(ErrorCode::Unsupported, cat(node_label(ctx), ": element type ", dtype_name(dtype), " is not supported"));
}

// A view of a kernel context in which float16 inputs read as float32 and float32 outputs are
// converted back to float16 afterwards (when any input was float16): the reference kernels then
// need only one float type. commit() writes the converted outputs.
class F16AsF32Context : public KernelContext {
 public:
  explicit F16AsF32Context(KernelContext& inner) : inner_(inner) {
    for (size_t i = 0; i < inner.num_inputs(); ++i) {
      if (inner.has_input(i) && inner.input(i).dtype() == DType::f16) {
        converted_.push_back(inner.input(i).to(DType::f32));
        had_f16_ = true;
      } else {
        converted_.emplace_back();
      }
    }
  }
  bool had_f16() const { return had_f16_; }
  const Node& node() const override { return inner_.node(); }
  int64_t opset() const override { return inner_.opset(); }
  size_t num_inputs() const override { return inner_.num_inputs(); }
  bool has_input(size_t i) const override { return inner_.has_input(i); }
  const Tensor& input(size_t i) const override {
    return i < converted_.size() && converted_[i].defined() ? converted_[i] : inner_.input(i);
  }
  size_t num_outputs() const override { return inner_.num_outputs(); }
  Tensor& output(size_t i, DType dtype, const Shape& shape) override {
    if (dtype != DType::f32 || !had_f16_) return inner_.output(i, dtype, shape);
    pending_.push_back({i, Tensor(DType::f32, shape)});
    return pending_.back().second;
  }
  ThreadPool& pool() override { return inner_.pool(); }
  void commit() {
    for (auto& [i, t] : pending_) {
      Tensor& out = inner_.output(i, DType::f16, t.shape());
      Tensor h = t.to(DType::f16);
      if (h.nbytes()) std::memcpy(out.raw(), h.raw(), h.nbytes());
    }
  }

 private:
  KernelContext& inner_;
  std::vector<Tensor> converted_;
  std::deque<std::pair<size_t, Tensor>> pending_;  // deque: references handed out stay valid
  bool had_f16_ = false;
};

// Wraps a kernel so that float16 tensors are computed in float32.
template <class Kernel>
KernelFn with_f16_as_f32(Kernel kernel) {
  return [kernel](KernelContext& ctx) {
    bool any_f16 = false;
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
      if (ctx.has_input(i) && ctx.input(i).dtype() == DType::f16) any_f16 = true;
    if (!any_f16) return kernel(ctx);
    F16AsF32Context view(ctx);
    kernel(view);
    view.commit();
  };
}

// Optional scalar input i as double, or `fallback` when omitted.
inline double scalar_input(const KernelContext& ctx, size_t i, double fallback) {
  if (!ctx.has_input(i)) return fallback;
  const Tensor& t = ctx.input(i);
  VX_CHECK(t.numel() == 1, InvalidArgument, node_label(ctx), ": input ", i, " must be a scalar, not ", t.shape().str());
  return t.get(0);
}

// Splits a shape around `axis` into (outer, n, inner) for axis-wise loops.
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};
inline AxisSplit split_at(const Shape& s, int64_t axis) {
  AxisSplit r;
  for (int64_t d = 0; d < int64_t(s.rank()); ++d) {
    if (d < axis) r.outer *= s[size_t(d)];
    else if (d == axis) r.n = s[size_t(d)];
    else r.inner *= s[size_t(d)];
  }
  return r;
}

// Integer tensor elements as int64 (for axes / shapes given as inputs).
inline std::vector<int64_t> int_values(const Tensor& t, const KernelContext& ctx, const char* what) {
  VX_CHECK(t.dtype() == DType::i64 || t.dtype() == DType::i32, InvalidArgument, node_label(ctx), ": ", what,
           " must be an int64 tensor, not ", dtype_name(t.dtype()));
  std::vector<int64_t> v(size_t(t.numel()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = t.dtype() == DType::i64 ? t.data<int64_t>()[i] : int64_t(t.data<int32_t>()[i]);
  return v;
}

}  // namespace vx::cpu::ref

// Reference kernels for ONNX's one-input element-wise ops: math functions (Sqrt, Exp, Log, Sin, ...),
// activations (Relu, Sigmoid, Tanh, LeakyRelu, Elu, Selu, Celu, HardSigmoid, HardSwish, Softplus,
// Softsign, ThresholdedRelu, Shrink, Gelu), rounding (Floor, Ceil, Round), Abs, Neg, Sign, Clip,
// IsNaN, IsInf, Identity and Dropout (inference only). Float functions compute in float32.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "backends/cpu/reference/math_util.h"
#include "backends/cpu/reference/reference_ops.h"

namespace vx::cpu::ref {
namespace {

// A float-only op: out = f(x, attrs).
template <class MakeFn>
KernelFn float_unary(MakeFn make_fn) {
  return with_f16_as_f32([make_fn](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    VX_CHECK(x.dtype() == DType::f32, Unsupported, node_label(ctx), ": element type ", dtype_name(x.dtype()),
             " is not supported (floats only)");
    auto f = make_fn(ctx.node().attrs);
    Tensor& y = ctx.output(0, DType::f32, x.shape());
    const float* in = x.data<float>();
    float* out = y.data<float>();
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = f(in[i]);
  });
}

// A function without attributes.
template <class Fn>
KernelFn float_fn(Fn fn) {
  return float_unary([fn](const Attributes&) { return fn; });
}

float sigmoid(float x) {
  // Two forms so that exp never overflows.
  if (x >= 0) return 1.0f / (1.0f + std::exp(-x));
  float e = std::exp(x);
  return e / (1.0f + e);
}

float softplus(float x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

// An op over numeric types that keeps the dtype: Abs, Neg, Sign.
template <class Op>
KernelFn numeric_unary(Op op) {
  return with_f16_as_f32([op](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    dispatch<kNumeric>(x.dtype(), ctx, [&](auto t) {
      using T = decltype(t);
      const T* in = x.data<T>();
      T* out = y.data<T>();
      for (int64_t i = 0; i < x.numel(); ++i) out[i] = op(in[i]);
    });
  });
}

struct AbsOp {
  template <class T>
  T operator()(T v) const {
    if constexpr (std::is_unsigned_v<T>) return v;
    else if constexpr (std::is_integral_v<T>) return v < 0 ? T(uint64_t(0) - uint64_t(v)) : v;
    else return std::fabs(v);
  }
};
struct NegOp {
  template <class T>
  T operator()(T v) const {
    if constexpr (std::is_integral_v<T>) return T(uint64_t(0) - uint64_t(v));
    else return -v;
  }
};
struct SignOp {
  template <class T>
  T operator()(T v) const {
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(v)) return v;
    return v > 0 ? T(1) : v < 0 ? T(-1) : T(0);
  }
};

// Clip: bounds from attributes before opset 11, from optional inputs 1 and 2 from opset 11.
void clip_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  dispatch<kNumeric>(x.dtype(), ctx, [&](auto t) {
    using T = decltype(t);
    T lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
    if (ctx.opset() > 0 && ctx.opset() < 11) {
      if constexpr (std::is_floating_point_v<T>) {
        lo = ctx.node().attrs.get_float("min", lo);
        hi = ctx.node().attrs.get_float("max", hi);
      }
    } else {
      for (size_t i : {size_t(1), size_t(2)}) {
        if (!ctx.has_input(i)) continue;
        const Tensor& bound = ctx.input(i);
        VX_CHECK(bound.numel() == 1 && bound.dtype() == x.dtype(), InvalidArgument, node_label(ctx), ": ",
                 i == 1 ? "min" : "max", " must be a scalar of the input's type");
        (i == 1 ? lo : hi) = bound.data<T>()[0];
      }
    }
    const T* in = x.data<T>();
    T* out = y.data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      T v = in[i];
      if constexpr (std::is_floating_point_v<T>)
        if (std::isnan(v)) {
          out[i] = v;
          continue;
        }
      out[i] = v < lo ? lo : v > hi ? hi : v;
    }
  });
}

void is_nan_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.dtype() == DType::f32, Unsupported, node_label(ctx), ": floats only");
  Tensor& y = ctx.output(0, DType::boolean, x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) y.data<bool>()[i] = std::isnan(x.data<float>()[i]);
}

void is_inf_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.dtype() == DType::f32, Unsupported, node_label(ctx), ": floats only");
  const bool negative = ctx.node().attrs.get_int("detect_negative", 1) != 0;
  const bool positive = ctx.node().attrs.get_int("detect_positive", 1) != 0;
  Tensor& y = ctx.output(0, DType::boolean, x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    float v = x.data<float>()[i];
    y.data<bool>()[i] = std::isinf(v) && ((v > 0 && positive) || (v < 0 && negative));
  }
}

void copy_input(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  if (x.nbytes() && y.raw() != x.raw()) std::memcpy(y.raw(), x.raw(), x.nbytes());
}

// Dropout at inference: the identity, and a mask of ones when asked. Training mode with a non-zero
// ratio draws random numbers, which we do not do.
void dropout_kernel(KernelContext& ctx) {
  const bool training = ctx.opset() >= 12 ? scalar_input(ctx, 2, 0.0) != 0 : false;
  const double ratio = ctx.opset() >= 12 ? scalar_input(ctx, 1, 0.5) : ctx.node().attrs.get_float("ratio", 0.5f);
  VX_CHECK(!training || ratio == 0, Unsupported, node_label(ctx), ": training-mode dropout (random) is not supported");
  copy_input(ctx);
  if (ctx.num_outputs() > 1 && ctx.node().outputs[1] != kNoValue) {
    const Tensor& x = ctx.input(0);
    DType mask_type = ctx.opset() >= 10 || ctx.opset() == 0 ? DType::boolean : x.dtype();
    Tensor& mask = ctx.output(1, mask_type, x.shape());
    for (int64_t i = 0; i < mask.numel(); ++i) mask.set(i, 1.0);
  }
}

constexpr float kSeluAlpha = 1.67326319217681884765625f;
constexpr float kSeluGamma = 1.05070102214813232421875f;

}  // namespace

VX_REGISTER_CPU_KERNEL(sqrt, {"Sqrt", "reference", 0, nullptr, float_fn([](float x) { return std::sqrt(x); })});
VX_REGISTER_CPU_KERNEL(reciprocal, {"Reciprocal", "reference", 0, nullptr, float_fn([](float x) { return 1.0f / x; })});
VX_REGISTER_CPU_KERNEL(exp, {"Exp", "reference", 0, nullptr, float_fn([](float x) { return std::exp(x); })});
VX_REGISTER_CPU_KERNEL(log, {"Log", "reference", 0, nullptr, float_fn([](float x) { return std::log(x); })});
VX_REGISTER_CPU_KERNEL(floor, {"Floor", "reference", 0, nullptr, float_fn([](float x) { return std::floor(x); })});
VX_REGISTER_CPU_KERNEL(ceil, {"Ceil", "reference", 0, nullptr, float_fn([](float x) { return std::ceil(x); })});
// Round halves to even (the default rounding mode), as ONNX requires.
VX_REGISTER_CPU_KERNEL(round, {"Round", "reference", 0, nullptr, float_fn([](float x) { return std::nearbyint(x); })});
VX_REGISTER_CPU_KERNEL(sigmoid, {"Sigmoid", "reference", 0, nullptr, float_fn(sigmoid)});
VX_REGISTER_CPU_KERNEL(tanh, {"Tanh", "reference", 0, nullptr, float_fn([](float x) { return std::tanh(x); })});
VX_REGISTER_CPU_KERNEL(erf, {"Erf", "reference", 0, nullptr, float_fn([](float x) { return std::erf(x); })});
VX_REGISTER_CPU_KERNEL(softplus, {"Softplus", "reference", 0, nullptr, float_fn(softplus)});
VX_REGISTER_CPU_KERNEL(softsign, {"Softsign", "reference", 0, nullptr,
                                  float_fn([](float x) { return x / (1.0f + std::fabs(x)); })});
VX_REGISTER_CPU_KERNEL(sin, {"Sin", "reference", 0, nullptr, float_fn([](float x) { return std::sin(x); })});
VX_REGISTER_CPU_KERNEL(cos, {"Cos", "reference", 0, nullptr, float_fn([](float x) { return std::cos(x); })});
VX_REGISTER_CPU_KERNEL(tan, {"Tan", "reference", 0, nullptr, float_fn([](float x) { return std::tan(x); })});
VX_REGISTER_CPU_KERNEL(asin, {"Asin", "reference", 0, nullptr, float_fn([](float x) { return std::asin(x); })});
VX_REGISTER_CPU_KERNEL(acos, {"Acos", "reference", 0, nullptr, float_fn([](float x) { return std::acos(x); })});
VX_REGISTER_CPU_KERNEL(atan, {"Atan", "reference", 0, nullptr, float_fn([](float x) { return std::atan(x); })});
VX_REGISTER_CPU_KERNEL(sinh, {"Sinh", "reference", 0, nullptr, float_fn([](float x) { return std::sinh(x); })});
VX_REGISTER_CPU_KERNEL(cosh, {"Cosh", "reference", 0, nullptr, float_fn([](float x) { return std::cosh(x); })});
VX_REGISTER_CPU_KERNEL(asinh, {"Asinh", "reference", 0, nullptr, float_fn([](float x) { return std::asinh(x); })});
VX_REGISTER_CPU_KERNEL(acosh, {"Acosh", "reference", 0, nullptr, float_fn([](float x) { return std::acosh(x); })});
VX_REGISTER_CPU_KERNEL(atanh, {"Atanh", "reference", 0, nullptr, float_fn([](float x) { return std::atanh(x); })});

VX_REGISTER_CPU_KERNEL(leaky_relu, {"LeakyRelu", "reference", 0, nullptr, float_unary([](const Attributes& a) {
                                      float alpha = a.get_float("alpha", 0.01f);
                                      return [alpha](float x) { return x < 0 ? alpha * x : x; };
                                    })});
VX_REGISTER_CPU_KERNEL(elu, {"Elu", "reference", 0, nullptr, float_unary([](const Attributes& a) {
                               float alpha = a.get_float("alpha", 1.0f);
                               return [alpha](float x) { return x < 0 ? alpha * std::expm1(x) : x; };
                             })});
VX_REGISTER_CPU_KERNEL(celu, {"Celu", "reference", 0, nullptr, float_unary([](const Attributes& a) {
                                float alpha = a.get_float("alpha", 1.0f);
                                return [alpha](float x) {
                                  return std::max(0.0f, x) + std::min(0.0f, alpha * std::expm1(x / alpha));
                                };
                              })});
VX_REGISTER_CPU_KERNEL(selu, {"Selu", "reference", 0, nullptr, float_unary([](const Attributes& a) {
                                float alpha = a.get_float("alpha", kSeluAlpha);
                                float gamma = a.get_float("gamma", kSeluGamma);
                                return [alpha, gamma](float x) {
                                  return x > 0 ? gamma * x : gamma * alpha * std::expm1(x);
                                };
                              })});
VX_REGISTER_CPU_KERNEL(hard_sigmoid, {"HardSigmoid", "reference", 0, nullptr, float_unary([](const Attributes& a) {
                                        float alpha = a.get_float("alpha", 0.2f), beta = a.get_float("beta", 0.5f);
                                        return [alpha, beta](float x) {
                                          return std::clamp(alpha * x + beta, 0.0f, 1.0f);
                                        };
                                      })});
VX_REGISTER_CPU_KERNEL(hard_swish, {"HardSwish", "reference", 0, nullptr, float_fn([](float x) {
                                      return x * std::clamp(x / 6.0f + 0.5f, 0.0f, 1.0f);
                                    })});
VX_REGISTER_CPU_KERNEL(thresholded_relu, {"ThresholdedRelu", "reference", 0, nullptr,
                                          float_unary([](const Attributes& a) {
                                            float alpha = a.get_float("alpha", 1.0f);
                                            return [alpha](float x) { return x > alpha ? x : 0.0f; };
                                          })});
VX_REGISTER_CPU_KERNEL(shrink, {"Shrink", "reference", 0, nullptr, float_unary([](const Attributes& a) {
                                  float lambd = a.get_float("lambd", 0.5f), bias = a.get_float("bias", 0.0f);
                                  return [lambd, bias](float x) {
                                    return x < -lambd ? x + bias : x > lambd ? x - bias : 0.0f;
                                  };
                                })});
VX_REGISTER_CPU_KERNEL(gelu, {"Gelu", "reference", 0, nullptr, float_unary([](const Attributes& a) {
                                bool tanh_form = a.get_string("approximate", "none") == "tanh";
                                return [tanh_form](float x) {
                                  if (tanh_form) {
                                    float inner = 0.7978845608028654f * (x + 0.044715f * x * x * x);
                                    return 0.5f * x * (1.0f + std::tanh(inner));
                                  }
                                  return 0.5f * x * (1.0f + std::erf(x * 0.7071067811865476f));
                                };
                              })});

VX_REGISTER_CPU_KERNEL(abs, {"Abs", "reference", 0, nullptr, numeric_unary(AbsOp{})});
VX_REGISTER_CPU_KERNEL(neg, {"Neg", "reference", 0, nullptr, numeric_unary(NegOp{})});
VX_REGISTER_CPU_KERNEL(sign, {"Sign", "reference", 0, nullptr, numeric_unary(SignOp{})});
VX_REGISTER_CPU_KERNEL(clip, {"Clip", "reference", 0, nullptr, with_f16_as_f32(clip_kernel)});
VX_REGISTER_CPU_KERNEL(is_nan, {"IsNaN", "reference", 0, nullptr, with_f16_as_f32(is_nan_kernel)});
VX_REGISTER_CPU_KERNEL(is_inf, {"IsInf", "reference", 0, nullptr, with_f16_as_f32(is_inf_kernel)});
VX_REGISTER_CPU_KERNEL(identity, {"Identity", "reference", 0, nullptr, copy_input});
VX_REGISTER_CPU_KERNEL(dropout, {"Dropout", "reference", 0, nullptr, dropout_kernel});

// Relu; relu() is also the plain function reference_ops.h declares for the fused conv.
void relu(const Tensor& x, Tensor& y) {
  VX_CHECK(x.numel() == y.numel(), InvalidArgument, "relu: X ", x.shape().str(), " and Y ", y.shape().str(),
           " differ in size");
  const float* xp = x.data<float>();
  float* yp = y.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) yp[i] = xp[i] > 0.0f ? xp[i] : 0.0f;
}

namespace {
void relu_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.dtype() == DType::f32, Unsupported, "Relu '", ctx.node().name, "': only float32 is supported");
  relu(x, ctx.output(0, DType::f32, x.shape()));
}
}  // namespace

VX_REGISTER_CPU_KERNEL(relu_reference, {"Relu", "reference", 0, nullptr, relu_kernel});

}  // namespace vx::cpu::ref

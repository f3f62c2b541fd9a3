// One-input element-wise ops on f32, threaded over the thread pool in contiguous chunks: Relu,
// LeakyRelu, Elu, Selu, Clip, Sigmoid, HardSigmoid, HardSwish, Softplus, Softsign, Tanh, Exp, Log,
// Erf, Sin, Cos, Neg, Abs, Sqrt, Reciprocal, Floor, Ceil, Round.
// Each element is computed by the reference's own float expression (same formula, same order of
// operations, float throughout, std:: functions where the reference calls them, no
// approximations), so results match it bit for bit, NaN included: Relu maps NaN to 0, Clip and
// HardSigmoid pass it through as the reference's comparisons do. The plain loops are
// SSE-vectorised by the compiler where there is no libm call. An output sharing its input's
// memory is fine: element i reads only element i.
//
// In a prepared plan these kernels are layout followers (cpu_layout.h): a 4-D input stored in a
// oneDNN convolution's layout (NHWC, nChw16c, nChw8c) gives the output in the same layout, as the loop
// runs over the raw buffer and never looks at coordinates.
//
// Clip's bounds: attributes min / max before opset 11, else the optional scalar inputs 1 and 2,
// constant or computed at run time (read each run); an absent bound does not bound.
//
// Declines: other element types (integers, f16: the reference handles them), Clip bounds that are
// not f32 scalars of known shape (the reference reports a bad one).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"

namespace vx::cpu::fast {
namespace {

enum class UnaryOp {
  relu, leaky_relu, elu, selu, clip, sigmoid, hard_sigmoid, hard_swish, softplus, softsign, tanh, exp, log, erf,
  sin, cos, neg, abs, sqrt, reciprocal, floor, ceil, round
};

// Selu's defaults (ONNX's, as float).
constexpr float kSeluAlphaDefault = 1.67326319217681884765625f;
constexpr float kSeluGammaDefault = 1.05070102214813232421875f;

// The reference's sigmoid (1 / (1 + exp(-x)) for x >= 0, else e / (1 + e) with e = exp(x), so
// that exp never overflows) with selects for its branches: exp(-|x|) either way, then 1 or e over
// 1 + e. Each value is the reference's bit for bit (checked over all 2^32 floats); random signs no
// longer mispredict.
inline float sigmoid_value(float x) {
  const bool positive = x >= 0;
  const float e = std::exp(positive ? -x : x);
  return (positive ? 1.0f : e) / (1.0f + e);
}

// v < lo ? lo : v > hi ? hi : v, as the reference's Clip and std::clamp choose (NaN fails both
// tests and passes; lo > hi gives lo below lo, else hi), written as two selects of values so that
// the compiler vectorises it (std::clamp's references and the nested ?: keep it a branch).
inline float clamp_value(float v, float lo, float hi) {
  const float upper = v > hi ? hi : v;
  return v < lo ? lo : upper;
}

// The op's value at x; p and q are its parameters (alpha and beta, or Clip's min and max).
template <UnaryOp op>
inline float unary_value(float x, float p, float q) {
  if constexpr (op == UnaryOp::relu) return x > 0.0f ? x : 0.0f;
  else if constexpr (op == UnaryOp::leaky_relu) {
    // x < 0 ? alpha * x : x, chosen bitwise from both values: written as ?: the compiler keeps the
    // multiply (it might trap) behind a branch and does not vectorise.
    const uint32_t mask = x < 0 ? ~0u : 0u;
    return std::bit_cast<float>((std::bit_cast<uint32_t>(p * x) & mask) | (std::bit_cast<uint32_t>(x) & ~mask));
  }
  else if constexpr (op == UnaryOp::elu) return x < 0 ? p * std::expm1(x) : x;
  else if constexpr (op == UnaryOp::selu) return x > 0 ? q * x : q * p * std::expm1(x);
  else if constexpr (op == UnaryOp::clip) return clamp_value(x, p, q);
  else if constexpr (op == UnaryOp::sigmoid) return sigmoid_value(x);
  else if constexpr (op == UnaryOp::hard_sigmoid) return clamp_value(p * x + q, 0.0f, 1.0f);
  else if constexpr (op == UnaryOp::hard_swish) return x * clamp_value(x / 6.0f + 0.5f, 0.0f, 1.0f);
  else if constexpr (op == UnaryOp::softplus) return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  else if constexpr (op == UnaryOp::softsign) return x / (1.0f + std::fabs(x));
  else if constexpr (op == UnaryOp::tanh) return std::tanh(x);
  else if constexpr (op == UnaryOp::exp) return std::exp(x);
  else if constexpr (op == UnaryOp::log) return std::log(x);
  else if constexpr (op == UnaryOp::erf) return std::erf(x);
  else if constexpr (op == UnaryOp::sin) return std::sin(x);
  else if constexpr (op == UnaryOp::cos) return std::cos(x);
  else if constexpr (op == UnaryOp::neg) return -x;
  else if constexpr (op == UnaryOp::abs) return std::fabs(x);
  else if constexpr (op == UnaryOp::sqrt) return std::sqrt(x);
  else if constexpr (op == UnaryOp::reciprocal) return 1.0f / x;
  else if constexpr (op == UnaryOp::floor) return std::floor(x);
  else if constexpr (op == UnaryOp::ceil) return std::ceil(x);
  else return std::nearbyint(x);  // Round: halves to even in the default rounding mode, as ONNX requires
}

// Ops that call libm per element cost some 10-20 ns each and are worth splitting at a few
// thousand elements; the rest are memory-bound and only pay for the pool's wake-up from ~64K.
constexpr bool unary_is_costly(UnaryOp op) {
  return op == UnaryOp::sigmoid || op == UnaryOp::tanh || op == UnaryOp::exp || op == UnaryOp::log ||
         op == UnaryOp::erf || op == UnaryOp::elu || op == UnaryOp::selu || op == UnaryOp::softplus ||
         op == UnaryOp::sin || op == UnaryOp::cos;
}
constexpr int64_t kUnaryBlock = 1024;  // the unit of the split: chunk starts stay vector-aligned

// Elements [begin, end). The parameters are arguments, not captures: read through a closure they
// might alias `out` and would be reloaded per element, which stops the vectoriser.
template <UnaryOp op>
void unary_range(const float* in, float* out, int64_t begin, int64_t end, float p, float q) {
  for (int64_t i = begin; i < end; ++i) out[i] = unary_value<op>(in[i], p, q);
}

// Clip's bounds as the reference reads them (opset 0, a graph not from ONNX, takes inputs).
void clip_bounds(KernelContext& ctx, float& lo, float& hi) {
  lo = std::numeric_limits<float>::lowest();
  hi = std::numeric_limits<float>::max();
  if (ctx.opset() > 0 && ctx.opset() < 11) {
    lo = ctx.node().attrs.get_float("min", lo);
    hi = ctx.node().attrs.get_float("max", hi);
    return;
  }
  for (size_t i : {size_t(1), size_t(2)}) {
    if (!ctx.has_input(i)) continue;
    const Tensor& bound = ctx.input(i);
    VX_CHECK(bound.numel() == 1 && bound.dtype() == DType::f32, InvalidArgument, "Clip '", ctx.node().name, "': ",
             i == 1 ? "min" : "max", " must be a scalar of the input's type");
    (i == 1 ? lo : hi) = bound.data<float>()[0];
  }
}

template <UnaryOp op>
void unary_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.dtype() == DType::f32, InvalidArgument, ctx.node().op, " '", ctx.node().name,
           "': the fast kernel takes float32, not ", dtype_name(x.dtype()));
  float p = 0, q = 0;
  const Attributes& attrs = ctx.node().attrs;
  if constexpr (op == UnaryOp::leaky_relu) p = attrs.get_float("alpha", 0.01f);
  if constexpr (op == UnaryOp::elu) p = attrs.get_float("alpha", 1.0f);
  if constexpr (op == UnaryOp::selu) {
    p = attrs.get_float("alpha", kSeluAlphaDefault);
    q = attrs.get_float("gamma", kSeluGammaDefault);
  }
  if constexpr (op == UnaryOp::hard_sigmoid) {
    p = attrs.get_float("alpha", 0.2f);
    q = attrs.get_float("beta", 0.5f);
  }
  if constexpr (op == UnaryOp::clip) clip_bounds(ctx, p, q);
  const float* in = x.data<float>();
  float* out = ctx.output(0, DType::f32, x.shape()).data<float>();
  const int64_t n = x.numel(), blocks = (n + kUnaryBlock - 1) / kUnaryBlock;
  ctx.pool().parallel_for(blocks, [&](int64_t b0, int64_t b1) {
    unary_range<op>(in, out, b0 * kUnaryBlock, std::min(n, b1 * kUnaryBlock), p, q);
  }, unary_is_costly(op) ? 4 : 64);
}

bool unary_supports_unchecked(const Node& node, const Graph& g) {
  if (node.inputs.empty() || node.inputs[0] == kNoValue || g.value(node.inputs[0]).dtype != DType::f32 ||
      !single_f32_output(node, g))
    return false;
  // Parameters of another type throw: the node is declined.
  if (node.op == "LeakyRelu" || node.op == "Elu") node.attrs.get_float("alpha", 0.01f);
  if (node.op == "Selu") node.attrs.get_float("alpha", 0.0f), node.attrs.get_float("gamma", 0.0f);
  if (node.op == "HardSigmoid") node.attrs.get_float("alpha", 0.2f), node.attrs.get_float("beta", 0.5f);
  if (node.op != "Clip") return true;
  const int64_t opset = g.opset("");
  if (opset > 0 && opset < 11) {
    node.attrs.get_float("min", 0.0f);
    node.attrs.get_float("max", 0.0f);
    return true;
  }
  for (size_t i : {size_t(1), size_t(2)}) {
    const ValueId id = node.input(i);
    if (id == kNoValue) continue;
    const Value& bound = g.value(id);
    if (bound.dtype != DType::f32 || !bound.shape.is_known() || bound.shape.numel() != 1) return false;
  }
  return true;
}

bool unary_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] { return unary_supports_unchecked(node, g); });
}

}  // namespace

VX_REGISTER_CPU_KERNEL(relu_fast, {"Relu", "fast", 10, unary_supports, unary_kernel<UnaryOp::relu>});
VX_REGISTER_CPU_KERNEL(leaky_relu_fast, {"LeakyRelu", "fast", 10, unary_supports, unary_kernel<UnaryOp::leaky_relu>});
VX_REGISTER_CPU_KERNEL(clip_fast, {"Clip", "fast", 10, unary_supports, unary_kernel<UnaryOp::clip>});
VX_REGISTER_CPU_KERNEL(sigmoid_fast, {"Sigmoid", "fast", 10, unary_supports, unary_kernel<UnaryOp::sigmoid>});
VX_REGISTER_CPU_KERNEL(hard_sigmoid_fast, {"HardSigmoid", "fast", 10, unary_supports, unary_kernel<UnaryOp::hard_sigmoid>});
VX_REGISTER_CPU_KERNEL(hard_swish_fast, {"HardSwish", "fast", 10, unary_supports, unary_kernel<UnaryOp::hard_swish>});
VX_REGISTER_CPU_KERNEL(tanh_fast, {"Tanh", "fast", 10, unary_supports, unary_kernel<UnaryOp::tanh>});
VX_REGISTER_CPU_KERNEL(exp_fast, {"Exp", "fast", 10, unary_supports, unary_kernel<UnaryOp::exp>});
VX_REGISTER_CPU_KERNEL(log_fast, {"Log", "fast", 10, unary_supports, unary_kernel<UnaryOp::log>});
VX_REGISTER_CPU_KERNEL(erf_fast, {"Erf", "fast", 10, unary_supports, unary_kernel<UnaryOp::erf>});
VX_REGISTER_CPU_KERNEL(neg_fast, {"Neg", "fast", 10, unary_supports, unary_kernel<UnaryOp::neg>});
VX_REGISTER_CPU_KERNEL(abs_fast, {"Abs", "fast", 10, unary_supports, unary_kernel<UnaryOp::abs>});
VX_REGISTER_CPU_KERNEL(sqrt_fast, {"Sqrt", "fast", 10, unary_supports, unary_kernel<UnaryOp::sqrt>});
VX_REGISTER_CPU_KERNEL(reciprocal_fast, {"Reciprocal", "fast", 10, unary_supports, unary_kernel<UnaryOp::reciprocal>});
VX_REGISTER_CPU_KERNEL(elu_fast, {"Elu", "fast", 10, unary_supports, unary_kernel<UnaryOp::elu>});
VX_REGISTER_CPU_KERNEL(selu_fast, {"Selu", "fast", 10, unary_supports, unary_kernel<UnaryOp::selu>});
VX_REGISTER_CPU_KERNEL(softplus_fast, {"Softplus", "fast", 10, unary_supports, unary_kernel<UnaryOp::softplus>});
VX_REGISTER_CPU_KERNEL(softsign_fast, {"Softsign", "fast", 10, unary_supports, unary_kernel<UnaryOp::softsign>});
VX_REGISTER_CPU_KERNEL(sin_fast, {"Sin", "fast", 10, unary_supports, unary_kernel<UnaryOp::sin>});
VX_REGISTER_CPU_KERNEL(cos_fast, {"Cos", "fast", 10, unary_supports, unary_kernel<UnaryOp::cos>});
VX_REGISTER_CPU_KERNEL(floor_fast, {"Floor", "fast", 10, unary_supports, unary_kernel<UnaryOp::floor>});
VX_REGISTER_CPU_KERNEL(ceil_fast, {"Ceil", "fast", 10, unary_supports, unary_kernel<UnaryOp::ceil>});
VX_REGISTER_CPU_KERNEL(round_fast, {"Round", "fast", 10, unary_supports, unary_kernel<UnaryOp::round>});

}  // namespace vx::cpu::fast

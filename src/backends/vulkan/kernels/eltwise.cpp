// The element-wise family on Vulkan: unary ops (activations, math, rounding, Not, Cast, Clip with
// constant bounds), broadcasting binary ops (arithmetic, Pow, Mod, Min/Max/Sum/Mean over any
// number of inputs, comparisons, logic, BitShift, PRelu) and Where. Identity, Dropout and the
// reshapes are aliases (alias_ops.cpp).
// Two shaders with variants per storage type (eltwise_unary.comp, eltwise_binary.comp); the op is
// a push constant.
#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/vulkan/kernels/op_args.h"
#include "core/error.h"
#include "ops/fused_ops.h"
#include "ops/shape_rules.h"

namespace vx::vk {
namespace {

// Matches eltwise_binary.comp's push block.
struct EltwisePush {
  uint32_t count = 0;
  int32_t op = 0;
  float alpha = 0, beta = 0, gamma = 0;
  int32_t flags = 0;
  int32_t dims[kMaxRank]{};
  int32_t sa[kMaxRank]{};
  int32_t sb[kMaxRank]{};
  int32_t sc[kMaxRank]{};
};
static_assert(sizeof(EltwisePush) <= kOpPushConstantBytes);

// Matches eltwise_unary.comp's push block.
struct UnaryPush {
  uint32_t count = 0;
  int32_t op = 0;
  float alpha = 0, beta = 0, gamma = 0;
  int32_t flags = 0;
  int32_t imin = std::numeric_limits<int32_t>::min(), imax = std::numeric_limits<int32_t>::max();
};

enum BinaryOp {
  kAdd = 0, kSub, kMul, kDiv, kPow, kMin, kMax, kMod, kFmod, kPRelu, kEqual, kLess, kLessEqual, kGreater,
  kGreaterEqual, kAnd, kOr, kXor, kShiftLeft, kShiftRight
};
enum UnaryOp {
  kCopy = 0, kRelu, kLeakyRelu, kElu, kSigmoid, kHardSigmoid, kHardSwish, kTanh, kErf, kSoftplus, kSqrt,
  kReciprocal, kExp, kLog, kNeg, kAbs, kFloor, kCeil, kRound, kNot, kSign, kSin, kCos, kSelu, kCelu,
  kThresholdedRelu, kSoftsign, kClip, kScale, kTan, kAsin, kAcos, kAtan, kSinh, kCosh, kAsinh, kAcosh, kAtanh,
  kIsNan, kIsInf, kGelu, kGeluTanh, kShrink, kToBool, kOne, kEye
};

// Integer wrap of an output narrower than int32 (eltwise_math.glsl's wrap_int).
int32_t wrap_flags(DType t) {
  if (t == DType::u8) return 1 << 8;
  if (t == DType::i8) return 2 << 8;
  return 0;
}

// Fills dims (the output's, padded with leading 1s to rank 6).
void set_dims(const OpInfo& info, const Shape& out, int32_t* dims) {
  VX_CHECK(out.rank() <= size_t(kMaxRank), Unsupported, label(info), ": rank ", out.rank(),
           " exceeds the element-wise shaders' ", kMaxRank);
  const size_t pad = kMaxRank - out.rank();
  for (int d = 0; d < kMaxRank; ++d) dims[d] = d < int(pad) ? 1 : int32_t(out[size_t(d) - pad]);
}

// Strides of `in` read at the output's coordinates (0 along broadcast axes; numpy alignment from
// the right). Returns whether `in` has exactly the output's shape.
bool set_strides(const OpInfo& info, const Shape& in, const Shape& out, int32_t* strides) {
  const std::vector<int64_t> s = broadcast_strides(in, out, label(info));
  const size_t pad = kMaxRank - out.rank();
  for (size_t d = 0; d < size_t(kMaxRank); ++d) strides[d] = d < pad ? 0 : int32_t(s[d - pad]);
  return in == out;
}

// Matches eltwise_fast.comp's push block.
struct FastPush {
  uint32_t count = 0;
  uint32_t a_div = 1, a_mod = 1, b_div = 1, b_mod = 1;
};

// How eltwise_fast.comp indexes an input: 0 the output's shape, 1 a scalar, 2 (i / div) % mod
// (the input's non-broadcast axes form one block of the output's axes); -1 when none applies.
int fast_mode(const OpInfo& info, const Shape& in, const Shape& out, uint32_t& div, uint32_t& mod) {
  if (in == out) return 0;
  if (in.numel() == 1) return 1;
  int32_t dims[kMaxRank], strides[kMaxRank];
  set_dims(info, out, dims);
  set_strides(info, in, out, strides);
  int first = -1, last = -1;
  for (int d = 0; d < kMaxRank; ++d) {
    if (strides[d] == 0) continue;
    if (first < 0) first = d;
    for (int e = last + 1; first < d && e < d; ++e)
      if (dims[e] != 1) return -1;  // a broadcast axis inside: two blocks
    last = d;
  }
  if (first < 0) return -1;
  int64_t inner = 1, block = 1;
  for (int d = last + 1; d < kMaxRank; ++d) inner *= dims[d];
  for (int d = first; d <= last; ++d) block *= dims[d];
  if (block != in.numel()) return -1;
  div = uint32_t(inner);
  mod = uint32_t(block);
  return 2;
}

bool fast_op(BinaryOp op) {
  return op == kAdd || op == kSub || op == kMul || op == kDiv || op == kMin || op == kMax || op == kPRelu;
}

Dispatch binary_dispatch(const OpInfo& info, BinaryOp op, Binding a, const OpTensor& ta, Binding b,
                         const OpTensor& tb, const OpTensor& out, float alpha = 0) {
  if (fast_op(op) && ta.device == out.device && tb.device == out.device && out.device != DeviceType::i32 &&
      out.shape.numel() > 0) {
    FastPush fast;
    fast.count = checked_count32(info, out.shape.numel());
    const int ma = fast_mode(info, ta.shape, out.shape, fast.a_div, fast.a_mod);
    const int mb = fast_mode(info, tb.shape, out.shape, fast.b_div, fast.b_mod);
    if (ma >= 0 && mb >= 0) {
      Dispatch d;
      d.shader = shader_variant("eltwise_fast", {out.device});
      d.spec_constants = {int32_t(op), ma, mb};
      d.bindings = {a, b, Binding::out(0)};
      d.set_push(fast);
      d.groups = linear_groups((uint64_t(fast.count) + 3) / 4);
      return d;
    }
  }
  EltwisePush push;
  push.count = checked_count32(info, out.shape.numel());
  push.op = op;
  push.alpha = alpha;
  set_dims(info, out.shape, push.dims);
  if (set_strides(info, ta.shape, out.shape, push.sa)) push.flags |= 1;
  if (set_strides(info, tb.shape, out.shape, push.sb)) push.flags |= 2;
  push.flags |= 4 | wrap_flags(out.dtype);
  Dispatch d;
  d.shader = shader_variant("eltwise_binary", {ta.device, tb.device, out.device});
  d.bindings = {a, b, Binding::out(0)};
  d.set_push(push);
  d.groups = linear_groups(push.count);
  return d;
}

Dispatch unary_dispatch(const OpInfo& info, UnaryOp op, Binding x, DeviceType in, const OpTensor& out,
                        float alpha = 0, float beta = 0, float gamma = 0) {
  UnaryPush push;
  push.count = checked_count32(info, out.shape.numel());
  push.op = op;
  push.alpha = alpha;
  push.beta = beta;
  push.gamma = gamma;
  push.flags = wrap_flags(out.dtype);
  Dispatch d;
  // 4 per invocation with vector loads (the vec4 variants) where input and output are one float type.
  const bool vec4 = in == out.device && in != DeviceType::i32;
  d.shader = shader_variant("eltwise_unary", {in, out.device}, vec4 ? "vec4" : "");
  d.bindings = {x, Binding::out(0)};
  d.set_push(push);
  d.groups = linear_groups(vec4 ? (uint64_t(push.count) + 3) / 4 : push.count);
  return d;
}

// ---------------- unary ----------------

struct UnarySpec {
  UnaryOp op;
  bool float_only = true;  // else integers too (integer math in the shader)
  float alpha = 0, beta = 0, gamma = 0;
  const char* alpha_attr = nullptr;
  const char* beta_attr = nullptr;
  const char* gamma_attr = nullptr;
};

OpPlan plan_unary(const OpInfo& info, UnarySpec spec) {
  require_inputs(info, 1);
  const OpTensor& x = info.inputs[0];
  const OpTensor& y = info.outputs[0];
  VX_CHECK(!spec.float_only || is_float(x.dtype), Unsupported, label(info), ": ", dtype_name(x.dtype),
           " input (the Vulkan op handles floats)");
  VX_CHECK(x.shape == y.shape, InvalidArgument, label(info), ": output shape ", y.shape.str(),
           " differs from the input's ", x.shape.str());
  const Attributes& at = info.node.attrs;
  if (spec.alpha_attr) spec.alpha = at.get_float(spec.alpha_attr, spec.alpha);
  if (spec.beta_attr) spec.beta = at.get_float(spec.beta_attr, spec.beta);
  if (spec.gamma_attr) spec.gamma = at.get_float(spec.gamma_attr, spec.gamma);
  OpPlan plan;
  plan.dispatches.push_back(unary_dispatch(info, spec.op, Binding::in(0), x.device, y, spec.alpha, spec.beta, spec.gamma));
  if (plan.dispatches[0].shader.ends_with("_vec4")) plan.variant = "vec4";
  return plan;
}

OpFactory unary(UnarySpec spec) {
  return [spec](const OpInfo& info) { return plan_unary(info, spec); };
}

OpPlan plan_not(const OpInfo& info) {
  require_inputs(info, 1);
  OpPlan plan;
  plan.dispatches.push_back(unary_dispatch(info, kNot, Binding::in(0), info.inputs[0].device, info.outputs[0]));
  return plan;
}

OpPlan plan_is_inf(const OpInfo& info) {
  require_inputs(info, 1);
  VX_CHECK(is_float(info.inputs[0].dtype), Unsupported, label(info), ": non-float input");
  const Attributes& at = info.node.attrs;
  OpPlan plan;
  plan.dispatches.push_back(unary_dispatch(info, kIsInf, Binding::in(0), info.inputs[0].device, info.outputs[0],
                                           float(at.get_int("detect_positive", 1)),
                                           float(at.get_int("detect_negative", 1))));
  return plan;
}

OpPlan plan_is_nan(const OpInfo& info) {
  require_inputs(info, 1);
  VX_CHECK(is_float(info.inputs[0].dtype), Unsupported, label(info), ": non-float input");
  OpPlan plan;
  plan.dispatches.push_back(unary_dispatch(info, kIsNan, Binding::in(0), info.inputs[0].device, info.outputs[0]));
  return plan;
}

OpPlan plan_gelu(const OpInfo& info) {
  const std::string approximate = info.node.attrs.get_string("approximate", "none");
  VX_CHECK(approximate == "none" || approximate == "tanh", InvalidArgument, label(info), ": approximate '",
           approximate, "'");
  const bool tanh_form = approximate == "tanh";
  return plan_unary(info, {tanh_form ? kGeluTanh : kGelu});
}

// Cast / CastLike: float <-> int <-> bool (every integer is int32 on the device; narrower targets wrap).
OpPlan plan_cast(const OpInfo& info) {
  require_inputs(info, 1);
  const OpTensor& x = info.inputs[0];
  const OpTensor& y = info.outputs[0];
  VX_CHECK(x.shape == y.shape, InvalidArgument, label(info), ": output shape differs from the input's");
  UnaryOp op = kCopy;
  if (y.dtype == DType::boolean) op = kToBool;
  OpPlan plan;
  plan.dispatches.push_back(unary_dispatch(info, op, Binding::in(0), x.device, y));
  return plan;
}

// Clip: bounds from attributes (opset < 11) or inputs 1 and 2; constant bounds go into push
// constants, runtime ones become Max / Min dispatches.
OpPlan plan_clip(const OpInfo& info) {
  require_inputs(info, 1);
  const OpTensor& x = info.inputs[0];
  const OpTensor& y = info.outputs[0];
  OpPlan plan;
  if (info.opset > 0 && info.opset < 11) {
    VX_CHECK(is_float(x.dtype), Unsupported, label(info), ": non-float input");
    const float lo = info.node.attrs.get_float("min", -std::numeric_limits<float>::infinity());
    const float hi = info.node.attrs.get_float("max", std::numeric_limits<float>::infinity());
    plan.dispatches.push_back(unary_dispatch(info, kClip, Binding::in(0), x.device, y, lo, hi));
    return plan;
  }
  const bool has_lo = info.has_input(1), has_hi = info.has_input(2);
  const bool lo_const = !has_lo || info.inputs[1].constant, hi_const = !has_hi || info.inputs[2].constant;
  if (lo_const && hi_const) {
    double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
    if (has_lo) {
      VX_CHECK(info.inputs[1].constant->numel() == 1, InvalidArgument, label(info), ": min is not a scalar");
      lo = info.inputs[1].constant->get(0);
    }
    if (has_hi) {
      VX_CHECK(info.inputs[2].constant->numel() == 1, InvalidArgument, label(info), ": max is not a scalar");
      hi = info.inputs[2].constant->get(0);
    }
    Dispatch d = unary_dispatch(info, kClip, Binding::in(0), x.device, y, float(lo), float(hi));
    if (x.device == DeviceType::i32) {
      UnaryPush push;
      std::memcpy(&push, d.push.data(), sizeof push);
      push.imin = int32_t(std::clamp<double>(lo, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
      push.imax = int32_t(std::clamp<double>(hi, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
      d.set_push(push);
    }
    plan.dispatches.push_back(d);
    return plan;
  }
  // Runtime bounds: y = min(max(x, lo), hi), the second pass in place.
  Binding src = Binding::in(0);
  OpTensor src_t = x;
  if (has_lo) {
    plan.dispatches.push_back(binary_dispatch(info, kMax, src, src_t, Binding::in(1), info.inputs[1], y));
    src = Binding::out(0);
    src_t = y;
  }
  if (has_hi) plan.dispatches.push_back(binary_dispatch(info, kMin, src, src_t, Binding::in(2), info.inputs[2], y));
  if (plan.dispatches.empty()) plan.dispatches.push_back(unary_dispatch(info, kCopy, src, x.device, y));
  return plan;
}

// EyeLike: a 2-D identity-like tensor of the input's shape (only the shape is read).
OpPlan plan_eye_like(const OpInfo& info) {
  require_inputs(info, 1);
  const OpTensor& y = info.outputs[0];
  VX_CHECK(y.shape.rank() == 2 && y.shape == info.inputs[0].shape, InvalidArgument, label(info),
           ": EyeLike needs a 2-D input, got ", info.inputs[0].shape.str());
  UnaryPush push;
  push.count = checked_count32(info, y.shape.numel());
  push.op = kEye;
  push.imin = int32_t(std::max<int64_t>(y.shape[1], 1));
  const int64_t k = info.node.attrs.get_int("k", 0);
  push.imax = int32_t(std::clamp<int64_t>(k, -int64_t(1) << 30, int64_t(1) << 30));
  Dispatch d;
  d.shader = shader_variant("eltwise_unary", {y.device, y.device});
  d.bindings = {Binding::out(0), Binding::out(0)};
  d.set_push(push);
  d.groups = linear_groups(push.count);
  OpPlan plan;
  plan.dispatches.push_back(d);
  return plan;
}

// ---------------- binary ----------------

enum class BinaryKind { arithmetic, compare, logic, shift };

OpPlan plan_binary(const OpInfo& info, BinaryOp op, BinaryKind kind) {
  require_inputs(info, 2);
  const OpTensor &a = info.inputs[0], &b = info.inputs[1], &y = info.outputs[0];
  if (op == kPow) {
    VX_CHECK(a.device == y.device, InvalidArgument, label(info), ": Pow's output type differs from the base's");
  } else {
    VX_CHECK(a.device == b.device, Unsupported, label(info), ": inputs of different types (",
             dtype_name(a.dtype), ", ", dtype_name(b.dtype), ")");
  }
  if (kind == BinaryKind::compare || kind == BinaryKind::logic)
    VX_CHECK(y.device == DeviceType::i32, InvalidArgument, label(info), ": output is not bool");
  if (kind == BinaryKind::shift) {
    VX_CHECK(a.device == DeviceType::i32, Unsupported, label(info), ": BitShift of non-integers");
    VX_CHECK(a.dtype == DType::u8 || a.dtype == DType::i32, Unsupported, label(info), ": BitShift of ",
             dtype_name(a.dtype), " (int32 storage holds uint8 exactly only)");
  }
  if (op == kMod && a.device != DeviceType::i32 && info.node.attrs.get_int("fmod", 0) != 0) op = kFmod;
  if (op == kMod && a.device == DeviceType::i32 && info.node.attrs.get_int("fmod", 0) != 0) op = kFmod;
  OpPlan plan;
  plan.dispatches.push_back(binary_dispatch(info, op, Binding::in(0), a, Binding::in(1), b, y));
  if (plan.dispatches[0].shader.rfind("eltwise_fast", 0) == 0) plan.variant = "vec4";
  return plan;
}

OpFactory binary(BinaryOp op, BinaryKind kind = BinaryKind::arithmetic) {
  return [op, kind](const OpInfo& info) { return plan_binary(info, op, kind); };
}

OpPlan plan_bitshift(const OpInfo& info) {
  const std::string dir = info.node.attrs.get_string("direction", "");
  VX_CHECK(dir == "LEFT" || dir == "RIGHT", InvalidArgument, label(info), ": direction '", dir, "'");
  return plan_binary(info, dir == "LEFT" ? kShiftLeft : kShiftRight, BinaryKind::shift);
}

// PRelu: slope broadcasts to X (unidirectionally); the output has X's shape.
OpPlan plan_prelu(const OpInfo& info) {
  require_inputs(info, 2);
  const OpTensor &x = info.inputs[0], &slope = info.inputs[1], &y = info.outputs[0];
  VX_CHECK(is_float(x.dtype) && x.device == slope.device, Unsupported, label(info), ": non-float PRelu");
  VX_CHECK(y.shape == x.shape, InvalidArgument, label(info), ": output shape differs from X's");
  OpTensor s = slope;
  // Legacy form (as the CPU kernel accepts): a 1-D slope of X's channel count applies along axis 1.
  if (s.shape.rank() == 1 && x.shape.rank() >= 2 && s.shape[0] == x.shape[1] && s.shape[0] != x.shape.dims().back()) {
    std::vector<int64_t> dims(x.shape.rank() - 1, 1);
    dims[0] = s.shape[0];
    s.shape = Shape(dims);
  }
  OpPlan plan;
  plan.dispatches.push_back(binary_dispatch(info, kPRelu, Binding::in(0), x, Binding::in(1), s, y));
  return plan;
}

// Sum, Mean, Max, Min over one or more inputs: a chain of binary dispatches into the output.
OpPlan plan_variadic(const OpInfo& info, BinaryOp op, bool mean) {
  VX_CHECK(!info.inputs.empty() && !info.outputs.empty(), InvalidArgument, label(info), " has no inputs");
  for (size_t i = 0; i < info.inputs.size(); ++i)
    VX_CHECK(info.has_input(i) && info.inputs[i].device == info.inputs[0].device, Unsupported, label(info),
             ": input ", i, " is missing or of another type");
  const OpTensor& y = info.outputs[0];
  OpPlan plan;
  if (info.inputs.size() == 1) {
    VX_CHECK(info.inputs[0].shape == y.shape, InvalidArgument, label(info), ": output shape differs");
    plan.dispatches.push_back(unary_dispatch(info, kCopy, Binding::in(0), info.inputs[0].device, y));
  } else {
    plan.dispatches.push_back(
        binary_dispatch(info, op, Binding::in(0), info.inputs[0], Binding::in(1), info.inputs[1], y));
    for (size_t i = 2; i < info.inputs.size(); ++i)
      plan.dispatches.push_back(binary_dispatch(info, op, Binding::out(0), y, Binding::in(int(i)), info.inputs[i], y));
  }
  if (mean) {
    VX_CHECK(y.device != DeviceType::i32, Unsupported, label(info), ": integer Mean");
    plan.dispatches.push_back(
        unary_dispatch(info, kScale, Binding::out(0), y.device, y, 1.0f / float(info.inputs.size())));
  }
  return plan;
}

OpFactory variadic(BinaryOp op, bool mean = false) {
  return [op, mean](const OpInfo& info) { return plan_variadic(info, op, mean); };
}

OpPlan plan_where(const OpInfo& info) {
  require_inputs(info, 3);
  const OpTensor &c = info.inputs[0], &x = info.inputs[1], &yv = info.inputs[2], &out = info.outputs[0];
  VX_CHECK(c.device == DeviceType::i32 && x.device == yv.device && x.device == out.device, Unsupported,
           label(info), ": input types");
  EltwisePush push;
  push.count = checked_count32(info, out.shape.numel());
  set_dims(info, out.shape, push.dims);
  if (set_strides(info, c.shape, out.shape, push.sa)) push.flags |= 1;
  if (set_strides(info, x.shape, out.shape, push.sb)) push.flags |= 2;
  if (set_strides(info, yv.shape, out.shape, push.sc)) push.flags |= 4;
  Dispatch d;
  d.shader = shader_variant("eltwise_binary", {DeviceType::i32, out.device, out.device}, "where");
  d.bindings = {Binding::in(0), Binding::in(1), Binding::in(2), Binding::out(0)};
  d.set_push(push);
  d.groups = linear_groups(push.count);
  OpPlan plan;
  plan.dispatches.push_back(d);
  return plan;
}

constexpr float kSeluAlpha = 1.67326319217681884765625f;
constexpr float kSeluGamma = 1.05070102214813232421875f;

}  // namespace

// Unary (float).
VX_REGISTER_VK_OP(relu, {"Relu", "", 0, unary({kRelu, false})});
VX_REGISTER_VK_OP(leaky_relu, {"LeakyRelu", "", 0, unary({kLeakyRelu, true, 0.01f, 0, 0, "alpha"})});
VX_REGISTER_VK_OP(elu, {"Elu", "", 0, unary({kElu, true, 1.0f, 0, 0, "alpha"})});
VX_REGISTER_VK_OP(sigmoid, {"Sigmoid", "", 0, unary({kSigmoid})});
VX_REGISTER_VK_OP(hard_sigmoid, {"HardSigmoid", "", 0, unary({kHardSigmoid, true, 0.2f, 0.5f, 0, "alpha", "beta"})});
VX_REGISTER_VK_OP(hard_swish, {"HardSwish", "", 0, unary({kHardSwish})});
VX_REGISTER_VK_OP(tanh, {"Tanh", "", 0, unary({kTanh})});
VX_REGISTER_VK_OP(erf, {"Erf", "", 0, unary({kErf})});
VX_REGISTER_VK_OP(softplus, {"Softplus", "", 0, unary({kSoftplus})});
VX_REGISTER_VK_OP(sqrt, {"Sqrt", "", 0, unary({kSqrt})});
VX_REGISTER_VK_OP(reciprocal, {"Reciprocal", "", 0, unary({kReciprocal})});
VX_REGISTER_VK_OP(exp, {"Exp", "", 0, unary({kExp})});
VX_REGISTER_VK_OP(log, {"Log", "", 0, unary({kLog})});
VX_REGISTER_VK_OP(neg, {"Neg", "", 0, unary({kNeg, false})});
VX_REGISTER_VK_OP(abs, {"Abs", "", 0, unary({kAbs, false})});
VX_REGISTER_VK_OP(sign, {"Sign", "", 0, unary({kSign, false})});
VX_REGISTER_VK_OP(floor, {"Floor", "", 0, unary({kFloor})});
VX_REGISTER_VK_OP(ceil, {"Ceil", "", 0, unary({kCeil})});
VX_REGISTER_VK_OP(round, {"Round", "", 0, unary({kRound})});
VX_REGISTER_VK_OP(sin, {"Sin", "", 0, unary({kSin})});
VX_REGISTER_VK_OP(cos, {"Cos", "", 0, unary({kCos})});
VX_REGISTER_VK_OP(tan, {"Tan", "", 0, unary({kTan})});
VX_REGISTER_VK_OP(asin, {"Asin", "", 0, unary({kAsin})});
VX_REGISTER_VK_OP(acos, {"Acos", "", 0, unary({kAcos})});
VX_REGISTER_VK_OP(atan, {"Atan", "", 0, unary({kAtan})});
VX_REGISTER_VK_OP(sinh, {"Sinh", "", 0, unary({kSinh})});
VX_REGISTER_VK_OP(cosh, {"Cosh", "", 0, unary({kCosh})});
VX_REGISTER_VK_OP(asinh, {"Asinh", "", 0, unary({kAsinh})});
VX_REGISTER_VK_OP(acosh, {"Acosh", "", 0, unary({kAcosh})});
VX_REGISTER_VK_OP(atanh, {"Atanh", "", 0, unary({kAtanh})});
VX_REGISTER_VK_OP(selu, {"Selu", "", 0, unary({kSelu, true, kSeluAlpha, 0, kSeluGamma, "alpha", nullptr, "gamma"})});
VX_REGISTER_VK_OP(celu, {"Celu", "", 0, unary({kCelu, true, 1.0f, 0, 0, "alpha"})});
VX_REGISTER_VK_OP(thresholded_relu, {"ThresholdedRelu", "", 0, unary({kThresholdedRelu, true, 1.0f, 0, 0, "alpha"})});
VX_REGISTER_VK_OP(softsign, {"Softsign", "", 0, unary({kSoftsign})});
VX_REGISTER_VK_OP(shrink, {"Shrink", "", 0, unary({kShrink, true, 0.5f, 0.0f, 0, "lambd", "bias"})});
VX_REGISTER_VK_OP(gelu, {"Gelu", "", 0, plan_gelu});
VX_REGISTER_VK_OP(vx_gelu, {vx::kGelu, "", 0, plan_gelu});  // fuse_gelu's op: the same attribute "approximate"
VX_REGISTER_VK_OP(is_nan, {"IsNaN", "", 0, plan_is_nan});
VX_REGISTER_VK_OP(is_inf, {"IsInf", "", 0, plan_is_inf});
VX_REGISTER_VK_OP(not_op, {"Not", "", 0, plan_not});
VX_REGISTER_VK_OP(cast, {"Cast", "", 0, plan_cast});
VX_REGISTER_VK_OP(cast_like, {"CastLike", "", 0, plan_cast});
VX_REGISTER_VK_OP(clip, {"Clip", "", 0, plan_clip});
VX_REGISTER_VK_OP(eye_like, {"EyeLike", "", 0, plan_eye_like});

// Binary.
VX_REGISTER_VK_OP(add, {"Add", "", 0, binary(kAdd)});
VX_REGISTER_VK_OP(sub, {"Sub", "", 0, binary(kSub)});
VX_REGISTER_VK_OP(mul, {"Mul", "", 0, binary(kMul)});
VX_REGISTER_VK_OP(div, {"Div", "", 0, binary(kDiv)});
VX_REGISTER_VK_OP(pow, {"Pow", "", 0, binary(kPow)});
VX_REGISTER_VK_OP(mod, {"Mod", "", 0, binary(kMod)});
VX_REGISTER_VK_OP(equal, {"Equal", "", 0, binary(kEqual, BinaryKind::compare)});
VX_REGISTER_VK_OP(less, {"Less", "", 0, binary(kLess, BinaryKind::compare)});
VX_REGISTER_VK_OP(less_equal, {"LessOrEqual", "", 0, binary(kLessEqual, BinaryKind::compare)});
VX_REGISTER_VK_OP(greater, {"Greater", "", 0, binary(kGreater, BinaryKind::compare)});
VX_REGISTER_VK_OP(greater_equal, {"GreaterOrEqual", "", 0, binary(kGreaterEqual, BinaryKind::compare)});
VX_REGISTER_VK_OP(and_op, {"And", "", 0, binary(kAnd, BinaryKind::logic)});
VX_REGISTER_VK_OP(or_op, {"Or", "", 0, binary(kOr, BinaryKind::logic)});
VX_REGISTER_VK_OP(xor_op, {"Xor", "", 0, binary(kXor, BinaryKind::logic)});
VX_REGISTER_VK_OP(bitshift, {"BitShift", "", 0, plan_bitshift});
VX_REGISTER_VK_OP(prelu, {"PRelu", "", 0, plan_prelu});
VX_REGISTER_VK_OP(sum, {"Sum", "", 0, variadic(kAdd)});
VX_REGISTER_VK_OP(mean, {"Mean", "", 0, variadic(kAdd, true)});
VX_REGISTER_VK_OP(max, {"Max", "", 0, variadic(kMax)});
VX_REGISTER_VK_OP(min, {"Min", "", 0, variadic(kMin)});
VX_REGISTER_VK_OP(where, {"Where", "", 0, plan_where});

}  // namespace vx::vk

#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32_f32 -DTI=0 -DTO=0
// VARIANT f16_f16 -DTI=1 -DTO=1
// VARIANT i32_i32 -DTI=2 -DTO=2
// VARIANT f32_i32 -DTI=0 -DTO=2
// VARIANT f16_i32 -DTI=1 -DTO=2
// VARIANT i32_f32 -DTI=2 -DTO=0
// VARIANT i32_f16 -DTI=2 -DTO=1
// VARIANT f32_f32_vec4 -DTI=0 -DTO=0 -DVEC4=1
// VARIANT f16_f16_vec4 -DTI=1 -DTO=1 -DVEC4=1
// Unary element-wise ops (activations, math functions, rounding, Cast, Clip): y[i] = op(x[i]), the
// op chosen by a push constant. Variants name the storage of x and y (TI, TO).
// Integer in and out: integer math (Abs, Neg, Sign, Relu, Clip, Not, copies and casts); otherwise
// fp32 math. VEC4 variants (float to the same float type, not EYE): 4 consecutive elements per
// invocation with vector loads and stores (the dispatch has a quarter of the invocations).
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"
#include "eltwise_math.glsl"

layout(std430, binding = 0) readonly buffer X { STORAGE(TI) x[]; };
layout(std430, binding = 1) writeonly buffer Y { STORAGE(TO) y[]; };
#ifdef VEC4
#if TI == 1
#define VEC_T f16vec4
#else
#define VEC_T vec4
#endif
layout(std430, binding = 0) readonly buffer X4 { VEC_T x4[]; };
layout(std430, binding = 1) writeonly buffer Y4 { VEC_T y4[]; };
#endif

// Matches UnaryPush in eltwise.cpp. flags bits 8-9: integer wrap of the output (wrap_int).
layout(push_constant) uniform Push {
  uint count;
  int op;
  float alpha;
  float beta;
  float gamma;
  int flags;
  int imin;
  int imax;
} p;

const int COPY = 0, RELU = 1, LEAKY_RELU = 2, ELU = 3, SIGMOID = 4, HARD_SIGMOID = 5, HARD_SWISH = 6, TANH = 7,
          ERF = 8, SOFTPLUS = 9, SQRT = 10, RECIPROCAL = 11, EXP = 12, LOG = 13, NEG = 14, ABS = 15, FLOOR = 16,
          CEIL = 17, ROUND = 18, NOT = 19, SIGN = 20, SIN = 21, COS = 22, SELU = 23, CELU = 24,
          THRESHOLDED_RELU = 25, SOFTSIGN = 26, CLIP = 27, SCALE = 28, TAN = 29, ASIN = 30, ACOS = 31, ATAN = 32,
          SINH = 33, COSH = 34, ASINH = 35, ACOSH = 36, ATANH = 37, IS_NAN = 38, IS_INF = 39, GELU = 40,
          GELU_TANH = 41, SHRINK = 42, TO_BOOL = 43, ONE = 44, EYE = 45;

#if TI == 2 && TO == 2
int apply(int v) {
  switch (p.op) {
    case RELU: return max(v, 0);
    case NEG: return -v;
    case ABS: return abs(v);
    case SIGN: return sign(v);
    case NOT: return int(v == 0);
    case CLIP: return clamp(v, p.imin, p.imax);
    case TO_BOOL: return int(v != 0);
    case ONE: return 1;
  }
  return v;  // COPY and casts between integer types (the wrap follows)
}
#else
float apply(float v) {
  switch (p.op) {
    case COPY: return v;
    case RELU: return max(v, 0.0);
    case LEAKY_RELU: return v < 0.0 ? p.alpha * v : v;
    case ELU: return v < 0.0 ? p.alpha * expm1_accurate(v) : v;
    case SIGMOID: return sigmoid_stable(v);
    case HARD_SIGMOID: return clamp(p.alpha * v + p.beta, 0.0, 1.0);
    case HARD_SWISH: return v * clamp(v / 6.0 + 0.5, 0.0, 1.0);
    case TANH: return tanh_stable(v);
    case ERF: return erf_accurate(v);
    case SOFTPLUS: return max(v, 0.0) + log1p_accurate(exp(-abs(v)));
    case SQRT: return sqrt(v);
    case RECIPROCAL: return 1.0 / v;
    case EXP: return exp(v);
    case LOG: return log(v);
    case NEG: return -v;
    case ABS: return abs(v);
    case FLOOR: return floor(v);
    case CEIL: return ceil(v);
    case ROUND: return roundEven(v);
    case NOT: return float(v == 0.0);
    case SIGN: return isnan(v) ? v : sign(v);
    case SIN: return sin(v);
    case COS: return cos(v);
    case SELU: return v > 0.0 ? p.gamma * v : p.gamma * p.alpha * expm1_accurate(v);
    case CELU: return max(0.0, v) + min(0.0, p.alpha * expm1_accurate(v / p.alpha));
    case THRESHOLDED_RELU: return v > p.alpha ? v : 0.0;
    case SOFTSIGN: return v / (1.0 + abs(v));
    case CLIP: return isnan(v) ? v : min(max(v, p.alpha), p.beta);
    case SCALE: return v * p.alpha;
    case TAN: return tan(v);
    // GLSL's asin / acos are far less accurate than atan on some drivers (lavapipe).
    case ASIN: return abs(v) > 1.0 ? uintBitsToFloat(0x7FC00000u) : atan(v, sqrt((1.0 - v) * (1.0 + v)));
    case ACOS: return abs(v) > 1.0 ? uintBitsToFloat(0x7FC00000u) : 2.0 * atan(sqrt((1.0 - v) * (1.0 + v)), 1.0 + v);
    case ATAN: return atan(v);
    case SINH: return abs(v) < 0.1 ? v * (1.0 + v * v * (1.0 / 6.0 + v * v / 120.0)) : 0.5 * (exp(v) - exp(-v));
    case COSH: return 0.5 * (exp(v) + exp(-v));
    case ASINH: return sign(v) * log(abs(v) + sqrt(v * v + 1.0));
    case ACOSH: return log(v + sqrt(v * v - 1.0));
    case ATANH: return 0.5 * (log1p_accurate(v) - log1p_accurate(-v));
    case IS_NAN: return float(isnan(v));
    case IS_INF: return float(isinf(v) && ((v > 0.0 && p.alpha != 0.0) || (v < 0.0 && p.beta != 0.0)));
    case GELU: return 0.5 * v * (1.0 + erf_accurate(v * 0.7071067811865476));
    case GELU_TANH: return 0.5 * v * (1.0 + tanh_stable(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    case SHRINK: return v < -p.alpha ? v + p.beta : (v > p.alpha ? v - p.beta : 0.0);
    case TO_BOOL: return float(v != 0.0);
    case ONE: return 1.0;
  }
  return v;
}
#endif

void main() {
#ifdef VEC4
  uint first = 4u * linear_index();
  if (first >= p.count) return;
  if (first + 4u <= p.count) {
    vec4 v = vec4(x4[first >> 2]);
    y4[first >> 2] = VEC_T(vec4(apply(v.x), apply(v.y), apply(v.z), apply(v.w)));
    return;
  }
  for (uint e = first; e < p.count; ++e) y[e] = STORAGE(TO)(apply(float(x[e])));
#else
  uint i = linear_index();
  if (i >= p.count) return;
  const int wrap = (p.flags >> 8) & 3;
  if (p.op == EYE) {  // EyeLike: ones where column - row == k (imin = columns, imax = k); x is not read
    int column = int(i % uint(p.imin)), row = int(i / uint(p.imin));
    y[i] = STORAGE(TO)(column - row == p.imax ? 1 : 0);
    return;
  }
#if TI == 2 && TO == 2
  y[i] = wrap_int(apply(x[i]), wrap);
#else
  float r = apply(float(x[i]));
#if TO == 2
  // float -> narrow integer saturates (as the CPU's Cast); integer -> integer wraps (above).
  int v = saturate_int(r);
  if (wrap == 1) v = clamp(v, 0, 255);
  if (wrap == 2) v = clamp(v, -128, 127);
  y[i] = v;
#else
  y[i] = STORAGE(TO)(r);
#endif
#endif
#endif
}

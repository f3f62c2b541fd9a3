#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32_f32_f32 -DTA=0 -DTB=0 -DTO=0
// VARIANT f16_f16_f16 -DTA=1 -DTB=1 -DTO=1
// VARIANT i32_i32_i32 -DTA=2 -DTB=2 -DTO=2
// VARIANT f32_f32_i32 -DTA=0 -DTB=0 -DTO=2
// VARIANT f16_f16_i32 -DTA=1 -DTB=1 -DTO=2
// VARIANT f32_i32_f32 -DTA=0 -DTB=2 -DTO=0
// VARIANT f16_i32_f16 -DTA=1 -DTB=2 -DTO=1
// VARIANT i32_f32_i32 -DTA=2 -DTB=0 -DTO=2
// VARIANT i32_f16_i32 -DTA=2 -DTB=1 -DTO=2
// VARIANT i32_f32_f32_where -DWHERE=1 -DTA=2 -DTB=0 -DTO=0
// VARIANT i32_f16_f16_where -DWHERE=1 -DTA=2 -DTB=1 -DTO=1
// VARIANT i32_i32_i32_where -DWHERE=1 -DTA=2 -DTB=2 -DTO=2
// Broadcasting binary element-wise ops (ONNX multidirectional broadcasting, rank <= 6): out[i] =
// op(a[ia], b[ib]), the op chosen by a push constant. Variants name the storage of a, b and out
// (TA, TB, TO): float math in fp32 unless both inputs are integers. The where variants compute
// out = cond ? x : y with three inputs (cond i32, x and y of the output's type).
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"
#include "eltwise_math.glsl"
#include "float_division.glsl"

layout(std430, binding = 0) readonly buffer A { STORAGE(TA) a[]; };
layout(std430, binding = 1) readonly buffer B { STORAGE(TB) b[]; };
#ifdef WHERE
layout(std430, binding = 2) readonly buffer C { STORAGE(TB) c[]; };
layout(std430, binding = 3) writeonly buffer O { STORAGE(TO) o[]; };
#else
layout(std430, binding = 2) writeonly buffer O { STORAGE(TO) o[]; };
#endif

// Matches EltwisePush in eltwise.cpp. Strides are 0 along broadcast axes; dims are padded with
// leading 1s to rank 6. flags: bit 0/1/2 = input a/b/c has the output's shape (index = i);
// bits 8-9: integer wrap of the output (wrap_int).
layout(push_constant) uniform Push {
  uint count;
  int op;
  float alpha;
  float beta;
  float gamma;
  int flags;
  int dims[6];
  int sa[6];
  int sb[6];
  int sc[6];
} p;

const int ADD = 0, SUB = 1, MUL = 2, DIV = 3, POW = 4, MIN = 5, MAX = 6, MOD = 7, FMOD = 8, PRELU = 9, EQUAL = 10,
          LESS = 11, LESS_EQUAL = 12, GREATER = 13, GREATER_EQUAL = 14, AND = 15, OR = 16, XOR = 17,
          SHIFT_LEFT = 18, SHIFT_RIGHT = 19;

#if TA == 2 && TB == 2 && !defined(WHERE)
#define INT_MATH 1
int apply(int x, int y) {
  switch (p.op) {
    case ADD: return x + y;
    case SUB: return x - y;
    case MUL: return x * y;
    case DIV:
      if (y == 0) return 0;
      if (y == -1) return -x;  // also INT_MIN / -1 = INT_MIN (wraps), as the CPU
      return x / y;            // OpSDiv truncates toward zero
    case POW: {
      if (y < 0) return x == 1 ? 1 : (x == -1 ? ((y & 1) != 0 ? -1 : 1) : 0);
      int r = 1, base = x, n = y;
      while (n > 0) {
        if ((n & 1) != 0) r *= base;
        base *= base;
        n >>= 1;
      }
      return r;
    }
    case MIN: return min(x, y);
    case MAX: return max(x, y);
    case MOD:
    case FMOD: {
      if (y == 0 || y == -1) return 0;
      int r = x - (x / y) * y;  // C remainder (sign of the dividend)
      if (p.op == MOD && r != 0 && ((r < 0) != (y < 0))) r += y;
      return r;
    }
    case EQUAL: return int(x == y);
    case LESS: return int(x < y);
    case LESS_EQUAL: return int(x <= y);
    case GREATER: return int(x > y);
    case GREATER_EQUAL: return int(x >= y);
    case AND: return int(x != 0 && y != 0);
    case OR: return int(x != 0 || y != 0);
    case XOR: return int((x != 0) != (y != 0));
    case SHIFT_LEFT: return y >= 32 ? 0 : int(uint(x) << uint(y));
    case SHIFT_RIGHT: return y >= 32 ? 0 : int(uint(x) >> uint(y));
  }
  return 0;
}
#else
float apply(float x, float y) {
  switch (p.op) {
    case ADD: return x + y;
    case SUB: return x - y;
    case MUL: return x * y;
    case DIV: return quotient(x, y);
    case POW: return pow_onnx(x, y);
    case MIN: return (isnan(x) || isnan(y)) ? x + y : min(x, y);
    case MAX: return (isnan(x) || isnan(y)) ? x + y : max(x, y);
    case MOD:
    case FMOD: {
      float r = x - y * trunc(x / y);  // C fmod
      if (abs(r) >= abs(y)) r = 0.0;   // guards the rounding of x / y
      if (p.op == MOD && r != 0.0 && ((r < 0.0) != (y < 0.0))) r += y;
      return r;
    }
    case PRELU: return x < 0.0 ? x * y : x;
    case EQUAL: return float(x == y);
    case LESS: return float(x < y);
    case LESS_EQUAL: return float(x <= y);
    case GREATER: return float(x > y);
    case GREATER_EQUAL: return float(x >= y);
    case AND: return float(x != 0.0 && y != 0.0);
    case OR: return float(x != 0.0 || y != 0.0);
    case XOR: return float((x != 0.0) != (y != 0.0));
  }
  return 0.0;
}
#endif

void main() {
  uint i = linear_index();
  if (i >= p.count) return;
  int ia = int(i), ib = int(i), ic = int(i);
  if ((p.flags & 7) != 7) {
    int rem = int(i), oa = 0, ob = 0, oc = 0;
    for (int d = 5; d >= 0; --d) {
      int c = rem % p.dims[d];
      rem /= p.dims[d];
      oa += c * p.sa[d];
      ob += c * p.sb[d];
      oc += c * p.sc[d];
    }
    if ((p.flags & 1) == 0) ia = oa;
    if ((p.flags & 2) == 0) ib = ob;
    if ((p.flags & 4) == 0) ic = oc;
  }
  const int wrap = (p.flags >> 8) & 3;
#ifdef WHERE
  o[i] = a[ia] != 0 ? b[ib] : c[ic];
#elif defined(INT_MATH)
  o[i] = wrap_int(apply(a[ia], b[ib]), wrap);
#else
  float r = apply(float(a[ia]), float(b[ib]));
#if TO == 2
  o[i] = wrap_int(saturate_int(r), wrap);
#else
  o[i] = STORAGE(TO)(r);
#endif
#endif
}

#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// Fast paths of the float binary element-wise ops (eltwise.cpp picks them; everything else takes
// eltwise_binary.comp): a, b and out of one storage type, the op and each input's indexing fixed by
// specialization constants (no per-element switch, no rank-6 coordinate loop). Each invocation
// handles 4 consecutive outputs with vector loads and stores where the layout allows:
//   mode 0: the input has the output's shape (index i)
//   mode 1: a scalar (index 0)
//   mode 2: index (i / div) % mod  (a bias row: div 1, mod = row length; a column: div = row length)
// fp32 arithmetic; f16 storage with TX=1.
#include "element_types.glsl"
#include "float_division.glsl"

layout(constant_id = 0) const int OP = 0;  // eltwise_binary.comp's numbering (ADD .. MAX, PRELU)
layout(constant_id = 1) const int A_MODE = 0;
layout(constant_id = 2) const int B_MODE = 0;
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

// Matches FastPush in eltwise.cpp.
layout(push_constant) uniform Push {
  uint count;
  uint a_div, a_mod, b_div, b_mod;
} p;

// Scalar and vec4 views of each buffer (the vec4 ones only at multiples of 4).
layout(std430, binding = 0) readonly buffer A { elem_t a[]; };
layout(std430, binding = 0) readonly buffer A4 { elem4_t a4[]; };
layout(std430, binding = 1) readonly buffer B { elem_t b[]; };
layout(std430, binding = 1) readonly buffer B4 { elem4_t b4[]; };
layout(std430, binding = 2) writeonly buffer O { elem_t o[]; };
layout(std430, binding = 2) writeonly buffer O4 { elem4_t o4[]; };

const int ADD = 0, SUB = 1, MUL = 2, DIV = 3, MIN = 5, MAX = 6, PRELU = 9;

float apply(float x, float y) {
  if (OP == ADD) return x + y;
  if (OP == SUB) return x - y;
  if (OP == MUL) return x * y;
  if (OP == DIV) return quotient(x, y);
  if (OP == MIN) return (isnan(x) || isnan(y)) ? x + y : min(x, y);
  if (OP == MAX) return (isnan(x) || isnan(y)) ? x + y : max(x, y);
  if (OP == PRELU) return x < 0.0 ? x * y : x;
  return 0.0;
}

vec4 apply4(vec4 x, vec4 y) {
  if (OP == ADD) return x + y;
  if (OP == SUB) return x - y;
  if (OP == MUL) return x * y;
  if (OP == DIV) return vec4(quotient(x.x, y.x), quotient(x.y, y.y), quotient(x.z, y.z), quotient(x.w, y.w));
  return vec4(apply(x.x, y.x), apply(x.y, y.y), apply(x.z, y.z), apply(x.w, y.w));
}

// 4 values of an input for outputs i..i+3 (i a multiple of 4, all in range).
vec4 load_a(uint i) {
  if (A_MODE == 0) return vec4(a4[i >> 2]);
  if (A_MODE == 1) return vec4(float(a[0]));
  if (p.a_div == 1u && (p.a_mod & 3u) == 0u) return vec4(a4[(i % p.a_mod) >> 2]);
  if ((p.a_div & 3u) == 0u) return vec4(float(a[(i / p.a_div) % p.a_mod]));
  vec4 v;
  for (uint k = 0u; k < 4u; ++k) v[k] = float(a[((i + k) / p.a_div) % p.a_mod]);
  return v;
}

vec4 load_b(uint i) {
  if (B_MODE == 0) return vec4(b4[i >> 2]);
  if (B_MODE == 1) return vec4(float(b[0]));
  if (p.b_div == 1u && (p.b_mod & 3u) == 0u) return vec4(b4[(i % p.b_mod) >> 2]);
  if ((p.b_div & 3u) == 0u) return vec4(float(b[(i / p.b_div) % p.b_mod]));
  vec4 v;
  for (uint k = 0u; k < 4u; ++k) v[k] = float(b[((i + k) / p.b_div) % p.b_mod]);
  return v;
}

uint index_of(int mode, uint i, uint div, uint mod_) { return mode == 0 ? i : (mode == 1 ? 0u : (i / div) % mod_); }

void main() {
  uint i = 4u * (gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * 256u) + gl_GlobalInvocationID.x);
  if (i >= p.count) return;
  if (i + 4u <= p.count) {
    o4[i >> 2] = elem4_t(apply4(load_a(i), load_b(i)));
    return;
  }
  for (uint e = i; e < p.count; ++e)  // the last, partial group
    o[e] = elem_t(apply(float(a[index_of(A_MODE, e, p.a_div, p.a_mod)]), float(b[index_of(B_MODE, e, p.b_div, p.b_mod)])));
}

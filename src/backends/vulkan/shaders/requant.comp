#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// Requantisation of an int32 accumulator (QLinearMatMul, QLinearConv):
//   y = clamp(roundEven((acc + bias[c]) * (sa * sb[c] / sy)) + zy, lo, hi)
// with the multiplier formed in fp32 as the CPU reference does; sb and bias per tensor or per
// channel c = (i / inner) % channels.
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"

layout(std430, binding = 0) readonly buffer Acc { int acc[]; };
layout(std430, binding = 1) readonly buffer SA { elem_t sa[]; };
layout(std430, binding = 2) readonly buffer SB { elem_t sb[]; };
layout(std430, binding = 3) readonly buffer SY { elem_t sy[]; };
layout(std430, binding = 4) readonly buffer ZY { int zy[]; };
layout(std430, binding = 5) readonly buffer Bias { int bias[]; };
layout(std430, binding = 6) writeonly buffer Y { int y[]; };

layout(push_constant) uniform Push {
  uint count;
  int lo;
  int hi;
  uint inner;
  uint channels;
  int flags;  // 1 sb per channel, 2 bias, 4 multiply in double-free order sa * sb / sy (QLinearMatMul)
} p;

void main() {
  uint e = linear_index();
  if (e >= p.count) return;
  uint c = (e / p.inner) % p.channels;
  float scale_b = float(sb[(p.flags & 1) != 0 ? c : 0u]);
  float multiplier = float(sa[0]) * scale_b / float(sy[0]);
  float a = float(acc[e]) + ((p.flags & 2) != 0 ? float(bias[c]) : 0.0);
  y[e] = clamp(int(roundEven(a * multiplier)) + zy[0], p.lo, p.hi);
}

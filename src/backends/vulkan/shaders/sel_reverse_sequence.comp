#version 450
// NO_DEFAULT_VARIANT
// VARIANT f -DTX=0
// VARIANT h -DTX=1
// VARIANT i -DTX=2
// ReverseSequence: along the time axis, the first lens[b] steps of batch b reversed, the rest
// copied. Batch and time are axes 0 and 1 in some order; `block` is the product of the others.
#include "more_common.glsl"

layout(std430, binding = 0) readonly buffer X { TXS x[]; };
layout(std430, binding = 1) readonly buffer L { int lens[]; };
layout(std430, binding = 2) writeonly buffer Y { TXS y[]; };

layout(push_constant) uniform Push {
  uint count;
  uint dim1;  // extent of axis 1
  uint block;
  int batch_axis;
  int time_extent;
} p;

void main() {
  uint e = linear_index();
  if (e >= p.count) return;
  uint rest = e % p.block, a1 = (e / p.block) % p.dim1, a0 = e / (p.block * p.dim1);
  uint b = p.batch_axis == 0 ? a0 : a1;
  int t = int(p.batch_axis == 0 ? a1 : a0);
  int len = clamp(lens[b], 0, p.time_extent);
  int from = t < len ? len - 1 - t : t;
  uint f0 = p.batch_axis == 0 ? a0 : uint(from), f1 = p.batch_axis == 0 ? uint(from) : a1;
  y[e] = x[(f0 * p.dim1 + f1) * p.block + rest];
}

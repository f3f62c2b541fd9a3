#version 450
// NO_DEFAULT_VARIANT
// VARIANT b32 -DTX=0
// VARIANT f16 -DTX=1
// ReverseSequence: the input seen as [d0, d1, block] with time and batch the two leading axes (in
// either order); for batch b the first lens[b] time steps are reversed, the rest copied. Lengths
// outside [0, time steps] are clamped.
#include "element_types.glsl"
#include "tensor_index.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params { int count, block, d1, time_axis, time_steps; } p;
layout(std430, binding = 0) readonly buffer Src { move_t src[]; };
layout(std430, binding = 1) readonly buffer Lens { int lens[]; };
layout(std430, binding = 2) writeonly buffer Dst { move_t dst[]; };

void main() {
  int i = global_index();
  if (i >= p.count) return;
  int k = i % p.block, r = i / p.block;
  int c1 = r % p.d1, c0 = r / p.d1;
  int t = p.time_axis == 0 ? c0 : c1, b = p.time_axis == 0 ? c1 : c0;
  int len = clamp(lens[b], 0, p.time_steps);
  int from = t < len ? len - 1 - t : t;
  int s0 = p.time_axis == 0 ? from : c0, s1 = p.time_axis == 0 ? c1 : from;
  dst[i] = src[(s0 * p.d1 + s1) * p.block + k];
}

#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32_f32 -DTI=0 -DTX=0
// VARIANT f16_f16 -DTI=1 -DTX=1
// VARIANT i32_f32 -DTI=2 -DTX=0
// VARIANT i32_f16 -DTI=2 -DTX=1
// VARIANT i32_i32 -DTI=2 -DTX=2
// VARIANT f32_i32 -DTI=0 -DTX=2
// VARIANT f16_i32 -DTI=1 -DTX=2
// OneHot: y[o, d, i] = indices[o, i] (negative ones from the end) == d ? values[1] : values[0].
// Float indices truncate toward zero. Variants name the storage of the indices and of the values (TI, TX).
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"

layout(std430, binding = 0) readonly buffer I { STORAGE(TI) indices[]; };
layout(std430, binding = 1) readonly buffer V { elem_t values[]; };
layout(std430, binding = 2) writeonly buffer Y { elem_t y[]; };

layout(push_constant) uniform Push {
  uint count;
  uint depth;
  uint inner;  // product of the index dims from the axis on
} p;

void main() {
  uint e = linear_index();
  if (e >= p.count) return;
  uint i = e % p.inner, d = (e / p.inner) % p.depth, o = e / (p.inner * p.depth);
#if TI == 2
  int index = indices[o * p.inner + i];
#else
  float f = float(indices[o * p.inner + i]);
  int index = abs(f) < 2147483520.0 ? int(f) : -2147483647;  // NaN and huge values select nothing
#endif
  if (index < 0) index += int(p.depth);
  y[e] = index == int(d) ? values[1] : values[0];
}

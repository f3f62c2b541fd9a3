#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT i32 -DTX=2
// Tensors generated from their index: ConstantOfShape (a value), Range (start + i * delta, start
// and delta read from the device) and the Hann / Hamming / Blackman windows.
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"

layout(std430, binding = 0) readonly buffer Start { elem_t start[]; };
layout(std430, binding = 1) readonly buffer Delta { elem_t delta[]; };
layout(std430, binding = 2) writeonly buffer Y { elem_t y[]; };

// Matches FillPush in generate.cpp.
layout(push_constant) uniform Push {
  uint count;
  int mode;      // 0 constant, 1 range, 2 Hann, 3 Hamming, 4 Blackman
  float fvalue;  // constant (float outputs); window denominator
  int ivalue;    // constant (integer outputs)
} p;

void main() {
  uint i = linear_index();
  if (i >= p.count) return;
#if TX == 2
  if (p.mode == 1) y[i] = start[0] + int(i) * delta[0];
  else y[i] = p.ivalue;
#else
  float v = p.fvalue;
  if (p.mode == 1) {
    v = float(start[0]) + float(i) * float(delta[0]);
  } else if (p.mode >= 2) {
    float x = p.fvalue > 0.0 ? 6.283185307179586 * float(i) / p.fvalue : 0.0;
    if (p.mode == 2) v = 0.5 - 0.5 * cos(x);
    else if (p.mode == 3) v = 25.0 / 46.0 - (21.0 / 46.0) * cos(x);
    else v = 0.42 - 0.5 * cos(x) + 0.08 * cos(2.0 * x);
  }
  y[i] = elem_t(v);
#endif
}

#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// BatchNormalization (inference): y = (x - mean[c]) * scale[c] / sqrt(var[c] + eps) + B[c], one
// element per invocation, c = (i / inner) % channels. FOLDED: the plan folded the constant
// parameters into y = x * k[c] + t[c] (binding 1: k, binding 2: t; bindings 3, 4 unused).
//   binding 0: X; 1: scale; 2: B; 3: mean; 4: var; 5: Y.
#include "element_types.glsl"
#include "linear_index.glsl"
layout(constant_id = 0) const int FOLDED = 0;
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Params {
  int total, inner, channels;
  float eps;
} p;
layout(std430, binding = 0) readonly buffer BufX { elem_t x_data[]; };
layout(std430, binding = 1) readonly buffer BufS { elem_t s_data[]; };
layout(std430, binding = 2) readonly buffer BufB { elem_t b_data[]; };
layout(std430, binding = 3) readonly buffer BufM { elem_t m_data[]; };
layout(std430, binding = 4) readonly buffer BufV { elem_t v_data[]; };
layout(std430, binding = 5) writeonly buffer BufY { elem_t y_data[]; };

void main() {
  int idx = int(linear_index(256));
  if (idx >= p.total) return;
  int c = (idx / p.inner) % p.channels;
  float x = float(x_data[idx]);
  float y;
  if (FOLDED != 0) {
    y = x * float(s_data[c]) + float(b_data[c]);
  } else {
    float k = float(s_data[c]) * inversesqrt(float(v_data[c]) + p.eps);
    y = (x - float(m_data[c])) * k + float(b_data[c]);
  }
  y_data[idx] = elem_t(y);
}

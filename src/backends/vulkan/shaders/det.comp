#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// Det: one invocation per [M, M] matrix: LU decomposition with partial pivoting in fp32, in place
// on the invocation's copy of its matrix in the f32 scratch buffer.
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"

layout(std430, binding = 0) readonly buffer X { elem_t x[]; };
layout(std430, binding = 1) buffer A { float a[]; };
layout(std430, binding = 2) writeonly buffer Y { elem_t y[]; };

layout(push_constant) uniform Push {
  uint count;  // matrices
  int m;
} p;

void main() {
  uint b = linear_index();
  if (b >= p.count) return;
  int m = p.m;
  uint base = b * uint(m * m);
  for (int i = 0; i < m * m; ++i) a[base + uint(i)] = float(x[base + uint(i)]);
  float det = 1.0;
  for (int col = 0; col < m; ++col) {
    int pivot = col;
    for (int r = col + 1; r < m; ++r)
      if (abs(a[base + uint(r * m + col)]) > abs(a[base + uint(pivot * m + col)])) pivot = r;
    float pv = a[base + uint(pivot * m + col)];
    if (pv == 0.0) {
      det = 0.0;
      break;
    }
    if (pivot != col) {
      for (int k = 0; k < m; ++k) {
        float t = a[base + uint(pivot * m + k)];
        a[base + uint(pivot * m + k)] = a[base + uint(col * m + k)];
        a[base + uint(col * m + k)] = t;
      }
      det = -det;
    }
    det *= pv;
    for (int r = col + 1; r < m; ++r) {
      float f = a[base + uint(r * m + col)] / pv;
      for (int k = col; k < m; ++k) a[base + uint(r * m + k)] -= f * a[base + uint(col * m + k)];
    }
  }
  y[b] = elem_t(det);
}

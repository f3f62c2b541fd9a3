#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// MeanVarianceNormalization: one invocation per group (the coordinates on the kept axes) makes
// two passes over the reduced axes (mean, then variance) and writes (x - mean) / (std + 1e-9).
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"

layout(std430, binding = 0) readonly buffer X { elem_t x[]; };
layout(std430, binding = 1) writeonly buffer Y { elem_t y[]; };

// Matches MvnPush in mvn.cpp: dims padded with leading 1s to rank 6.
layout(push_constant) uniform Push {
  uint count;    // groups
  uint reduced;  // elements per group
  int reduce_mask;  // bit d: axis d is reduced
  int dims[6];
  int strides[6];
} p;

int reduced_offset(uint r) {
  int offset = 0;
  for (int d = 5; d >= 0; --d) {
    if ((p.reduce_mask & (1 << d)) == 0) continue;
    offset += int(r % uint(p.dims[d])) * p.strides[d];
    r /= uint(p.dims[d]);
  }
  return offset;
}

void main() {
  uint g = linear_index();
  if (g >= p.count) return;
  int base = 0;
  uint rest = g;
  for (int d = 5; d >= 0; --d) {
    if ((p.reduce_mask & (1 << d)) != 0) continue;
    base += int(rest % uint(p.dims[d])) * p.strides[d];
    rest /= uint(p.dims[d]);
  }
  float sum = 0.0;
  for (uint r = 0u; r < p.reduced; ++r) sum += float(x[base + reduced_offset(r)]);
  float mean = sum / float(p.reduced);
  float sq = 0.0;
  for (uint r = 0u; r < p.reduced; ++r) {
    float v = float(x[base + reduced_offset(r)]) - mean;
    sq += v * v;
  }
  float inv = 1.0 / (sqrt(sq / float(p.reduced)) + 1e-9);
  for (uint r = 0u; r < p.reduced; ++r) {
    int at = base + reduced_offset(r);
    y[at] = elem_t((float(x[at]) - mean) * inv);
  }
}

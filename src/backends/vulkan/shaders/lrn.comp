#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// LRN (local response normalisation across channels), one element per invocation:
//   y = x / (bias + alpha / size * sum of x^2 over channels [c - (size-1)/2, c + size/2]) ^ beta.
//   binding 0: X [N, C, spatial...]; binding 1: Y.
#include "element_types.glsl"
#include "linear_index.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Params {
  int total, channels, spatial, size;
  float alpha, beta, bias;
} p;
layout(std430, binding = 0) readonly buffer BufX { elem_t x_data[]; };
layout(std430, binding = 1) writeonly buffer BufY { elem_t y_data[]; };

void main() {
  int idx = int(linear_index(256));
  if (idx >= p.total) return;
  int c = (idx / p.spatial) % p.channels, plane0 = idx - c * p.spatial;  // element idx at channel 0
  int before = (p.size - 1) / 2, after = p.size - 1 - before;
  float sum = 0.0;
  for (int cc = max(0, c - before); cc <= min(p.channels - 1, c + after); ++cc) {
    float v = float(x_data[plane0 + cc * p.spatial]);
    sum += v * v;
  }
  y_data[idx] = elem_t(float(x_data[idx]) / pow(p.bias + p.alpha / float(p.size) * sum, p.beta));
}

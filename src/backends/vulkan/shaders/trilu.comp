#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT i32 -DTX=2
// Trilu: keeps the elements with column - row >= k (upper) or <= k (lower) of each matrix in the
// last two axes, zeroes the rest. k comes from the device (input 1) or is 0.
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"

layout(std430, binding = 0) readonly buffer X { elem_t x[]; };
layout(std430, binding = 1) readonly buffer K { int k_value[]; };
layout(std430, binding = 2) writeonly buffer Y { elem_t y[]; };

layout(push_constant) uniform Push {
  uint count;
  uint rows;
  uint cols;
  int upper;
  int has_k;
} p;

void main() {
  uint e = linear_index();
  if (e >= p.count) return;
  int col = int(e % p.cols), row = int((e / p.cols) % p.rows);
  int k = p.has_k != 0 ? k_value[0] : 0;
  bool keep = p.upper != 0 ? col - row >= k : col - row <= k;
  y[e] = keep ? x[e] : elem_t(0);
}

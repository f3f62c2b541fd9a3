#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT i32 -DTX=2
// MaxUnpool, three phases:
//   0: y = 0 and winner = -1 (one invocation per output element)
//   1: each input element i claims its target with atomicMax(winner[target], i)
//   2: the input element that won (the last one, as in the sequential definition) writes y[target]
// Indices are flat positions in the unpooled shape inferred from the attributes; with a larger
// output_shape each value keeps its coordinates. Out-of-range indices are skipped.
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"

layout(std430, binding = 0) readonly buffer X { elem_t x[]; };
layout(std430, binding = 1) readonly buffer I { int indices[]; };
layout(std430, binding = 2) buffer Winner { int winner[]; };
layout(std430, binding = 3) writeonly buffer Y { elem_t y[]; };

// Matches MaxUnpoolPush in max_unpool.cpp.
layout(push_constant) uniform Push {
  uint count;
  int phase;
  int rank;
  int inferred_total;
  int inferred[5];
  int out_dims[5];
} p;

int target_of(int index) {
  if (index < 0 || index >= p.inferred_total) return -1;
  int target = 0, stride = 1;
  int rest = index;
  for (int d = p.rank - 1; d >= 0; --d) {
    int c = rest % p.inferred[d];
    rest /= p.inferred[d];
    if (c >= p.out_dims[d]) return -1;
    target += c * stride;
    stride *= p.out_dims[d];
  }
  return target;
}

void main() {
  uint e = linear_index();
  if (e >= p.count) return;
  if (p.phase == 0) {
    y[e] = elem_t(0);
    winner[e] = -1;
    return;
  }
  int target = target_of(indices[e]);
  if (target < 0) return;
  if (p.phase == 1) atomicMax(winner[target], int(e));
  else if (winner[target] == int(e)) y[target] = x[e];
}

#version 450
// Integer matrix product (values int32 on the device): acc[b, i, j] = sum_k (A[b, i, k] - za) *
// (B[b, k, j] - zb) in int32, MatMulInteger's output or QLinearMatMul's accumulator. za scalar or
// per row, zb scalar or per column; the batch offsets of A and B come from a constant table (numpy
// broadcasting).
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"

layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) readonly buffer B { int bm[]; };
layout(std430, binding = 2) readonly buffer ZA { int za[]; };
layout(std430, binding = 3) readonly buffer ZB { int zb[]; };
layout(std430, binding = 4) readonly buffer Batches { int batch_offsets[]; };  // per batch: A offset, B offset
layout(std430, binding = 5) writeonly buffer Acc { int acc[]; };

// Matches QMatMulPush in qmatmul.cpp.
layout(push_constant) uniform Push {
  uint count;
  int m;
  int k;
  int n;
  int flags;  // 1 za, 2 za per row, 4 zb, 8 zb per column
} p;

void main() {
  uint e = linear_index();
  if (e >= p.count) return;
  int j = int(e % uint(p.n)), i = int((e / uint(p.n)) % uint(p.m)), b = int(e / uint(p.m * p.n));
  int a_base = batch_offsets[2 * b] + i * p.k, b_base = batch_offsets[2 * b + 1] + j;
  int zero_a = (p.flags & 1) != 0 ? za[(p.flags & 2) != 0 ? i : 0] : 0;
  int zero_b = (p.flags & 4) != 0 ? zb[(p.flags & 8) != 0 ? j : 0] : 0;
  int sum = 0;
  for (int t = 0; t < p.k; ++t) sum += (a[a_base + t] - zero_a) * (bm[b_base + t * p.n] - zero_b);
  acc[e] = sum;
}

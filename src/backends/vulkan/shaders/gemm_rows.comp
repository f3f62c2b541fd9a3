#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// GEMM for products of few rows (see gemm_io.glsl for the operands), such as a classifier head at
// batch 1 (M = 1, K and N in the thousands), where a 64 x 64 tile holds one row and K has to be
// split over many workgroups to keep the GPU busy. Here a workgroup computes 16 consecutive
// outputs of one row of Y (workgroup x: the column block, y: the row, z: the batch): its 256
// threads are 16 columns x 16 slices of K, each summing every 16th k of its column (the 16 columns
// of one k are one contiguous run of B where N is its fast axis), then the slices are added in
// shared memory and the epilogue (store_result) writes. Never split. fp32 accumulation.
#include "element_types.glsl"
#include "gemm_io.glsl"

#define COLS 16
#define SLICES 16
layout(local_size_x = COLS * SLICES, local_size_y = 1, local_size_z = 1) in;

shared float s_sum[SLICES][COLS];

void main() {
  const int col = int(gl_LocalInvocationID.x) % COLS, slice = int(gl_LocalInvocationID.x) / COLS;
  const int n = int(gl_WorkGroupID.x) * COLS + col, m = int(gl_WorkGroupID.y);
  const BatchOffsets off = batch_offsets(int(gl_WorkGroupID.z));
  float acc = 0.0;
  if (n < p.N)
    for (int k = slice; k < p.K; k += SLICES) acc += load_a(off.a, m, k) * load_b(off.b, k, n);
  s_sum[slice][col] = acc;
  barrier();
  for (int half_count = SLICES / 2; half_count > 0; half_count /= 2) {
    if (slice < half_count) s_sum[slice][col] += s_sum[slice + half_count][col];
    barrier();
  }
  if (slice == 0 && n < p.N) store_result(off, m, n, s_sum[0][col]);
}

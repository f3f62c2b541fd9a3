#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT f32_subgroup -DTX=0 -DSUBGROUP_SUM=1
// VARIANT f16_subgroup -DTX=1 -DSUBGROUP_SUM=1
// GEMM for products of few rows whose B rows load as 16-byte words (B_VEC, gemm_io.glsl), such as
// a classifier head at batch 1 (M = 1, K in the thousands, N ~1000 weights N-contiguous). A
// workgroup computes 8 consecutive outputs of one row of Y (workgroup x: the column block, y: the
// row, z: the batch): each of its 256 threads sums every 256th k of them from whole words of B
// (one at fp16, two at fp32), four rows of B in flight at a time, then the threads' sums are added
// in shared memory and the epilogue (store_result) writes. Unlike gemm_rows.comp (16 columns, each
// k read by its own thread as one value) every load is a word and K needs no split to fill a big
// GPU: ~N / 8 workgroups. Never split. fp32 accumulation. The `subgroup` variants add the threads'
// sums with subgroup reductions and one exchange through shared memory (1 barrier instead of 16).
#ifdef SUBGROUP_SUM
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#include "element_types.glsl"
#include "gemm_io.glsl"

#define COLS 8
#define SLICES 256
#define UNROLL 4
#define WORDS (COLS / VEC)  // 16-byte words of B per k: 1 (fp16) or 2 (fp32)
layout(local_size_x = SLICES, local_size_y = 1, local_size_z = 1) in;

#ifdef SUBGROUP_SUM
shared float s_part[SLICES][COLS];  // a row per subgroup (SLICES bounds their count)
#else
shared float s_sum[SLICES / 2][COLS];
#endif

void main() {
  const int slice = int(gl_LocalInvocationID.x);
  const int n0 = int(gl_WorkGroupID.x) * COLS, m = int(gl_WorkGroupID.y);
  const BatchOffsets off = batch_offsets(int(gl_WorkGroupID.z));
  float acc[COLS];
  [[unroll]] for (int c = 0; c < COLS; ++c) acc[c] = 0.0;
  for (int k0 = slice; k0 < p.K; k0 += UNROLL * SLICES) {
    [[unroll]] for (int u = 0; u < UNROLL; ++u) {
      const int k = k0 + u * SLICES;
      if (k < p.K) {
        const float a = load_a(off.a, m, k);
        [[unroll]] for (int w = 0; w < WORDS; ++w) {
          // A word starting at or past N (fp32 with N % 8 == 4) adds nothing and is never read.
          if (n0 + w * VEC < p.N) {
            float b[VEC];
            load_b_vec(off.b, k, n0 + w * VEC, b);
            [[unroll]] for (int i = 0; i < VEC; ++i) acc[w * VEC + i] += a * b[i];
          }
        }
      }
    }
  }
#ifdef SUBGROUP_SUM
  [[unroll]] for (int c = 0; c < COLS; ++c) acc[c] = subgroupAdd(acc[c]);
  if (subgroupElect()) [[unroll]] for (int c = 0; c < COLS; ++c) s_part[gl_SubgroupID][c] = acc[c];
  barrier();
  if (slice < COLS && n0 + slice < p.N) {  // a thread per column adds the subgroups' sums
    float total = 0.0;
    for (uint g = 0u; g < gl_NumSubgroups; ++g) total += s_part[g][slice];
    store_result(off, m, n0 + slice, total);
  }
#else
  // Halve the slices until one holds the sums: the upper half writes, the lower half adds.
  for (int half_count = SLICES / 2; half_count > 0; half_count /= 2) {
    if (slice >= half_count && slice < 2 * half_count)
      [[unroll]] for (int c = 0; c < COLS; ++c) s_sum[slice - half_count][c] = acc[c];
    barrier();
    if (slice < half_count)
      [[unroll]] for (int c = 0; c < COLS; ++c) acc[c] += s_sum[slice][c];
    barrier();
  }
  if (slice == 0)
    [[unroll]] for (int c = 0; c < COLS; ++c)
      if (n0 + c < p.N) store_result(off, m, n0 + c, acc[c]);
#endif
}

#version 450
// VARIANT fp16 -DFP16=1
// General tiled GEMM (see nn_gemm_io.glsl for the operands): a workgroup of 256 threads computes a
// 64 x 64 tile of Y, staging 64 x 16 slices of A and 16 x 64 slices of B in shared memory per K
// step; each thread accumulates a 4 x 4 register tile (rows ty + 16 i, columns tx + 16 j, so that
// stores of a half-warp are consecutive). fp32 accumulation in every precision.
#include "nn_gemm_io.glsl"

#define BM 64
#define BN 64
#define BK 16
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

shared float s_a[BK][BM + 1];  // transposed: s_a[k][m]
shared float s_b[BK][BN + 1];

void main() {
  const int lid = int(gl_LocalInvocationID.x), tx = lid % 16, ty = lid / 16;
  const int m0 = int(gl_WorkGroupID.y) * BM, n0 = int(gl_WorkGroupID.x) * BN;
  const BatchOffsets off = batch_offsets(int(gl_WorkGroupID.z) / p.splits);
  int k_begin, k_end;
  k_range(k_begin, k_end);
  float acc[4][4];
  [[unroll]] for (int i = 0; i < 4; ++i)
    [[unroll]] for (int j = 0; j < 4; ++j) acc[i][j] = 0.0;

  for (int k0 = k_begin; k0 < k_end; k0 += BK) {
    [[unroll]] for (int e = 0; e < (BM * BK) / 256; ++e) {
      int idx = lid + 256 * e;
      int mm = A_M_FAST != 0 ? idx % BM : idx / BK, kk = A_M_FAST != 0 ? idx / BM : idx % BK;
      int gm = m0 + mm, gk = k0 + kk;
      s_a[kk][mm] = (gm < p.M && gk < k_end) ? load_a(off.a, gm, gk) : 0.0;
    }
    [[unroll]] for (int e = 0; e < (BK * BN) / 256; ++e) {
      int idx = lid + 256 * e;
      int kk = B_K_FAST != 0 ? idx % BK : idx / BN, nn = B_K_FAST != 0 ? idx / BK : idx % BN;
      int gk = k0 + kk, gn = n0 + nn;
      s_b[kk][nn] = (gk < k_end && gn < p.N) ? load_b(off.b, gk, gn) : 0.0;
    }
    barrier();
    [[unroll]] for (int kk = 0; kk < BK; ++kk) {
      float a[4], b[4];
      [[unroll]] for (int i = 0; i < 4; ++i) a[i] = s_a[kk][ty + 16 * i];
      [[unroll]] for (int j = 0; j < 4; ++j) b[j] = s_b[kk][tx + 16 * j];
      [[unroll]] for (int i = 0; i < 4; ++i)
        [[unroll]] for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
    }
    barrier();
  }
  [[unroll]] for (int i = 0; i < 4; ++i)
    [[unroll]] for (int j = 0; j < 4; ++j) {
      int m = m0 + ty + 16 * i, n = n0 + tx + 16 * j;
      if (m < p.M && n < p.N) store_result(off, m, n, acc[i][j]);
    }
}

#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// General tiled GEMM (see gemm_io.glsl for the operands): a workgroup of 256 threads computes a
// 64 x 64 tile of Y, staging 64 x 16 slices of A and 16 x 64 slices of B in shared memory per K
// step (16-byte global loads where the layout allows: A_VEC / B_VEC); each thread accumulates a
// 4 x 4 register tile (rows 4 ty .. 4 ty + 3, columns 4 tx .. 4 tx + 3), reading its 4 A and 4 B
// values per k as one vec4 each from shared memory. fp32 accumulation in every precision.
#include "element_types.glsl"
#include "gemm_io.glsl"

#define BM 64
#define BN 64
#define BK 16
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

// Rows padded by one vec4: the staging stores of consecutive k then fall in different banks.
shared vec4 s_a[BK][BM / 4 + 1];  // transposed: s_a[k][m / 4][m % 4]
shared vec4 s_b[BK][BN / 4 + 1];  // s_b[k][n / 4][n % 4]

void main() {
  const int lid = int(gl_LocalInvocationID.x), tx = lid % 16, ty = lid / 16;
  const int m0 = int(gl_WorkGroupID.y) * BM, n0 = int(gl_WorkGroupID.x) * BN;
  const BatchOffsets off = batch_offsets(int(gl_WorkGroupID.z) / p.splits);
  int k_begin, k_end;
  k_range(k_begin, k_end);
  vec4 acc[4];
  [[unroll]] for (int i = 0; i < 4; ++i) acc[i] = vec4(0.0);
  const ivec3 origin = B_MODE == 1 ? im2col_origin(n0 + lid % BN) : ivec3(0);  // this thread's B column

  for (int k0 = k_begin; k0 < k_end; k0 += BK) {
    if (A_VEC != 0) {
      for (int idx = lid; idx < BM * BK / VEC; idx += 256) {
        int mm = idx / (BK / VEC), kk = (idx % (BK / VEC)) * VEC, gm = m0 + mm, gk = k0 + kk;
        float v[VEC];
        if (gm < p.M && gk < k_end) load_a_vec(off.a, gm, gk, v);
        else [[unroll]] for (int e = 0; e < VEC; ++e) v[e] = 0.0;
        [[unroll]] for (int e = 0; e < VEC; ++e) s_a[kk + e][mm / 4][mm % 4] = v[e];
      }
    } else {
      [[unroll]] for (int e = 0; e < (BM * BK) / 256; ++e) {
        int idx = lid + 256 * e;
        int mm = A_M_FAST != 0 ? idx % BM : idx / BK, kk = A_M_FAST != 0 ? idx / BM : idx % BK;
        int gm = m0 + mm, gk = k0 + kk;
        s_a[kk][mm / 4][mm % 4] = (gm < p.M && gk < k_end) ? load_a(off.a, gm, gk) : 0.0;
      }
    }
    if (B_VEC != 0) {
      for (int idx = lid; idx < BK * BN / VEC; idx += 256) {
        int kk = idx / (BN / VEC), nn = (idx % (BN / VEC)) * VEC, gk = k0 + kk, gn = n0 + nn;
        float v[VEC];
        if (gk < k_end && gn < p.N) load_b_vec(off.b, gk, gn, v);
        else [[unroll]] for (int e = 0; e < VEC; ++e) v[e] = 0.0;
        [[unroll]] for (int e = 0; e < VEC; ++e) s_b[kk][(nn + e) / 4][(nn + e) % 4] = v[e];
      }
    } else if (B_MODE == 1) {
      [[unroll]] for (int e = 0; e < (BK * BN) / 256; ++e) {
        int kk = lid / BN + e * (256 / BN), nn = lid % BN, gk = k0 + kk;
        s_b[kk][nn / 4][nn % 4] = (gk < k_end && n0 + nn < p.N) ? load_b_im2col(off.b, gk, origin) : 0.0;
      }
    } else {
      [[unroll]] for (int e = 0; e < (BK * BN) / 256; ++e) {
        int idx = lid + 256 * e;
        int kk = B_K_FAST != 0 ? idx % BK : idx / BN, nn = B_K_FAST != 0 ? idx / BK : idx % BN;
        int gk = k0 + kk, gn = n0 + nn;
        s_b[kk][nn / 4][nn % 4] = (gk < k_end && gn < p.N) ? load_b(off.b, gk, gn) : 0.0;
      }
    }
    barrier();
    [[unroll]] for (int kk = 0; kk < BK; ++kk) {
      vec4 a = s_a[kk][ty], b = s_b[kk][tx];
      acc[0] += a.x * b;
      acc[1] += a.y * b;
      acc[2] += a.z * b;
      acc[3] += a.w * b;
    }
    barrier();
  }
  [[unroll]] for (int i = 0; i < 4; ++i)
    [[unroll]] for (int j = 0; j < 4; ++j) {
      int m = m0 + 4 * ty + i, n = n0 + 4 * tx + j;
      if (m < p.M && n < p.N) store_result(off, m, n, acc[i][j]);
    }
}

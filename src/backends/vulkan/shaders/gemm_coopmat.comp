#version 450
// NO_DEFAULT_VARIANT
// VARIANT f16 -DTX=1
// VARIANT f16_large -DTX=1 -DLARGE=1
// The GEMM of gemm_io.glsl on tensor cores (GL_NV_cooperative_matrix, 16x16x16 fp16 fragments,
// fp32 accumulators), fp16 storage only. A workgroup of SGM x SGN subgroups (32 lanes) computes a
// BM x BN tile of Y, each subgroup WM x WN fragments of it:
//   default: 2 x 2 subgroups of 2 x 2 fragments: 64 x 64 tiles, 128 threads;
//   LARGE:   2 x 4 subgroups of 4 x 2 fragments: 128 x 128 tiles, 256 threads (twice the MMAs per
//            staged value; for large products).
// Per K step of 32, the A slice (BM x 32) and the B slice (32 x BN) are converted to fp16 in shared
// memory (rows padded by 8 halves against bank conflicts) by all threads (16-byte global loads
// where the layout allows: A_VEC / B_VEC), then each subgroup runs WM x WN x 2 MMAs. The epilogue
// passes each accumulator fragment through the subgroup's own 16 x 16 fp32 patch of shared memory
// and handles ragged edges, alpha, beta * C and ReLU like gemm (or writes split-K partials).
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#include "element_types.glsl"
#include "gemm_io.glsl"

#if LARGE
#define SGM 2
#define SGN 4
#define WM 4
#define WN 2
#else
#define SGM 2
#define SGN 2
#define WM 2
#define WN 2
#endif
#define BM (SGM * 16 * WM)
#define BN (SGN * 16 * WN)
#define BK 32
#define THREADS (32 * SGM * SGN)
#define ASTR (BK + 8)
#define BSTR (BN + 8)
layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;

shared float16_t s_a[BM * ASTR];        // [m][k]
shared float16_t s_b[BK * BSTR];        // [k][n]
shared float s_c[SGM * SGN * 16 * 16];  // per subgroup: one accumulator fragment in the epilogue

void main() {
  const int lid = int(gl_LocalInvocationID.x), sg = int(gl_SubgroupID), lane = int(gl_SubgroupInvocationID);
  const int sm = sg / SGN, sn = sg % SGN;
  const int m0 = int(gl_WorkGroupID.y) * BM, n0 = int(gl_WorkGroupID.x) * BN;
  const BatchOffsets off = batch_offsets(int(gl_WorkGroupID.z) / p.splits);
  int k_begin, k_end;
  k_range(k_begin, k_end);
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc[WM][WN];
  [[unroll]] for (int i = 0; i < WM; ++i)
    [[unroll]] for (int j = 0; j < WN; ++j) acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
  const ivec3 origin = B_MODE == 1 ? im2col_origin(n0 + lid % BN) : ivec3(0);  // this thread's B column

  for (int k0 = k_begin; k0 < k_end; k0 += BK) {
    if (A_VEC != 0) {
      [[unroll]] for (int e = 0; e < (BM * BK) / (VEC * THREADS); ++e) {
        int idx = lid + THREADS * e;
        int mm = idx / (BK / VEC), kk = (idx % (BK / VEC)) * VEC, gm = m0 + mm, gk = k0 + kk;
        float v[VEC];
        if (gm < p.M && gk < k_end) load_a_vec(off.a, gm, gk, v);
        else [[unroll]] for (int i = 0; i < VEC; ++i) v[i] = 0.0;
        [[unroll]] for (int i = 0; i < VEC; ++i) s_a[mm * ASTR + kk + i] = float16_t(v[i]);
      }
    } else {
      [[unroll]] for (int e = 0; e < (BM * BK) / THREADS; ++e) {
        int idx = lid + THREADS * e;
        int mm = A_M_FAST != 0 ? idx % BM : idx / BK, kk = A_M_FAST != 0 ? idx / BM : idx % BK;
        int gm = m0 + mm, gk = k0 + kk;
        s_a[mm * ASTR + kk] = float16_t((gm < p.M && gk < k_end) ? load_a(off.a, gm, gk) : 0.0);
      }
    }
    if (B_VEC != 0) {
      [[unroll]] for (int e = 0; e < (BK * BN) / (VEC * THREADS); ++e) {
        int idx = lid + THREADS * e;
        int kk = idx / (BN / VEC), nn = (idx % (BN / VEC)) * VEC, gk = k0 + kk, gn = n0 + nn;
        float v[VEC];
        if (gk < k_end && gn < p.N) load_b_vec(off.b, gk, gn, v);
        else [[unroll]] for (int i = 0; i < VEC; ++i) v[i] = 0.0;
        [[unroll]] for (int i = 0; i < VEC; ++i) s_b[kk * BSTR + nn + i] = float16_t(v[i]);
      }
    } else if (B_MODE == 1) {
      [[unroll]] for (int e = 0; e < (BK * BN) / THREADS; ++e) {
        int kk = lid / BN + e * (THREADS / BN), nn = lid % BN, gk = k0 + kk;
        s_b[kk * BSTR + nn] = float16_t((gk < k_end && n0 + nn < p.N) ? load_b_im2col(off.b, gk, origin) : 0.0);
      }
    } else {
      [[unroll]] for (int e = 0; e < (BK * BN) / THREADS; ++e) {
        int idx = lid + THREADS * e;
        int kk = B_K_FAST != 0 ? idx % BK : idx / BN, nn = B_K_FAST != 0 ? idx / BK : idx % BN;
        int gk = k0 + kk, gn = n0 + nn;
        s_b[kk * BSTR + nn] = float16_t((gk < k_end && gn < p.N) ? load_b(off.b, gk, gn) : 0.0);
      }
    }
    barrier();
    [[unroll]] for (int ks = 0; ks < BK; ks += 16) {
      fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a[WM], b[WN];
      [[unroll]] for (int i = 0; i < WM; ++i)
        coopMatLoadNV(a[i], s_a, uint((sm * 16 * WM + 16 * i) * ASTR + ks), uint(ASTR), false);
      [[unroll]] for (int j = 0; j < WN; ++j)
        coopMatLoadNV(b[j], s_b, uint(ks * BSTR + sn * 16 * WN + 16 * j), uint(BSTR), false);
      [[unroll]] for (int i = 0; i < WM; ++i)
        [[unroll]] for (int j = 0; j < WN; ++j) acc[i][j] = coopMatMulAddNV(a[i], b[j], acc[i][j]);
    }
    barrier();
  }
  const int slot = sg * 256;  // this subgroup's patch of s_c
  [[unroll]] for (int i = 0; i < WM; ++i)
    [[unroll]] for (int j = 0; j < WN; ++j) {
      coopMatStoreNV(acc[i][j], s_c, uint(slot), 16u, false);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      const int mb = m0 + sm * 16 * WM + 16 * i, nb = n0 + sn * 16 * WN + 16 * j;
      for (int e = lane; e < 256; e += 32) {
        int m = mb + e / 16, n = nb + e % 16;
        if (m < p.M && n < p.N) store_result(off, m, n, s_c[slot + e]);
      }
      subgroupBarrier();  // the patch is rewritten by the next fragment
    }
}

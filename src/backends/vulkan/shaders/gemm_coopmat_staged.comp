#version 450
// NO_DEFAULT_VARIANT
// VARIANT f16 -DTX=1
// VARIANT f16_large -DTX=1 -DLARGE=1
// VARIANT f16_n64 -DTX=1 -DWN=2
// VARIANT f16_m32n64 -DTX=1 -DWM=1 -DWN=2
// The staged tensor-core GEMM (GL_NV_cooperative_matrix, 16x16x16 fp16 fragments, fp32
// accumulators) for fp16 storage, any M, N, K and strides (operands and epilogue as in
// gemm_io.glsl). Rows that load as 16-byte vectors (A_VEC / B_VEC) are staged as loaded, B's rows
// that only load as 8-byte ones (B_VEC 2: fp16 rows of 14 x 14 pixels) two words a staged word;
// other layouts (ragged N or K, transposes, im2col) gather 8 values per staged word element by element.
// A workgroup of SGM x SGN subgroups (32 lanes) computes a BM x BN tile of Y, each subgroup a
// 16 WM x 16 WN block as WM x WN accumulator fragments (kernels/gemm_plan.cpp picks the tile):
//   default: 2 x 2 subgroups of 2 x 4 fragments: 64 x 128 tiles, 128 threads;
//   LARGE:   4 x 2 subgroups of 2 x 4 fragments: 128 x 128 tiles, 256 threads;
//   WN=2:    2 x 2 subgroups of 2 x 2 fragments: 64 x 64 tiles (more workgroups at batch 1);
//   WM=1 WN=2: 2 x 2 subgroups of 1 x 2 fragments: 32 x 64 tiles.
// Per K step of 32 the A slice (BM x 32) and the B slice (32 x BN) live in shared memory as raw
// 16-byte words (fp16 bits as loaded: no conversion), rows padded by one word against bank
// conflicts, double-buffered: the next step's global loads are issued into registers before the
// current step's MMAs and stored to the other buffer after them (one barrier per step).
// The epilogue passes each accumulator fragment through the subgroup's own 16 x 16 fp32 patch of
// shared memory (ragged edges, bias, activation, beta * C, or split-K partials), where N is a
// multiple of 4 (Y_QUADS) as 4 values a store (store_result_quad), else value by value.
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#include "element_types.glsl"
#include "gemm_io.glsl"

#if LARGE
#define SGM 4
#else
#define SGM 2
#endif
#define SGN 2
#ifndef WM
#define WM 2
#endif
#ifndef WN
#define WN 4
#endif
#define BM (SGM * 16 * WM)
#define BN (SGN * 16 * WN)
#define BK 32
#define THREADS (32 * SGM * SGN)
// Row strides in 16-byte words (8 halves), one word of padding.
#define ASTR (BK / 8 + 1)
#define BSTR (BN / 8 + 1)
#define A_WORDS (BM * BK / 8)
#define B_WORDS (BK * BN / 8)
#define A_PER (A_WORDS / THREADS)
#define B_PER (B_WORDS / THREADS)
layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;

shared uvec4 s_a[2 * BM * ASTR];  // [buffer][m][k / 8]
shared uvec4 s_b[2 * BK * BSTR];  // [buffer][k][n / 8]
shared float s_c[SGM * SGN * 16 * 16];  // per subgroup: one accumulator fragment in the epilogue

uvec4 ra[A_PER], rb[B_PER];

// 8 values as one staged word of fp16 bits (each value is already an fp16 number).
uvec4 pack8(float v[8]) {
  return uvec4(packHalf2x16(vec2(v[0], v[1])), packHalf2x16(vec2(v[2], v[3])), packHalf2x16(vec2(v[4], v[5])),
               packHalf2x16(vec2(v[6], v[7])));
}

void load_tiles(int lid, BatchOffsets off, int m0, int n0, int k0, int k_end) {
  [[unroll]] for (int e = 0; e < A_PER; ++e) {
    int idx = lid + THREADS * e, mm = idx / (BK / 8), kk = (idx % (BK / 8)) * 8;
    int gm = m0 + mm, gk = k0 + kk;
    if (A_VEC != 0) {
      ra[e] = (gm < p.M && gk < k_end) ? a_vec[(off.a + gm * p.sam + gk) / 8] : uvec4(0);
    } else {
      float v[8];
      [[unroll]] for (int i = 0; i < 8; ++i) v[i] = (gm < p.M && gk + i < k_end) ? load_a(off.a, gm, gk + i) : 0.0;
      ra[e] = pack8(v);
    }
  }
  [[unroll]] for (int e = 0; e < B_PER; ++e) {
    int idx = lid + THREADS * e, kk = idx / (BN / 8), nn = (idx % (BN / 8)) * 8;
    int gk = k0 + kk, gn = n0 + nn;
    if (B_VEC == 1) {
      rb[e] = (gk < k_end && gn < p.N) ? b_vec[(off.b + gk * p.sbk + gn) / 8] : uvec4(0);
    } else if (B_VEC == 2) {  // two 8-byte words: N and the row starts are multiples of 4 only
      const int w = (off.b + gk * p.sbk + gn) / 4;
      rb[e] = uvec4(gk < k_end && gn < p.N ? b_half_vec[w] : uvec2(0), gk < k_end && gn + 4 < p.N ? b_half_vec[w + 1] : uvec2(0));
    } else {
      float v[8];
      [[unroll]] for (int i = 0; i < 8; ++i) v[i] = (gk < k_end && gn + i < p.N) ? load_b(off.b, gk, gn + i) : 0.0;
      rb[e] = pack8(v);
    }
  }
}

void store_tiles(int lid, int buf) {
  [[unroll]] for (int e = 0; e < A_PER; ++e) {
    int idx = lid + THREADS * e, mm = idx / (BK / 8), kw = idx % (BK / 8);
    s_a[(buf * BM + mm) * ASTR + kw] = ra[e];
  }
  [[unroll]] for (int e = 0; e < B_PER; ++e) {
    int idx = lid + THREADS * e, kk = idx / (BN / 8), nw = idx % (BN / 8);
    s_b[(buf * BK + kk) * BSTR + nw] = rb[e];
  }
}

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

  int buf = 0;
  if (k_begin < k_end) {
    load_tiles(lid, off, m0, n0, k_begin, k_end);
    store_tiles(lid, 0);
  }
  barrier();
  for (int k0 = k_begin; k0 < k_end; k0 += BK) {
    const bool more = k0 + BK < k_end;
    if (more) load_tiles(lid, off, m0, n0, k0 + BK, k_end);
    [[unroll]] for (int ks = 0; ks < BK; ks += 16) {
      fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a[WM], b[WN];
      [[unroll]] for (int i = 0; i < WM; ++i)
        coopMatLoadNV(a[i], s_a, uint((buf * BM + sm * 16 * WM + 16 * i) * ASTR + ks / 8), uint(ASTR), false);
      [[unroll]] for (int j = 0; j < WN; ++j)
        coopMatLoadNV(b[j], s_b, uint((buf * BK + ks) * BSTR + (sn * 16 * WN + 16 * j) / 8), uint(BSTR), false);
      [[unroll]] for (int i = 0; i < WM; ++i)
        [[unroll]] for (int j = 0; j < WN; ++j) acc[i][j] = coopMatMulAddNV(a[i], b[j], acc[i][j]);
    }
    if (more) store_tiles(lid, buf ^ 1);
    barrier();
    buf ^= 1;
  }
  const int slot = sg * 256;  // this subgroup's patch of s_c
  [[unroll]] for (int i = 0; i < WM; ++i)
    [[unroll]] for (int j = 0; j < WN; ++j) {
      coopMatStoreNV(acc[i][j], s_c, uint(slot), 16u, false);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      const int mb = m0 + sm * 16 * WM + 16 * i, nb = n0 + sn * 16 * WN + 16 * j;
      if (Y_QUADS != 0) {
        // A lane's quads: row q / 4 of the fragment, columns (q % 4) * 4 .. + 3 (n < N then holds
        // for the whole quad, N being a multiple of 4).
        [[unroll]] for (int q = lane; q < 64; q += 32) {
          const int r = q >> 2, c = (q & 3) * 4, m = mb + r, n = nb + c;
          if (m < p.M && n < p.N) {
            float v[4];
            [[unroll]] for (int i = 0; i < 4; ++i) v[i] = s_c[slot + r * 16 + c + i];
            store_result_quad(off, m, n, v);
          }
        }
      } else {
        for (int e = lane; e < 256; e += 32) {
          int m = mb + e / 16, n = nb + e % 16;
          if (m < p.M && n < p.N) store_result(off, m, n, s_c[slot + e]);
        }
      }
      subgroupBarrier();  // the patch is rewritten by the next fragment
    }
}

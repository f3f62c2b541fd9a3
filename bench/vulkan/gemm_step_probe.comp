#version 450
// One workgroup's K loop of the staged tensor-core GEMM (src/backends/vulkan/shaders/
// gemm_coopmat_staged.comp, its 32 x 64 tile: 2 x 2 subgroups of 1 x 2 fragments, K steps of 32),
// with each part of a step switched on or off by kParts, to find what a step costs:
//   1 global: the next step's A and B slices loaded into registers before the MMAs
//   2 store: the registers stored to the other shared buffer after the MMAs
//   4 barrier: one barrier a step, as kBarrier says (0: barrier(), which glslc writes with
//     workgroup-memory acquire-release semantics; 1: an execution barrier with no memory semantics)
//   8 fragments: the MMAs' fragments loaded from shared memory each step (else loaded once)
//  16 mma: the MMAs
// kPrefetch 2 (every part on) issues the global loads two steps ahead, in two register sets.
// Workgroup w computes the tile (w % 8, (w / 8) % 8) of Y = A (256 x K) * B (K x 512), fp16 in,
// fp32 out, and writes it to its own 32 x 64 block of Y (so every mode's work stays live). With
// kPrivateB each workgroup reads B from a K x 64 slab of its own (w * K * 64 halves on), so that
// with many workgroups B streams from memory rather than from the L2 cache.
// kEpilogue sets how the tile leaves: 0 its accumulators stored to Y as fp32 fragments; 1 as the
// GEMM kernels do with a residual: each fragment through the subgroup's patch of shared memory,
// each lane's 8 values in turn loading bias[m] (A's first 256 halves) and C(m, n) (B's first
// 256 x 512 halves), adding them, ReLU, and storing fp16; 2 the same with a lane's 16 loads
// issued before any arithmetic or store. 3 and 4 are 1 and 2 as the kernels write them
// (gemm_io.glsl's store_result, and branch s41-epilogue-loads-first's form): bias per column
// (bias[n], A's first 512 halves), each value tested against the push constants' rows and
// columns, the bias and C loads each behind a bit of the push constants' flags. 5 is 3 with every
// load issued whatever the bounds and flags say (indices clamped, or 0 where a flag is off; the
// flags then select the values), a lane's loads of a fragment before its stores; 6 is 5 with both
// fragments' loads issued before the K loop.
// gemm_step_probe.cpp times it and checks the full modes against a CPU product.
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

#define SGM 2
#define SGN 2
#define WM 1
#define WN 2
#define BM (SGM * 16 * WM)
#define BN (SGN * 16 * WN)
#define BK 32
#define THREADS (32 * SGM * SGN)
#define ASTR (BK / 8 + 1)
#define BSTR (BN / 8 + 1)
#define A_PER (BM * BK / 8 / THREADS)
#define B_PER (BK * BN / 8 / THREADS)
layout(local_size_x = THREADS) in;
layout(constant_id = 0) const int kParts = 31;
layout(constant_id = 1) const int kBarrier = 0;
layout(constant_id = 2) const int kPrefetch = 1;
layout(constant_id = 3) const int kPrivateB = 0;
layout(constant_id = 4) const int kEpilogue = 0;

layout(set = 0, binding = 0) readonly buffer A { uvec4 a_vec[]; };
layout(set = 0, binding = 1) readonly buffer B { uvec4 b_vec[]; };
layout(set = 0, binding = 0) readonly buffer A16 { float16_t a16[]; };  // bias (kEpilogue 1 to 6)
layout(set = 0, binding = 1) readonly buffer B16 { float16_t b16[]; };  // C (kEpilogue 1 to 6)
layout(set = 0, binding = 2) writeonly buffer Y { float y[]; };
layout(set = 0, binding = 2) writeonly buffer Y16 { float16_t y16[]; };
layout(push_constant) uniform Push {
  int k;  // a multiple of BK
  int rows, cols, flags;  // kEpilogue 3 to 6: 256, 512 and 5 (bias 4, C 1), unknown to the compiler
} p;
const int kRowsA = 256, kColsB = 512;

shared uvec4 s_a[2 * BM * ASTR];
shared uvec4 s_b[2 * BK * BSTR];
shared float s_c[SGM * SGN * 16 * 16];  // kEpilogue 1 to 6: per subgroup one fragment's patch

// kEpilogue 5, 6: bias and C of a lane's value r of the fragment at (mb, nb) in the tile, loaded
// with no branch around the loads.
vec2 epilogue_operands(int m0, int n0, int mb, int nb, int lane, int r) {
  const int e = lane + 32 * r;
  const int m = min(m0 + mb + e / 16, p.rows - 1), n = min(n0 + nb + e % 16, p.cols - 1);
  const float bias = float(a16[(p.flags & 4) != 0 ? n : 0]);
  const float c = float(b16[(p.flags & 1) != 0 ? m * kColsB + n : 0]);
  return vec2((p.flags & 4) != 0 ? bias : 0.0, (p.flags & 1) != 0 ? c : 0.0);
}

// B's element (k, n0 + nn) of workgroup w: the shared B, or w's slab.
int b_index(int w, int n0, int k, int nn) { return kPrivateB != 0 ? (w * p.k + k) * BN + nn : k * kColsB + n0 + nn; }

void load_tiles(int lid, int w, int m0, int n0, int k0, out uvec4 ra[A_PER], out uvec4 rb[B_PER]) {
  [[unroll]] for (int e = 0; e < A_PER; ++e) {
    int idx = lid + THREADS * e, mm = idx / (BK / 8), kk = (idx % (BK / 8)) * 8;
    ra[e] = a_vec[((m0 + mm) * p.k + k0 + kk) / 8];
  }
  [[unroll]] for (int e = 0; e < B_PER; ++e) {
    int idx = lid + THREADS * e, kk = idx / (BN / 8), nn = (idx % (BN / 8)) * 8;
    rb[e] = b_vec[b_index(w, n0, k0 + kk, nn) / 8];
  }
}

void store_tiles(int lid, int buf, uvec4 ra[A_PER], uvec4 rb[B_PER]) {
  [[unroll]] for (int e = 0; e < A_PER; ++e) {
    int idx = lid + THREADS * e, mm = idx / (BK / 8), kw = idx % (BK / 8);
    s_a[(buf * BM + mm) * ASTR + kw] = ra[e];
  }
  [[unroll]] for (int e = 0; e < B_PER; ++e) {
    int idx = lid + THREADS * e, kk = idx / (BN / 8), nw = idx % (BN / 8);
    s_b[(buf * BK + kk) * BSTR + nw] = rb[e];
  }
}

void step_barrier() {
  if (kBarrier == 0) barrier();
  else controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, 0, 0);
}

// One step's fragment loads (from shared buffer buf) and MMAs.
void mma_step(int buf, int sm, int sn, bool fragment_loads, bool mmas, inout fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a[2][WM],
              inout fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> b[2][WN], inout fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc[WM][WN]) {
  [[unroll]] for (int ks = 0; ks < 2; ++ks) {
    if (fragment_loads) {
      [[unroll]] for (int i = 0; i < WM; ++i)
        coopMatLoadNV(a[ks][i], s_a, uint((buf * BM + sm * 16 * WM + 16 * i) * ASTR + ks * 2), uint(ASTR), false);
      [[unroll]] for (int j = 0; j < WN; ++j)
        coopMatLoadNV(b[ks][j], s_b, uint((buf * BK + ks * 16) * BSTR + (sn * 16 * WN + 16 * j) / 8), uint(BSTR), false);
    }
    if (mmas) {
      [[unroll]] for (int i = 0; i < WM; ++i)
        [[unroll]] for (int j = 0; j < WN; ++j) acc[i][j] = coopMatMulAddNV(a[ks][i], b[ks][j], acc[i][j]);
    }
  }
}

void main() {
  const bool global_loads = (kParts & 1) != 0, stores = (kParts & 2) != 0, barriers = (kParts & 4) != 0;
  const bool fragment_loads = (kParts & 8) != 0, mmas = (kParts & 16) != 0;
  const int lid = int(gl_LocalInvocationID.x), sg = int(gl_SubgroupID);
  const int sm = sg / SGN, sn = sg % SGN;
  const int w = int(gl_WorkGroupID.x);
  const int m0 = (w % (kRowsA / BM)) * BM, n0 = ((w / (kRowsA / BM)) % (kColsB / BN)) * BN;
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc[WM][WN];
  [[unroll]] for (int i = 0; i < WM; ++i)
    [[unroll]] for (int j = 0; j < WN; ++j) acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);

  const int lane = int(gl_SubgroupInvocationID);
  vec2 early[WM * WN][8];  // kEpilogue 6
  if (kEpilogue == 6) {
    [[unroll]] for (int i = 0; i < WM; ++i)
      [[unroll]] for (int j = 0; j < WN; ++j)
        [[unroll]] for (int r = 0; r < 8; ++r)
          early[i * WN + j][r] = epilogue_operands(m0, n0, sm * 16 * WM + 16 * i, sn * 16 * WN + 16 * j, lane, r);
  }

  uvec4 ra0[A_PER], rb0[B_PER], ra1[A_PER], rb1[B_PER];
  load_tiles(lid, w, m0, n0, 0, ra0, rb0);
  store_tiles(lid, 0, ra0, rb0);
  barrier();
  fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a[2][WM], b[2][WN];  // per ks: the fragments
  [[unroll]] for (int ks = 0; ks < 2; ++ks) {
    [[unroll]] for (int i = 0; i < WM; ++i)
      coopMatLoadNV(a[ks][i], s_a, uint((sm * 16 * WM + 16 * i) * ASTR + ks * 2), uint(ASTR), false);
    [[unroll]] for (int j = 0; j < WN; ++j)
      coopMatLoadNV(b[ks][j], s_b, uint((ks * 16) * BSTR + (sn * 16 * WN + 16 * j) / 8), uint(BSTR), false);
  }
  uvec4 sink = uvec4(0);
  if (kPrefetch == 2) {
    // Steps in pairs (K a multiple of 2 BK): buffer 0 holds step k0 while set 1 holds k0 + BK and
    // set 0 is loading k0 + 2 BK, and then the other way round.
    if (BK < p.k) load_tiles(lid, w, m0, n0, BK, ra1, rb1);
    for (int k0 = 0; k0 < p.k; k0 += 2 * BK) {
      if (k0 + 2 * BK < p.k) load_tiles(lid, w, m0, n0, k0 + 2 * BK, ra0, rb0);
      mma_step(0, sm, sn, true, true, a, b, acc);
      store_tiles(lid, 1, ra1, rb1);
      barrier();
      if (k0 + 3 * BK < p.k) load_tiles(lid, w, m0, n0, k0 + 3 * BK, ra1, rb1);
      mma_step(1, sm, sn, true, true, a, b, acc);
      if (k0 + 2 * BK < p.k) store_tiles(lid, 0, ra0, rb0);
      barrier();
    }
  } else {
    int buf = 0;
    for (int k0 = 0; k0 < p.k; k0 += BK) {
      const bool more = k0 + BK < p.k;
      if (global_loads && more) load_tiles(lid, w, m0, n0, k0 + BK, ra0, rb0);
      mma_step(buf, sm, sn, fragment_loads, mmas, a, b, acc);
      if (more) {
        if (stores) store_tiles(lid, buf ^ 1, ra0, rb0);
        else if (global_loads) {  // keep the loads live without shared memory
          [[unroll]] for (int e = 0; e < A_PER; ++e) sink ^= ra0[e];
          [[unroll]] for (int e = 0; e < B_PER; ++e) sink ^= rb0[e];
        }
      }
      if (barriers) step_barrier();
      buf ^= 1;
    }
  }
  // Each workgroup's own block of Y: its accumulators, plus what the loads-only mode sank.
  const uint block = uint(w) * BM * BN;
  if (kEpilogue == 0) {
    [[unroll]] for (int i = 0; i < WM; ++i)
      [[unroll]] for (int j = 0; j < WN; ++j)
        coopMatStoreNV(acc[i][j], y, block + uint((sm * 16 * WM + 16 * i) * BN + sn * 16 * WN + 16 * j), uint(BN), false);
  } else {
    const int slot = sg * 256;
    [[unroll]] for (int i = 0; i < WM; ++i)
      [[unroll]] for (int j = 0; j < WN; ++j) {
        coopMatStoreNV(acc[i][j], s_c, uint(slot), 16u, false);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        const int mb = sm * 16 * WM + 16 * i, nb = sn * 16 * WN + 16 * j;  // within the tile
        if (kEpilogue == 1) {
          for (int e = lane; e < 256; e += 32) {
            const int m = mb + e / 16, n = nb + e % 16;
            float v = s_c[slot + e] + float(a16[m0 + m]) + float(b16[(m0 + m) * kColsB + n0 + n]);
            y16[block + m * BN + n] = float16_t(max(v, 0.0));
          }
        } else if (kEpilogue == 3) {
          for (int e = lane; e < 256; e += 32) {
            const int m = mb + e / 16, n = nb + e % 16;
            if (m0 + m < p.rows && n0 + n < p.cols) {
              float v = s_c[slot + e];
              if ((p.flags & 4) != 0) v += float(a16[n0 + n]);
              if ((p.flags & 1) != 0) v += float(b16[(m0 + m) * kColsB + n0 + n]);
              y16[block + m * BN + n] = float16_t(max(v, 0.0));
            }
          }
        } else if (kEpilogue >= 5) {
          vec2 operands[8];
          [[unroll]] for (int r = 0; r < 8; ++r)
            operands[r] = kEpilogue == 6 ? early[i * WN + j][r] : epilogue_operands(m0, n0, mb, nb, lane, r);
          [[unroll]] for (int r = 0; r < 8; ++r) {
            const int e = lane + 32 * r, m = mb + e / 16, n = nb + e % 16;
            if (m0 + m < p.rows && n0 + n < p.cols)
              y16[block + m * BN + n] = float16_t(max(s_c[slot + e] + operands[r].x + operands[r].y, 0.0));
          }
        } else if (kEpilogue == 4) {
          vec2 bias_c[8];
          [[unroll]] for (int r = 0; r < 8; ++r) {
            const int e = lane + 32 * r, m = mb + e / 16, n = nb + e % 16;
            bias_c[r] = vec2(0.0);
            if (m0 + m < p.rows && n0 + n < p.cols) {
              if ((p.flags & 4) != 0) bias_c[r].x = float(a16[n0 + n]);
              if ((p.flags & 1) != 0) bias_c[r].y = float(b16[(m0 + m) * kColsB + n0 + n]);
            }
          }
          [[unroll]] for (int r = 0; r < 8; ++r) {
            const int e = lane + 32 * r, m = mb + e / 16, n = nb + e % 16;
            if (m0 + m < p.rows && n0 + n < p.cols)
              y16[block + m * BN + n] = float16_t(max(s_c[slot + e] + bias_c[r].x + bias_c[r].y, 0.0));
          }
        } else {
          float bias[8], c[8];
          [[unroll]] for (int r = 0; r < 8; ++r) {
            const int e = lane + 32 * r, m = mb + e / 16, n = nb + e % 16;
            bias[r] = float(a16[m0 + m]);
            c[r] = float(b16[(m0 + m) * kColsB + n0 + n]);
          }
          [[unroll]] for (int r = 0; r < 8; ++r) {
            const int e = lane + 32 * r, m = mb + e / 16, n = nb + e % 16;
            y16[block + m * BN + n] = float16_t(max(s_c[slot + e] + bias[r] + c[r], 0.0));
          }
        }
        subgroupBarrier();  // the patch is rewritten by the next fragment
      }
  }
  if (!mmas && (sink.x | sink.y | sink.z | sink.w) == 0x12345678u) y[block + lid] = 1.0;
}

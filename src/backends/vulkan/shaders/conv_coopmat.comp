#version 450
// NO_DEFAULT_VARIANT
// VARIANT n1 -DNFRAG=1
// VARIANT n2 -DNFRAG=2
// VARIANT n3 -DNFRAG=3
// VARIANT n4 -DNFRAG=4
// VARIANT n5 -DNFRAG=5
// VARIANT n6 -DNFRAG=6
// VARIANT n7 -DNFRAG=7
// VARIANT n8 -DNFRAG=8
// VARIANT w1 -DNFRAG=1 -DSUBGROUPS=8
// VARIANT w2 -DNFRAG=2 -DSUBGROUPS=8
// VARIANT w3 -DNFRAG=3 -DSUBGROUPS=8
// VARIANT w4 -DNFRAG=4 -DSUBGROUPS=8
// VARIANT w5 -DNFRAG=5 -DSUBGROUPS=8
// VARIANT w6 -DNFRAG=6 -DSUBGROUPS=8
// VARIANT p1 -DNFRAG=1 -DSUBGROUPS=8 -DPREFETCH=1
// VARIANT p2 -DNFRAG=2 -DSUBGROUPS=8 -DPREFETCH=1
// VARIANT p3 -DNFRAG=3 -DSUBGROUPS=8 -DPREFETCH=1
// VARIANT p4 -DNFRAG=4 -DSUBGROUPS=8 -DPREFETCH=1
// VARIANT p5 -DNFRAG=5 -DSUBGROUPS=8 -DPREFETCH=1
// VARIANT p6 -DNFRAG=6 -DSUBGROUPS=8 -DPREFETCH=1
// VARIANT t1 -DNFRAG=1 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1
// VARIANT t2 -DNFRAG=2 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1
// VARIANT t3 -DNFRAG=3 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1
// VARIANT t4 -DNFRAG=4 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DPSTR=2
// VARIANT q1 -DNFRAG=1 -DSUBGROUPS=8 -DPREFETCH=1 -DACC16=1
// VARIANT q2 -DNFRAG=2 -DSUBGROUPS=8 -DPREFETCH=1 -DACC16=1
// VARIANT q3 -DNFRAG=3 -DSUBGROUPS=8 -DPREFETCH=1 -DACC16=1
// VARIANT q4 -DNFRAG=4 -DSUBGROUPS=8 -DPREFETCH=1 -DACC16=1
// VARIANT q5 -DNFRAG=5 -DSUBGROUPS=8 -DPREFETCH=1 -DACC16=1
// VARIANT q6 -DNFRAG=6 -DSUBGROUPS=8 -DPREFETCH=1 -DACC16=1
// VARIANT h1 -DNFRAG=1 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DACC16=1
// VARIANT h2 -DNFRAG=2 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DACC16=1
// VARIANT h3 -DNFRAG=3 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DACC16=1
// VARIANT h4 -DNFRAG=4 -DSUBGROUPS=8 -DRPS=4 -DPREFETCH=1 -DPSTR=2 -DACC16=1
// VARIANT k1 -DNFRAG=1 -DSUBGROUPS=8 -DPREFETCH=1 -DKSUB=2
// VARIANT k2 -DNFRAG=2 -DSUBGROUPS=8 -DPREFETCH=1 -DKSUB=2
// VARIANT u1 -DNFRAG=1 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1
// VARIANT u2 -DNFRAG=2 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1
// VARIANT u3 -DNFRAG=3 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1
// VARIANT u4 -DNFRAG=4 -DSUBGROUPS=16 -DRPS=2 -DPREFETCH=1 -DPSTR=2
// VARIANT r1 -DNFRAG=1 -DSUBGROUPS=4 -DRPS=4 -DPREFETCH=1
// VARIANT r2 -DNFRAG=2 -DSUBGROUPS=4 -DRPS=4 -DPREFETCH=1
// VARIANT r3 -DNFRAG=3 -DSUBGROUPS=4 -DRPS=4 -DPREFETCH=1
// VARIANT r4 -DNFRAG=4 -DSUBGROUPS=4 -DRPS=4 -DPREFETCH=1
// 3x3 conv as an implicit GEMM on tensor cores (GL_NV_cooperative_matrix, 16x16x16 fp16 fragments,
// fp32 accumulators), with the same fusions as conv_direct. fp16 storage only.
//   M = pixels: a workgroup (SUBGROUPS subgroups of 32) computes a TH x 16 pixel tile; subgroup s owns RPS
//       consecutive rows (RPS 16-pixel A fragments); RPS is even, so a fused 2x2 pool stays inside
//       one subgroup.
//   N = output channels: all of them, NFRAG fragments of 16 (n_pad = 16 * NFRAG).
//   K = 9 taps x input channels in chunks of 16. Per chunk, the (TH+2) x 18 halo tile and the
//       chunk's weights for all taps are staged in shared memory once (raw fp16 bits, 16-byte
//       copies, zero padded at borders and past the last channel); every tap then reads its A
//       fragments straight from the halo tile (rows = consecutive pixels, 16 channels each): no
//       im2col copy.
//   PREFETCH (p and t variants): the global loads of chunk k+1 are issued into registers before
//       the MMAs of chunk k and written to shared memory after them, so their latency hides behind
//       the MMAs (a second shared buffer would not fit 48 KiB). t variants: RPS 4 with 8
//       subgroups (32 x 16 pixel tiles: each staged weight serves twice the pixels), up to 48 outputs;
//       t4 (64 outputs) fits only with unpadded halo pixels (2-way bank conflicts on A loads).
//   ACC16 (q = p, h = t with fp16 accumulators): half the accumulator registers; the sums are
//       rounded to fp16 at every MMA instead of once in the epilogue.
//   r variants: 4 subgroups x 4 rows with prefetch (16 x 16 tiles with padded halo rows: each
//       subgroup's 4 x NFRAG MMAs per tap need 4 + NFRAG fragment loads, as t, without t4's bank
//       conflicts; fewer threads to stage with).
//   u variants: 16 subgroups x 2 rows with prefetch (32 x 16 tiles as t, each subgroup as p).
//   KSUB (k = p with KSUB 2): each staging step holds KSUB chunks of 16 channels (halo pixels of
//       16 * KSUB channels, the weights of KSUB chunks), so half the barriers and twice the MMAs
//       between them; fits 48 KiB with 16-row tiles up to 32 outputs.
// Weights: f16 B[(tap * k_chunks + chunk) * 16 + k][n], row-major with row length n_pad.
#define FP16 1
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#include "conv_common.glsl"

#ifndef SUBGROUPS
#define SUBGROUPS 4  // "w" variants: 8, for more warps in flight with fewer accumulators each
#endif
#ifndef RPS
#if NFRAG <= 4 && SUBGROUPS == 4
#define RPS 4  // rows (16-pixel A fragments) per subgroup: more reuse of each B fragment
#else
#define RPS 2  // fewer rows where many accumulators already fill the registers
#endif
#endif
#ifndef PREFETCH
#define PREFETCH 0
#endif
#ifndef KSUB
#define KSUB 1
#endif
#if ACC16
#define ACC_BITS 16
#else
#define ACC_BITS 32
#endif
#define TH (SUBGROUPS * RPS)
#define THREADS (32 * SUBGROUPS)
#define TW 16
#define HH (TH + 2)
#define HW (TW + 2)
#define NP (NFRAG * 16)
// Row strides in shared memory, in uvec4 (8 fp16), padded by one uvec4 so that the 8 rows one
// fragment load reads at a time fall in different banks (unpadded: 2-way conflicts on A, up to
// 8-way on B).
#ifndef PSTR
#define PSTR (2 * KSUB + 1)  // halo pixel: 16 * KSUB channels + pad
#endif
#define WSTR (NP / 8 + 1)  // weight row: NP outputs + pad

layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;
// Raw views of the same buffers: 4 fp16 channels = uvec2, 8 = uvec4.
layout(std430, binding = 0) readonly buffer RawA { uvec2 raw_a[]; };
layout(std430, binding = 1) readonly buffer RawB { uvec2 raw_b[]; };
layout(std430, binding = 2) readonly buffer Weights { uvec4 wts[]; };

shared uvec4 s_in[HH * HW * PSTR];  // [halo pixel][2 x 8 channels + pad]; reused as epilogue scratch
shared uvec4 s_w[9 * KSUB * 16 * WSTR];  // [tap][k][n + pad] fp16 of the current step's chunks

uvec2 load_raw(int y, int x, int c4) {
  if (y < 0 || x < 0 || y >= p.H || x >= p.W) return uvec2(0);
  if (p.upcat != 0) {
    if (c4 < p.cin4_a) return raw_a[((y >> 1) * (p.W >> 1) + (x >> 1)) * p.cin4_a + c4];
    return raw_b[(y * p.W + x) * p.cin4_b + (c4 - p.cin4_a)];
  }
  return raw_a[(y * p.W + x) * p.cin4_a + c4];
}

// Staging of one K chunk: item i < HALO_ITEMS is half a halo pixel (8 channels), the rest are
// weight pieces (8 outputs of one tap and k).
#define HALO_ITEMS (HH * HW * 2 * KSUB)
#define W_ITEMS (9 * KSUB * 16 * NP / 8)
#define HALO_PER_THREAD ((HALO_ITEMS + THREADS - 1) / THREADS)
#define W_PER_THREAD ((W_ITEMS + THREADS - 1) / THREADS)

// step: KSUB consecutive 16-channel chunks.
uvec4 fetch_halo(int idx, int step, int x0, int y0, int cin4) {
  int pix = idx / (2 * KSUB), c4 = step * 4 * KSUB + (idx % (2 * KSUB)) * 2;
  int y = y0 + pix / HW - 1, x = x0 + pix % HW - 1;
  uvec2 lo = c4 < cin4 ? load_raw(y, x, c4) : uvec2(0);
  uvec2 hi = c4 + 1 < cin4 ? load_raw(y, x, c4 + 1) : uvec2(0);
  return uvec4(lo, hi);
}
void store_halo(int idx, uvec4 v) { s_in[(idx / (2 * KSUB)) * PSTR + idx % (2 * KSUB)] = v; }
uvec4 fetch_w(int idx, int step) {
  int t = idx / (KSUB * 16 * NP / 8), rest = idx % (KSUB * 16 * NP / 8);
  int chunk = step * KSUB + rest / (16 * NP / 8);
  if (chunk >= p.k_chunks) return uvec4(0);  // past the last chunk of an odd count
  return wts[(t * p.k_chunks + chunk) * (16 * NP / 8) + rest % (16 * NP / 8)];
}
void store_w(int idx, uvec4 v) {
  int t = idx / (KSUB * 16 * NP / 8), rest = idx % (KSUB * 16 * NP / 8);
  s_w[(t * KSUB * 16 + rest / (NP / 8)) * WSTR + rest % (NP / 8)] = v;
}

vec4 unpack4(uvec2 u) { return vec4(unpackHalf2x16(u.x), unpackHalf2x16(u.y)); }

void main() {
  int lid = int(gl_LocalInvocationID.x);
  int sg = int(gl_SubgroupID), lane = int(gl_SubgroupInvocationID);
  int x0 = int(gl_WorkGroupID.x) * TW, y0 = int(gl_WorkGroupID.y) * TH;
  int cin4 = p.cin4_a + p.cin4_b;

  fcoopmatNV<ACC_BITS, gl_ScopeSubgroup, 16, 16> acc[RPS][NFRAG];
  [[unroll]] for (int r = 0; r < RPS; ++r)
    [[unroll]] for (int n = 0; n < NFRAG; ++n) acc[r][n] = fcoopmatNV<ACC_BITS, gl_ScopeSubgroup, 16, 16>(0.0);

#if PREFETCH
  uvec4 pf_in[HALO_PER_THREAD], pf_w[W_PER_THREAD];
  [[unroll]] for (int i = 0; i < HALO_PER_THREAD; ++i)
    if (lid + i * THREADS < HALO_ITEMS) pf_in[i] = fetch_halo(lid + i * THREADS, 0, x0, y0, cin4);
  [[unroll]] for (int i = 0; i < W_PER_THREAD; ++i)
    if (lid + i * THREADS < W_ITEMS) pf_w[i] = fetch_w(lid + i * THREADS, 0);
#endif
  const int steps = (p.k_chunks + KSUB - 1) / KSUB;
  for (int chunk = 0; chunk < steps; ++chunk) {
    barrier();
#if PREFETCH
    [[unroll]] for (int i = 0; i < HALO_PER_THREAD; ++i)
      if (lid + i * THREADS < HALO_ITEMS) store_halo(lid + i * THREADS, pf_in[i]);
    [[unroll]] for (int i = 0; i < W_PER_THREAD; ++i)
      if (lid + i * THREADS < W_ITEMS) store_w(lid + i * THREADS, pf_w[i]);
    barrier();
    if (chunk + 1 < steps) {  // next chunk's loads in flight during this chunk's MMAs
      [[unroll]] for (int i = 0; i < HALO_PER_THREAD; ++i)
        if (lid + i * THREADS < HALO_ITEMS) pf_in[i] = fetch_halo(lid + i * THREADS, chunk + 1, x0, y0, cin4);
      [[unroll]] for (int i = 0; i < W_PER_THREAD; ++i)
        if (lid + i * THREADS < W_ITEMS) pf_w[i] = fetch_w(lid + i * THREADS, chunk + 1);
    }
#else
    for (int idx = lid; idx < HALO_ITEMS; idx += THREADS) store_halo(idx, fetch_halo(idx, chunk, x0, y0, cin4));
    for (int idx = lid; idx < W_ITEMS; idx += THREADS) store_w(idx, fetch_w(idx, chunk));
    barrier();
#endif
    [[unroll]] for (int t = 0; t < 9; ++t)
      [[unroll]] for (int ks = 0; ks < KSUB; ++ks) {
        const int dy = t / 3, dx = t % 3;
        fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a[RPS];
        [[unroll]] for (int r = 0; r < RPS; ++r)
          coopMatLoadNV(a[r], s_in, uint(((sg * RPS + r + dy) * HW + dx) * PSTR + 2 * ks), uint(PSTR), false);
        [[unroll]] for (int n = 0; n < NFRAG; ++n) {
          fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> b;
          coopMatLoadNV(b, s_w, uint((t * KSUB + ks) * 16 * WSTR + n * 2), uint(WSTR), false);
          [[unroll]] for (int r = 0; r < RPS; ++r) acc[r][n] = coopMatMulAddNV(a[r], b, acc[r][n]);
        }
      }
  }

  // Epilogue: each subgroup converts two rows x 16 channels at a time to fp16 in its own slice of
  // s_in (64 uvec4 = 32 pixels x 16 channels), then adds bias, applies ReLU / pool and stores.
  barrier();
  const int sbase = sg * 64;
  [[unroll]] for (int rp = 0; rp < RPS / 2; ++rp) {
    [[unroll]] for (int n = 0; n < NFRAG; ++n) {
      fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> h0 = fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>(acc[2 * rp][n]);
      fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> h1 = fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>(acc[2 * rp + 1][n]);
      coopMatStoreNV(h0, s_in, uint(sbase), 2u, false);
      coopMatStoreNV(h1, s_in, uint(sbase + 32), 2u, false);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      if (p.pool != 0) {
        int j = lane >> 2, q = lane & 3, o = n * 4 + q;
        int oy = y0 / 2 + sg * (RPS / 2) + rp, ox = x0 / 2 + j;
        if (o < p.cout4 && oy < p.out_h && ox < p.out_w) {
          vec4 m = vec4(-65504.0);
          for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 2; ++c) {
              uvec4 w = s_in[sbase + (r * 16 + 2 * j + c) * 2 + (q >> 1)];
              m = max(m, unpack4((q & 1) == 0 ? w.xy : w.zw));
            }
          dst[(oy * p.out_w + ox) * p.cout4 + o] = sfpvec4(activate(m + bias[o]));
        }
      } else {
        for (int k = 0; k < 4; ++k) {
          int item = lane + 32 * k, pix = item >> 2, q = item & 3, o = n * 4 + q;
          int y = y0 + sg * RPS + 2 * rp + (pix >> 4), x = x0 + (pix & 15);
          if (o < p.cout4 && y < p.out_h && x < p.out_w) {
            uvec4 w = s_in[sbase + pix * 2 + (q >> 1)];
            dst[(y * p.out_w + x) * p.cout4 + o] = sfpvec4(activate(unpack4((q & 1) == 0 ? w.xy : w.zw) + bias[o]));
          }
        }
      }
      subgroupBarrier();
    }
  }
}

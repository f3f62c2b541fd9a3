#version 450
// NO_DEFAULT_VARIANT
// VARIANT n1 -DNFRAG=1
// VARIANT n2 -DNFRAG=2
// VARIANT n3 -DNFRAG=3
// VARIANT n4 -DNFRAG=4
// VARIANT c1 -DNFRAG=1 -DX3=3 -O0
// VARIANT c2 -DNFRAG=2 -DX3=3 -O0
// VARIANT n1h -DNFRAG=1 -DACC16=1
// VARIANT n2h -DNFRAG=2 -DACC16=1
// VARIANT n3h -DNFRAG=3 -DACC16=1
// VARIANT n4h -DNFRAG=4 -DACC16=1
// Fused nearest-upsample(A) + concat(B) + 3x3 conv on tensor cores by phase decomposition.
//
// Why: an output pixel (2i + a, 2j + b) of a 3x3 conv over upsample2x(A) sees only a 2x2 window of
// A: (rows i - 1, i for a = 0; i, i + 1 for a = 1; likewise columns), because neighbouring upsampled
// pixels repeat. So the upsampled part is, per output phase (a, b), a 2x2 conv over A at A's own
// resolution with folded weights (the host adds the taps that read the same A pixel: for a = 0 the
// rows dy = {0}, {1, 2}; for a = 1, {0, 1}, {2}): 4 taps instead of 9, the same sums in another
// order. The skip part (B, at full resolution) stays a 9-tap conv.
//
// Tiles: a workgroup (16 subgroups of 32) owns an 8 x 16 pixel tile of A, i.e. 16 x 32 output
// pixels. Subgroup s computes phase (a, b) = ((s & 3) >> 1, s & 1) of A rows 2 (s >> 2) and
// 2 (s >> 2) + 1: two 16-pixel M fragments (16 output pixels 2 apart along x) x NFRAG N fragments.
// K steps: first the 16-channel chunks of A (p.k_chunks of them), each staging A's 10 x 18 halo
// (padded pixels) and the 16 folded weight matrices [phase][tap]; then the chunks of B, each
// staging B's 18 x 34 halo with its columns split by parity (even x, then odd x: a phase's pixels,
// 2 apart, are then consecutive for the fragment loads; pixels unpadded, as coopmat_u4, for 48 KiB)
// and the 9 tap matrices. The next step's global loads are in registers during this step's MMAs
// (as conv_coopmat.comp's PREFETCH). The epilogue goes through shared memory with 16-byte stores
// (as conv_coopmat.comp's EPI16) where the output count allows.
// N split: a workgroup computes NP = 16 * NFRAG outputs from gl_WorkGroupID.z * NP on.
// ACC16 (n1h..n4h): fp16 accumulators (OIDN's fastMath, as conv_coopmat.comp's h twins).
// X3 3 (c variants, fp32 activations; as conv_coopmat.comp's x3c): every operand split into fp16 hi
// + lo (two shared planes), three MMAs per product into a fresh fragment per tap, added to the
// accumulator in fp32; the weights are stored times 256. Two shared planes need half the tile (8
// subgroups, 4 A rows: 8 x 32 outputs) and the A chunks in two steps (tap rows u = 0, then 1: 8 of
// the 16 matrices each; the halo staged by the first stays); built -O0 (glslc -O crashes on adding
// matrices).
// Weights: f16, rows of n_pad outputs: A part [(phase * 4 + tap) * k_chunks + chunk][16 k], then the
// B part [(tap * kb + chunk)][16 k] (kb = ceil(cin4_b / 4)); tap = 2 u + v over the 2x2 window
// (u: row, v: column), phase = 2 a + b. X3: the hi plane, then the lo plane.
#ifndef X3
#define X3 0
#endif
#ifndef ACC16
#define ACC16 0
#endif
#if ACC16 && X3
#error fp16 accumulators are for fp16 activations (3xFP16 needs fp32 sums)
#endif
#if X3
#if X3 != 3
#error only the per-tap fp32 adds (X3 3)
#endif
#define TX 0
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define PLANES 2
#define SUBGROUPS 8
#define SH 4        // A rows per tile
#define UP_SPLIT 2  // steps per A chunk
#define LO_SCALE 1.0
#define W_SCALE_INV (1.0 / 256.0)
#else
#define TX 1
#define PLANES 1
#define SUBGROUPS 16
#define SH 8
#define UP_SPLIT 1
#endif
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#include "element_types.glsl"
#include "conv3x3_io.glsl"

#define AMAT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define BMAT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#if ACC16  // OIDN's fastMath (quality below HIGH): fp16 accumulators, fewer registers per fragment
#define CMAT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#else
#define CMAT fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#endif
#define THREADS (32 * SUBGROUPS)
#define SW 16  // A columns per tile
#define TPS (4 / UP_SPLIT)  // 2x2 taps per phase staged in one step
#define NP (NFRAG * 16)
#define NP8 (NP / 8)     // uvec4 (8 fp16) per weight row
#define WSTR (NP8 + 1)   // weight row + pad (conflict-free B loads)
// A halo: (SH + 2) x (SW + 2) pixels of 16 channels + pad (uvec4 units).
#define UHW (SW + 2)
#define UPSTR 3
#define U_HALO ((SH + 2) * UHW * UPSTR)
#define U_HALO_ITEMS ((SH + 2) * UHW * 2)
#define U_W_ITEMS (4 * TPS * 16 * NP8)
// B halo: (2 SH + 2) rows x 2 parities x (SW + 1) pixels of 16 channels, unpadded.
#define BPAR (SW + 1)
#define BHW (2 * BPAR)
#define BPSTR 2
#define B_HALO ((2 * SH + 2) * BHW * BPSTR)
#define B_HALO_ITEMS ((2 * SH + 2) * BHW * 2)
#define B_W_ITEMS (9 * 16 * NP8)
#define U_ITEMS (U_HALO_ITEMS + U_W_ITEMS)
#define B_ITEMS (B_HALO_ITEMS + B_W_ITEMS)
#define MAX_ITEMS (U_ITEMS > B_ITEMS ? U_ITEMS : B_ITEMS)
#define PER_THREAD ((MAX_ITEMS + THREADS - 1) / THREADS)
#define U_W (4 * TPS * 16 * WSTR)
#define B_W (9 * 16 * WSTR)
#define U_PLANE (U_HALO + U_W)  // one plane of an A step: [halo | weights]
#define B_PLANE (B_HALO + B_W)
#if X3  // epilogue: uvec4 per staged pixel row of 16 channels (fp32 or fp16)
#define CPR 4
#else
#define CPR 2
#endif
#define EPI_SHARED (SUBGROUPS * 32 * CPR)

layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;
#if X3  // 4 fp32 per element
#define RAW4 uvec4
#else  // 4 fp16 per element
#define RAW4 uvec2
#endif
layout(std430, binding = 0) readonly buffer RawA { RAW4 raw_a[]; };
layout(std430, binding = 1) readonly buffer RawB { RAW4 raw_b[]; };
layout(std430, binding = 2) readonly buffer Weights { uvec4 wts[]; };
layout(std430, binding = 4) writeonly buffer RawDst8 { uvec4 raw_dst8[]; };  // 8 fp16 per element

// One pool for both step kinds: [plane][halo | weights] (X3: hi plane, lo plane); the epilogue reuses it.
#define MAX2(x, y) ((x) > (y) ? (x) : (y))
shared uvec4 s_mem[MAX2(PLANES * MAX2(U_PLANE, B_PLANE), EPI_SHARED)];

#if X3
#include "conv_x3.glsl"
#endif

// 8 channels (blocks c4, c4 + 1) of one pixel of source A or B as fp16: X3 also their lo halves.
uvec4 two_blocks(bool inside, int base, int c4, int cin4, bool from_a, out uvec4 lo8) {
  lo8 = uvec4(0);
  if (!inside) return uvec4(0);
  RAW4 x = RAW4(0), y = RAW4(0);
  if (from_a) {
    if (c4 < cin4) x = raw_a[base + c4];
    if (c4 + 1 < cin4) y = raw_a[base + c4 + 1];
  } else {
    if (c4 < cin4) x = raw_b[base + c4];
    if (c4 + 1 < cin4) y = raw_b[base + c4 + 1];
  }
#if X3
  uvec2 hx, lx, hy, ly;
  split4(x, hx, lx);
  split4(y, hy, ly);
  lo8 = uvec4(lx, ly);
  return uvec4(hx, hy);
#else
  return uvec4(x, y);
#endif
}

// Steps: UP_SPLIT per chunk of A (step / UP_SPLIT = chunk, step % UP_SPLIT = which TPS taps of each
// phase), then one per chunk of B.
// Global load of staging item idx of `step` for the tile at A pixel (sy0, sx0); items past the
// step's count read nothing. X3: the lo plane's item in lo.
uvec4 fetch_item(int idx, int step, int sy0, int sx0, int kb, out uvec4 lo) {
  const int ka = p.k_chunks, row8 = p.n_pad / 8, zoff = int(gl_WorkGroupID.z) * NP8;
  const int lo_plane = (16 * ka + 9 * kb) * 16 * row8;  // X3: offset of the weights' lo plane
  lo = uvec4(0);
  if (step < ka * UP_SPLIT) {
    const int chunk = step / UP_SPLIT, part = step % UP_SPLIT;
    if (idx < U_HALO_ITEMS) {
      if (part != 0) return uvec4(0);  // the chunk's halo stays in shared memory from its first step
      const int pix = idx >> 1, hs = p.H >> 1, ws = p.W >> 1;
      const int y = sy0 + pix / UHW - 1, x = sx0 + pix % UHW - 1;
      const bool inside = y >= 0 && x >= 0 && y < hs && x < ws;
      return two_blocks(inside, (y * ws + x) * p.cin4_a, chunk * 4 + (idx & 1) * 2, p.cin4_a, true, lo);
    }
    idx -= U_HALO_ITEMS;
    if (idx >= U_W_ITEMS) return uvec4(0);
    const int mi = idx / (16 * NP8), rr = idx % (16 * NP8);  // staged matrix mi = phase * TPS + local tap
    const int m = (mi / TPS) * 4 + part * TPS + mi % TPS;
    const int at = ((m * ka + chunk) * 16 + rr / NP8) * row8 + zoff + rr % NP8;
#if X3
    lo = wts[lo_plane + at];
#endif
    return wts[at];
  }
  const int sb = step - ka * UP_SPLIT;
  if (idx < B_HALO_ITEMS) {
    const int pix = idx >> 1, hy = pix / BHW, hc = pix % BHW, par = hc / BPAR;
    const int y = 2 * sy0 - 1 + hy, x = 2 * (sx0 + hc % BPAR) - par;
    const bool inside = y >= 0 && x >= 0 && y < p.H && x < p.W;
    return two_blocks(inside, (y * p.W + x) * p.cin4_b, sb * 4 + (idx & 1) * 2, p.cin4_b, false, lo);
  }
  idx -= B_HALO_ITEMS;
  if (idx >= B_W_ITEMS) return uvec4(0);
  const int t = idx / (16 * NP8), rr = idx % (16 * NP8);
  const int at = 16 * ka * 16 * row8 + ((t * kb + sb) * 16 + rr / NP8) * row8 + zoff + rr % NP8;
#if X3
  lo = wts[lo_plane + at];
#endif
  return wts[at];
}

void store_item(int idx, int step, uvec4 v, uvec4 lo) {
  int at = -1, plane;
  if (step < p.k_chunks * UP_SPLIT) {
    plane = U_PLANE;
    if (idx < U_HALO_ITEMS) at = step % UP_SPLIT == 0 ? (idx >> 1) * UPSTR + (idx & 1) : -1;
    else if (idx - U_HALO_ITEMS < U_W_ITEMS) at = U_HALO + ((idx - U_HALO_ITEMS) / NP8) * WSTR + (idx - U_HALO_ITEMS) % NP8;
  } else {
    plane = B_PLANE;
    if (idx < B_HALO_ITEMS) at = (idx >> 1) * BPSTR + (idx & 1);
    else if (idx - B_HALO_ITEMS < B_W_ITEMS) at = B_HALO + ((idx - B_HALO_ITEMS) / NP8) * WSTR + (idx - B_HALO_ITEMS) % NP8;
  }
  if (at < 0) return;
  s_mem[at] = v;
#if X3
  s_mem[plane + at] = lo;
#endif
}

// acc += a * b (fp16: one MMA; X3: the three products of hi and lo in a fresh fragment, then an fp32 add).
#if X3
#define MMA(acc, ah, al, bh, bl)                      \
  {                                                   \
    CMAT c_ = coopMatMulAddNV(al, bh, CMAT(0.0));     \
    c_ = coopMatMulAddNV(ah, bl, c_);                 \
    c_ = coopMatMulAddNV(ah, bh, c_);                 \
    acc = acc + c_;                                   \
  }
#else
#define MMA(acc, ah, al, bh, bl) acc = coopMatMulAddNV(ah, bh, acc);
#endif

vec4 unpack4(uvec2 u) { return vec4(unpackHalf2x16(u.x), unpackHalf2x16(u.y)); }

void main() {
  const int lid = int(gl_LocalInvocationID.x);
  const int sg = int(gl_SubgroupID), lane = int(gl_SubgroupInvocationID);
  const int sy0 = int(gl_WorkGroupID.y) * SH, sx0 = int(gl_WorkGroupID.x) * SW;
  const int a = (sg & 3) >> 1, b = sg & 1, phase = sg & 3, i0 = 2 * (sg >> 2);
  const int kb = (p.cin4_b + 3) / 4, a_steps = p.k_chunks * UP_SPLIT, steps = a_steps + kb;

  CMAT acc[2][NFRAG];
  [[unroll]] for (int r = 0; r < 2; ++r)
    [[unroll]] for (int n = 0; n < NFRAG; ++n) acc[r][n] = CMAT(0.0);

  uvec4 pf[PER_THREAD], pf_lo[PER_THREAD];
  [[unroll]] for (int i = 0; i < PER_THREAD; ++i) pf[i] = fetch_item(lid + i * THREADS, 0, sy0, sx0, kb, pf_lo[i]);

  for (int step = 0; step < steps; ++step) {
    barrier();
    [[unroll]] for (int i = 0; i < PER_THREAD; ++i) store_item(lid + i * THREADS, step, pf[i], pf_lo[i]);
    barrier();
    if (step + 1 < steps)
      [[unroll]] for (int i = 0; i < PER_THREAD; ++i)
        pf[i] = fetch_item(lid + i * THREADS, step + 1, sy0, sx0, kb, pf_lo[i]);
    if (step < a_steps) {
      // A part: tap (u, v) of phase (a, b) reads A at (i + a - 1 + u, j + b - 1 + v): halo (i + a + u, j + b + v).
      const int part = step % UP_SPLIT;
      [[unroll]] for (int tl = 0; tl < TPS; ++tl) {
        const int t = part * TPS + tl, u = t >> 1, v = t & 1;
        AMAT ah[2], al[2];
        [[unroll]] for (int r = 0; r < 2; ++r) {
          const uint at = uint(((i0 + r + a + u) * UHW + b + v) * UPSTR);
          coopMatLoadNV(ah[r], s_mem, at, uint(UPSTR), false);
#if X3
          coopMatLoadNV(al[r], s_mem, U_PLANE + at, uint(UPSTR), false);
#endif
        }
        [[unroll]] for (int n = 0; n < NFRAG; ++n) {
          BMAT bh, bl;
          const uint at = uint(U_HALO + (phase * TPS + tl) * 16 * WSTR + n * 2);
          coopMatLoadNV(bh, s_mem, at, uint(WSTR), false);
#if X3
          coopMatLoadNV(bl, s_mem, U_PLANE + at, uint(WSTR), false);
#endif
          [[unroll]] for (int r = 0; r < 2; ++r) MMA(acc[r][n], ah[r], al[r], bh, bl)
        }
      }
    } else {
      // B part: output (2i + a, 2j + b), tap (dy, dx) reads B at (2i + a + dy - 1, 2j + b + dx - 1): halo
      // row 2i + a + dy; column offset s = b + dx - 1 is parity s & 1, pixel j + (s + parity) / 2.
      [[unroll]] for (int t = 0; t < 9; ++t) {
        const int dy = t / 3, s = b + t % 3 - 1, par = s & 1, moff = (s + par) >> 1;
        AMAT ah[2], al[2];
        [[unroll]] for (int r = 0; r < 2; ++r) {
          const uint at = uint(((2 * (i0 + r) + a + dy) * BHW + par * BPAR + moff) * BPSTR);
          coopMatLoadNV(ah[r], s_mem, at, uint(BPSTR), false);
#if X3
          coopMatLoadNV(al[r], s_mem, B_PLANE + at, uint(BPSTR), false);
#endif
        }
        [[unroll]] for (int n = 0; n < NFRAG; ++n) {
          BMAT bh, bl;
          const uint at = uint(B_HALO + t * 16 * WSTR + n * 2);
          coopMatLoadNV(bh, s_mem, at, uint(WSTR), false);
#if X3
          coopMatLoadNV(bl, s_mem, B_PLANE + at, uint(WSTR), false);
#endif
          [[unroll]] for (int r = 0; r < 2; ++r) MMA(acc[r][n], ah[r], al[r], bh, bl)
        }
      }
    }
  }

  // Epilogue: each subgroup stages its two rows x 16 channels at a time in its own slice of s_mem
  // (32 pixels x CPR uvec4), then adds bias, applies ReLU and stores. Staged pixel pix: row r = pix >> 4,
  // j = pix & 15 -> output (2 (sy0 + i0 + r) + a, 2 (sx0 + j) + b).
  barrier();
  const int sbase = sg * 32 * CPR;
  [[unroll]] for (int n = 0; n < NFRAG; ++n) {
#if X3
    coopMatStoreNV(acc[0][n], s_mem, uint(sbase), uint(CPR), false);
    coopMatStoreNV(acc[1][n], s_mem, uint(sbase + 16 * CPR), uint(CPR), false);
#else
    BMAT h0 = BMAT(acc[0][n]);
    BMAT h1 = BMAT(acc[1][n]);
    coopMatStoreNV(h0, s_mem, uint(sbase), uint(CPR), false);
    coopMatStoreNV(h1, s_mem, uint(sbase + 16 * CPR), uint(CPR), false);
#endif
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    const int ob = (int(gl_WorkGroupID.z) * NP + n * 16) / 4;  // first output block of fragment n
#if !X3
    if ((p.cout4 & 1) == 0) {  // 8 channels per item: one 16-byte shared read and global store
      [[unroll]] for (int k = 0; k < 2; ++k) {
        const int item = lane + 32 * k, pix = item >> 1, o = ob + 2 * (item & 1);
        const int y = 2 * (sy0 + i0 + (pix >> 4)) + a, x = 2 * (sx0 + (pix & 15)) + b;
        if (o < p.cout4 && y < p.out_h && x < p.out_w) {
          uvec4 w = s_mem[sbase + pix * 2 + (item & 1)];
          vec4 v0 = activate(unpack4(w.xy) + bias[o]);
          vec4 v1 = activate(unpack4(w.zw) + bias[o + 1]);
          raw_dst8[((y * p.out_w + x) * p.cout4 + o) >> 1] =
              uvec4(packHalf2x16(v0.xy), packHalf2x16(v0.zw), packHalf2x16(v1.xy), packHalf2x16(v1.zw));
        }
      }
    } else
#endif
    {  // 4 channels per item
      [[unroll]] for (int k = 0; k < 4; ++k) {
        const int item = lane + 32 * k, pix = item >> 2, q = item & 3, o = ob + q;
        const int y = 2 * (sy0 + i0 + (pix >> 4)) + a, x = 2 * (sx0 + (pix & 15)) + b;
        if (o < p.cout4 && y < p.out_h && x < p.out_w) {
#if X3
          vec4 v = uintBitsToFloat(s_mem[sbase + pix * CPR + q]) * W_SCALE_INV;
#else
          uvec4 w = s_mem[sbase + pix * CPR + (q >> 1)];
          vec4 v = unpack4((q & 1) == 0 ? w.xy : w.zw);
#endif
          dst[(y * p.out_w + x) * p.cout4 + o] = elem4_t(activate(v + bias[o]));
        }
      }
    }
    subgroupBarrier();
  }
}

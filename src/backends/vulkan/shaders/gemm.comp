#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT f32_m32 -DTX=0 -DBM=32 -DBN=128
// VARIANT f16_m32 -DTX=1 -DBM=32 -DBN=128
// General tiled GEMM (see gemm_io.glsl for the operands): a workgroup of 256 threads computes a
// BM x BN tile of Y, 64 x 64 (or 32 x 128 for products of at most 32 rows: a detection head's few
// output channels over many pixels would leave most of a 64-row tile idle); each thread
// accumulates a 4 x 4 register tile (rows 4 ty .. 4 ty + 3, columns 4 tx .. 4 tx + 3), reading its
// 4 A and 4 B values per k as one vec4 each from shared memory. fp32 accumulation in every precision.
// Per K step of 16 the A (64 x 16) and B (16 x 64) slices are staged in shared memory. The next
// step's global loads are issued into registers before this step's FMAs (and stored after them),
// each unconditionally (indices clamped, values selected after the load): on the H200 a K step of
// a lone workgroup took 2.1 us without this and 1.5 us with it; steps of 64 were slower per K
// (bench/onnx/results/vulkan_gemm_h200_2026-12-04/). 16-byte loads where the layout allows
// (A_VEC / B_VEC), else 8-byte loads of B where it allows those (B_VEC 2). REDUCE_BY_LAST_SPLIT
// (gemm_split_arrival.glsl): the last split of a tile adds its 16 outputs' partials a thread.
#define PARTIALS_COHERENT 1
#include "element_types.glsl"
#include "gemm_io.glsl"
#include "gemm_split_arrival.glsl"

#ifndef BM
#define BM 64
#define BN 64
#endif
#define BK 16
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

// Rows padded by one vec4: the staging stores of consecutive k then fall in different banks.
shared vec4 s_a[BK][BM / 4 + 1];  // transposed: s_a[k][m / 4][m % 4]
shared vec4 s_b[BK][BN / 4 + 1];  // s_b[k][n / 4][n % 4]

// Values staged per thread and step; with A_VEC / B_VEC as 16-byte words of VEC values (A_WORDS /
// B_WORDS a thread; where a slice has fewer words than the workgroup threads, the last hold none).
#define A_PER (BM * BK / 256)
#define B_PER (BK * BN / 256)
#define A_WORDS ((BM * BK / VEC + 255) / 256)
#define B_WORDS ((BK * BN / VEC + 255) / 256)
#define HVEC (VEC / 2)
#define B_HALF_WORDS ((BK * BN / HVEC + 255) / 256)
float ra[A_PER], rb[B_PER];
uvec4 wa[A_WORDS], wb[B_WORDS];
uvec2 wb_half[B_HALF_WORDS];

void load_tiles(int lid, BatchOffsets off, int m0, int n0, int k0, int k_end, ivec3 origin) {
  if (A_VEC != 0) {
    [[unroll]] for (int e = 0; e < A_WORDS; ++e) {
      int idx = lid + 256 * e, mm = idx / (BK / VEC), kk = (idx % (BK / VEC)) * VEC, gm = m0 + mm, gk = k0 + kk;
      bool inside = idx < BM * BK / VEC && gm < p.M && gk < k_end;
      uvec4 w = a_vec[(off.a + min(gm, p.M - 1) * p.sam + min(gk, k_end - VEC)) / VEC];
      wa[e] = inside ? w : uvec4(0);
    }
  } else {
    [[unroll]] for (int e = 0; e < A_PER; ++e) {
      int idx = lid + 256 * e;
      int mm = A_M_FAST != 0 ? idx % BM : idx / BK, kk = A_M_FAST != 0 ? idx / BM : idx % BK;
      int gm = m0 + mm, gk = k0 + kk;
      float v = load_a(off.a, min(gm, p.M - 1), min(gk, k_end - 1));
      ra[e] = gm < p.M && gk < k_end ? v : 0.0;
    }
  }
  if (B_VEC == 1) {
    [[unroll]] for (int e = 0; e < B_WORDS; ++e) {
      int idx = lid + 256 * e, kk = idx / (BN / VEC), nn = (idx % (BN / VEC)) * VEC, gk = k0 + kk, gn = n0 + nn;
      bool inside = idx < BK * BN / VEC && gk < k_end && gn < p.N;
      uvec4 w = b_vec[(off.b + min(gk, k_end - 1) * p.sbk + min(gn, p.N - VEC)) / VEC];
      wb[e] = inside ? w : uvec4(0);
    }
  } else if (B_VEC == 2) {
    [[unroll]] for (int e = 0; e < B_HALF_WORDS; ++e) {
      int idx = lid + 256 * e, kk = idx / (BN / HVEC), nn = (idx % (BN / HVEC)) * HVEC, gk = k0 + kk, gn = n0 + nn;
      bool inside = idx < BK * BN / HVEC && gk < k_end && gn < p.N;
      uvec2 w = b_half_vec[(off.b + min(gk, k_end - 1) * p.sbk + min(gn, p.N - HVEC)) / HVEC];
      wb_half[e] = inside ? w : uvec2(0);
    }
  } else if (B_MODE == 1) {
    // This thread's column n0 + lid % BN of the im2col matrix (origin), rows lid / BN + 4 e.
    [[unroll]] for (int e = 0; e < B_PER; ++e) {
      int gk = k0 + lid / BN + e * (256 / BN);
      bool inside;
      int i = im2col_index(off.b, min(gk, k_end - 1), origin, inside);
      float v = float(b_data[i]);
      rb[e] = inside && gk < k_end && n0 + lid % BN < p.N ? v : 0.0;
    }
  } else {
    [[unroll]] for (int e = 0; e < B_PER; ++e) {
      int idx = lid + 256 * e;
      int kk = B_K_FAST != 0 ? idx % BK : idx / BN, nn = B_K_FAST != 0 ? idx / BK : idx % BN;
      int gk = k0 + kk, gn = n0 + nn;
      float v = load_b(off.b, min(gk, k_end - 1), min(gn, p.N - 1));
      rb[e] = gk < k_end && gn < p.N ? v : 0.0;
    }
  }
}

void store_tiles(int lid) {
  if (A_VEC != 0) {
    [[unroll]] for (int e = 0; e < A_WORDS; ++e) {
      int idx = lid + 256 * e, mm = idx / (BK / VEC), kk = (idx % (BK / VEC)) * VEC;
      if (idx >= BM * BK / VEC) break;
      float v[VEC];
      unpack_vec(wa[e], v);
      [[unroll]] for (int i = 0; i < VEC; ++i) s_a[kk + i][mm / 4][mm % 4] = v[i];
    }
  } else {
    [[unroll]] for (int e = 0; e < A_PER; ++e) {
      int idx = lid + 256 * e;
      int mm = A_M_FAST != 0 ? idx % BM : idx / BK, kk = A_M_FAST != 0 ? idx / BM : idx % BK;
      s_a[kk][mm / 4][mm % 4] = ra[e];
    }
  }
  if (B_VEC == 1) {
    [[unroll]] for (int e = 0; e < B_WORDS; ++e) {
      int idx = lid + 256 * e, kk = idx / (BN / VEC), nn = (idx % (BN / VEC)) * VEC;
      if (idx >= BK * BN / VEC) break;
      float v[VEC];
      unpack_vec(wb[e], v);
      [[unroll]] for (int i = 0; i < VEC; ++i) s_b[kk][(nn + i) / 4][(nn + i) % 4] = v[i];
    }
  } else if (B_VEC == 2) {
    [[unroll]] for (int e = 0; e < B_HALF_WORDS; ++e) {
      int idx = lid + 256 * e, kk = idx / (BN / HVEC), nn = (idx % (BN / HVEC)) * HVEC;
      if (idx >= BK * BN / HVEC) break;
      float v[HVEC];
      unpack_half_vec(wb_half[e], v);
      [[unroll]] for (int i = 0; i < HVEC; ++i) s_b[kk][(nn + i) / 4][(nn + i) % 4] = v[i];
    }
  } else if (B_MODE == 1) {
    [[unroll]] for (int e = 0; e < B_PER; ++e) {
      int kk = lid / BN + e * (256 / BN), nn = lid % BN;
      s_b[kk][nn / 4][nn % 4] = rb[e];
    }
  } else {
    [[unroll]] for (int e = 0; e < B_PER; ++e) {
      int idx = lid + 256 * e;
      int kk = B_K_FAST != 0 ? idx % BK : idx / BN, nn = B_K_FAST != 0 ? idx / BK : idx % BN;
      s_b[kk][nn / 4][nn % 4] = rb[e];
    }
  }
}

void main() {
  const int lid = int(gl_LocalInvocationID.x), tx = lid % (BN / 4), ty = lid / (BN / 4);
  const int m0 = int(gl_WorkGroupID.y) * BM, n0 = int(gl_WorkGroupID.x) * BN;
  const BatchOffsets off = batch_offsets(int(gl_WorkGroupID.z) / p.splits);
  int k_begin, k_end;
  k_range(k_begin, k_end);
  vec4 acc[4];
  [[unroll]] for (int i = 0; i < 4; ++i) acc[i] = vec4(0.0);
  // This thread's B column of the im2col matrix (clamped: columns past N load a valid pixel).
  const ivec3 origin = B_MODE == 1 ? im2col_origin(min(n0 + lid % BN, p.N - 1)) : ivec3(0);

  if (k_begin < k_end) load_tiles(lid, off, m0, n0, k_begin, k_end, origin);
  for (int k0 = k_begin; k0 < k_end; k0 += BK) {
    store_tiles(lid);
    barrier();
    if (k0 + BK < k_end) load_tiles(lid, off, m0, n0, k0 + BK, k_end, origin);
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
  if (REDUCE_BY_LAST_SPLIT == 0 || p.splits == 1 || !last_split_to_arrive()) return;
  // Every split's partials of this thread's outputs (clamped to the product: loads past it unused),
  // four splits' loads issued together.
  int at[4][4];
  [[unroll]] for (int i = 0; i < 4; ++i)
    [[unroll]] for (int j = 0; j < 4; ++j) {
      at[i][j] = min(m0 + 4 * ty + i, p.M - 1) * p.N + min(n0 + 4 * tx + j, p.N - 1);
      acc[i][j] = 0.0;
    }
  const int split_size = p.M * p.N, first = int(gl_WorkGroupID.z) / p.splits * p.splits * split_size;
  for (int s0 = 0; s0 < p.splits; s0 += 4) {
    float part[4][4][4];
    [[unroll]] for (int g = 0; g < 4; ++g)
      [[unroll]] for (int i = 0; i < 4; ++i)
        [[unroll]] for (int j = 0; j < 4; ++j)
          part[g][i][j] = part_data[first + min(s0 + g, p.splits - 1) * split_size + at[i][j]];
    [[unroll]] for (int g = 0; g < 4; ++g)
      if (s0 + g < p.splits)
        [[unroll]] for (int i = 0; i < 4; ++i)
          [[unroll]] for (int j = 0; j < 4; ++j) acc[i][j] += part[g][i][j];
  }
  [[unroll]] for (int i = 0; i < 4; ++i)
    [[unroll]] for (int j = 0; j < 4; ++j) {
      int m = m0 + 4 * ty + i, n = n0 + 4 * tx + j;
      if (m < p.M && n < p.N) store_y(off, m, n, acc[i][j]);
    }
}

#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT f32_n64 -DTX=0 -DBN=64
// VARIANT f16_n64 -DTX=1 -DBN=64
// Register-tiled GEMM on the plain ALUs (see gemm_io.glsl for the operands and the epilogue):
// a workgroup of 256 threads (16 x 16) computes a 128 x BN tile of Y (BN 128, or 64 for products
// with few tiles), each thread 8 x (BN / 16) outputs in fp32 registers. Its rows are
// 4 ty .. 4 ty + 3 and 64 + 4 ty .. 64 + 4 ty + 3 (columns likewise by tx): every shared-memory read
// is a vec4 and the 16 threads of a row read 64 consecutive floats (no bank conflicts).
// Per K step of 16, A (128 x 16) and B (16 x BN) are staged in shared memory, double-buffered: the
// next step's global loads are issued into registers before the current step's FMAs and stored to
// the other buffer after them, so one barrier per step suffices and the loads' latency hides
// behind the arithmetic. 16-byte global loads where the layout allows (A_VEC / B_VEC).
#include "element_types.glsl"
#include "gemm_io.glsl"

#define BM 128
#ifndef BN
#define BN 128
#endif
#define BK 16
#define TN (BN / 64)  // vec4 column groups per thread
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

// Both staged k-major (A transposed), 32 KiB in all at BN 128 (what lavapipe allows). A's vec4
// columns are swizzled (XOR by a function of k) so that the transposing stores of a 16-byte load
// (4 or 8 consecutive k of one row m per thread) spread over all banks; the reads of one k stay a
// permutation of whole vec4s.
shared vec4 s_a[2][BK][BM / 4];
shared vec4 s_b[2][BK][BN / 4];
int a_col(int kk, int col) { return col ^ (((kk >> 2) & 3) << 1); }

// Values staged per thread and step.
#define A_PER (BM * BK / 256)
#define B_PER (BK * BN / 256)
// 16-byte staging of B needs a whole vector per thread (not so for BN 64 at fp16).
#define B_VEC_ON (B_VEC != 0 && B_PER >= VEC)
float ra[A_PER];
float rb[B_PER];

// The staging layouts (which (m, k) / (k, n) register e of this thread holds) for each load path.
// Vector paths: VEC consecutive values along K (A) / N (B) per 16-byte load.
void a_slot(int lid, int e, out int mm, out int kk) {
  if (A_VEC != 0) {
    int idx = lid + 256 * (e / VEC);
    mm = idx / (BK / VEC);
    kk = (idx % (BK / VEC)) * VEC + e % VEC;
  } else {
    int idx = lid + 256 * e;
    mm = A_M_FAST != 0 ? idx % BM : idx / BK;
    kk = A_M_FAST != 0 ? idx / BM : idx % BK;
  }
}

void b_slot(int lid, int e, out int kk, out int nn) {
  if (B_VEC_ON) {
    int idx = lid + 256 * (e / VEC);
    kk = idx / (BN / VEC);
    nn = (idx % (BN / VEC)) * VEC + e % VEC;
  } else if (B_MODE == 1) {
    kk = lid / BN + e * (256 / BN);
    nn = lid % BN;
  } else {
    int idx = lid + 256 * e;
    kk = B_K_FAST != 0 ? idx % BK : idx / BN;
    nn = B_K_FAST != 0 ? idx / BK : idx % BN;
  }
}

void load_tiles(int lid, BatchOffsets off, int m0, int n0, int k0, int k_end, ivec3 origin) {
  if (A_VEC != 0) {
    [[unroll]] for (int e = 0; e < A_PER; e += VEC) {
      int mm, kk;
      a_slot(lid, e, mm, kk);
      int gm = m0 + mm, gk = k0 + kk;
      float v[VEC];
      if (gm < p.M && gk < k_end) load_a_vec(off.a, gm, gk, v);
      else [[unroll]] for (int i = 0; i < VEC; ++i) v[i] = 0.0;
      [[unroll]] for (int i = 0; i < VEC; ++i) ra[e + i] = v[i];
    }
  } else {
    [[unroll]] for (int e = 0; e < A_PER; ++e) {
      int mm, kk;
      a_slot(lid, e, mm, kk);
      int gm = m0 + mm, gk = k0 + kk;
      ra[e] = (gm < p.M && gk < k_end) ? load_a(off.a, gm, gk) : 0.0;
    }
  }
  if (B_VEC_ON) {
    [[unroll]] for (int e = 0; e < B_PER; e += VEC) {
      int kk, nn;
      b_slot(lid, e, kk, nn);
      int gk = k0 + kk, gn = n0 + nn;
      float v[VEC];
      if (gk < k_end && gn < p.N) load_b_vec(off.b, gk, gn, v);
      else [[unroll]] for (int i = 0; i < VEC; ++i) v[i] = 0.0;
      [[unroll]] for (int i = 0; i < VEC; ++i) rb[e + i] = v[i];
    }
  } else {
    [[unroll]] for (int e = 0; e < B_PER; ++e) {
      int kk, nn;
      b_slot(lid, e, kk, nn);
      int gk = k0 + kk, gn = n0 + nn;
      bool inside = gk < k_end && gn < p.N;
      if (B_MODE == 1) rb[e] = inside ? load_b_im2col(off.b, gk, origin) : 0.0;
      else rb[e] = inside ? load_b(off.b, gk, gn) : 0.0;
    }
  }
}

void store_tiles(int lid, int buf) {
  [[unroll]] for (int e = 0; e < A_PER; ++e) {
    int mm, kk;
    a_slot(lid, e, mm, kk);
    s_a[buf][kk][a_col(kk, mm / 4)][mm % 4] = ra[e];
  }
  if (B_VEC_ON) {  // whole vec4s: VEC (4 or 8) consecutive n
    [[unroll]] for (int e = 0; e < B_PER; e += 4) {
      int kk, nn;
      b_slot(lid, e, kk, nn);
      s_b[buf][kk][nn / 4] = vec4(rb[e], rb[e + 1], rb[e + 2], rb[e + 3]);
    }
  } else {
    [[unroll]] for (int e = 0; e < B_PER; ++e) {
      int kk, nn;
      b_slot(lid, e, kk, nn);
      s_b[buf][kk][nn / 4][nn % 4] = rb[e];
    }
  }
}

void main() {
  const int lid = int(gl_LocalInvocationID.x), tx = lid % 16, ty = lid / 16;
  const int m0 = int(gl_WorkGroupID.y) * BM, n0 = int(gl_WorkGroupID.x) * BN;
  const BatchOffsets off = batch_offsets(int(gl_WorkGroupID.z) / p.splits);
  int k_begin, k_end;
  k_range(k_begin, k_end);
  vec4 acc[8][TN];
  [[unroll]] for (int i = 0; i < 8; ++i)
    [[unroll]] for (int j = 0; j < TN; ++j) acc[i][j] = vec4(0.0);
  const ivec3 origin = B_MODE == 1 ? im2col_origin(n0 + lid % BN) : ivec3(0);  // this thread's B column

  int buf = 0;
  if (k_begin < k_end) {
    load_tiles(lid, off, m0, n0, k_begin, k_end, origin);
    store_tiles(lid, 0);
  }
  barrier();
  for (int k0 = k_begin; k0 < k_end; k0 += BK) {
    const bool more = k0 + BK < k_end;
    if (more) load_tiles(lid, off, m0, n0, k0 + BK, k_end, origin);
    [[unroll]] for (int kk = 0; kk < BK; ++kk) {
      vec4 a0 = s_a[buf][kk][a_col(kk, ty)], a1 = s_a[buf][kk][a_col(kk, ty + 16)];
      vec4 b[TN];
      [[unroll]] for (int j = 0; j < TN; ++j) b[j] = s_b[buf][kk][tx + 16 * j];
      [[unroll]] for (int j = 0; j < TN; ++j) {
        acc[0][j] += a0.x * b[j];
        acc[1][j] += a0.y * b[j];
        acc[2][j] += a0.z * b[j];
        acc[3][j] += a0.w * b[j];
        acc[4][j] += a1.x * b[j];
        acc[5][j] += a1.y * b[j];
        acc[6][j] += a1.z * b[j];
        acc[7][j] += a1.w * b[j];
      }
    }
    if (more) store_tiles(lid, buf ^ 1);
    barrier();
    buf ^= 1;
  }
  [[unroll]] for (int i = 0; i < 8; ++i)
    [[unroll]] for (int j = 0; j < TN; ++j)
      [[unroll]] for (int c = 0; c < 4; ++c) {
        int m = m0 + 64 * (i / 4) + 4 * ty + i % 4, n = n0 + 64 * j + 4 * tx + c;
        if (m < p.M && n < p.N) store_result(off, m, n, acc[i][j][c]);
      }
}

#version 450
// NO_DEFAULT_VARIANT
// VARIANT f16 -DTX=1
// VARIANT f16_staged -DTX=1 -DSTAGED_KV=1 -DSK_MAX=128 -DD_MAX=64
// vx.Attention on tensor cores (GL_NV_cooperative_matrix: 16x16x16 fp16 fragments, fp32 sums) for
// key sequences short enough that a block's whole rows of scores fit in shared memory, so there
// is no online softmax. One workgroup of four subgroups per (batch, block of 16 query rows):
//   1. S = Q K^T: the Q block staged in shared memory (zeros past Sq); subgroup s computes the key
//      fragments s, s + 4, ... with K's fragments loaded from memory;
//   2. P = softmax(S * scale + Mask) by rows, 8 threads a row, written back as fp16;
//   3. Y = P V: subgroup s computes the Dv fragments s, s + 4, ... with V's fragments loaded from
//      memory; each passes through its own 16 x 16 patch of shared memory to be stored.
// A layer of PyTorch's transformer encoder (8 heads, 128 tokens, D 64) takes 11-12 us here against
// attention.comp's 14 on the H200 (bench/onnx/results/session35_2026-12-06/). kernels/attention.cpp
// takes this kernel for fp16 storage where Sk (<= SK_MAX), D (<= D_MAX) and Dv are multiples of 16
// and every offset is one of whole 16-byte words. Operands: attention_io.glsl.
// STAGED_KV (Sk <= 128, D and Dv <= 64, K not transposed): each fragment loaded from memory is a
// latency the subgroup waits for in turn (8 of K and 8 of V a subgroup at 128 keys, D 64), so
// instead the whole workgroup requests K's rows at once as 16-byte words and stages them in shared
// memory, then requests V's the same way before step 1 and stores them over K's after it.
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require
#include "element_types.glsl"
#include "attention_io.glsl"

#define BQ 16                          // query rows per workgroup
#define SUBGROUPS 4
#define THREADS (32 * SUBGROUPS)
#define ROW_THREADS (THREADS / BQ)     // softmax threads per row
#ifndef SK_MAX
#define SK_MAX 256
#define D_MAX 128
#endif
layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;
const float NEG_INF = -1.0 / 0.0;

// 16-byte words of 8 fp16 values.
layout(std430, binding = 0) readonly buffer BufQ { uvec4 q_words[]; };
layout(std430, binding = 1) readonly buffer BufK { uvec4 k_words[]; };
layout(std430, binding = 2) readonly buffer BufV { uvec4 v_words[]; };
layout(std430, binding = 3) readonly buffer BufM { elem_t m_data[]; };
layout(std430, binding = 4) writeonly buffer BufY { uvec4 y_words[]; };

// Rows padded by one word (or four floats) against bank conflicts.
shared uvec4 s_q[BQ * (D_MAX / 8 + 1)];
shared float s_s[BQ * (SK_MAX + 4)];
shared uvec4 s_p[BQ * (SK_MAX / 8 + 1)];
shared float s_y[SUBGROUPS * 256];
shared float s_red[THREADS];
#if STAGED_KV
// K's rows, then V's, as loaded: [key][word], rows of D / 8 (Dv / 8) words padded by one.
#define KV_PER (SK_MAX * (D_MAX / 8) / THREADS)
shared uvec4 s_kv[SK_MAX * (D_MAX / 8 + 1)];
uvec4 kv[KV_PER];

// Requests the rows of K or V (`words` 16-byte words each, `row` elements apart) into kv.
void load_kv_rows(bool values, int base, int row, int words, int tid) {
  [[unroll]] for (int e = 0; e < KV_PER; ++e) {
    const int i = tid + THREADS * e, r = i / words, w = i - r * words;
    if (r < p.sk) kv[e] = values ? v_words[(base + r * row) / 8 + w] : k_words[(base + r * row) / 8 + w];
  }
}

void store_kv_rows(int words, int tid) {
  [[unroll]] for (int e = 0; e < KV_PER; ++e) {
    const int i = tid + THREADS * e, r = i / words, w = i - r * words;
    if (r < p.sk) s_kv[r * (words + 1) + w] = kv[e];
  }
}
#endif

void main() {
  const int tid = int(gl_LocalInvocationID.x), sg = int(gl_SubgroupID), lane = int(gl_SubgroupInvocationID);
  const int q0 = int(gl_WorkGroupID.x) * BQ;
  const AttentionOffsets off = attention_offsets(int(gl_WorkGroupID.y));
  const int q_off = off.q, k_off = off.k, v_off = off.v, m_off = off.m, y_off = off.y;

  const int q_words_per_row = p.d / 8, qstr = q_words_per_row + 1;
#if STAGED_KV
  load_kv_rows(false, k_off, p.k_row, q_words_per_row, tid);
#endif
  for (int i = tid; i < BQ * q_words_per_row; i += THREADS) {
    int r = i / q_words_per_row, w = i - r * q_words_per_row, row = q0 + r;
    s_q[r * qstr + w] = row < p.sq ? q_words[(q_off + row * p.q_row) / 8 + w] : uvec4(0);
  }
#if STAGED_KV
  store_kv_rows(q_words_per_row, tid);
#endif
  barrier();
#if STAGED_KV
  const int dv_words = p.dv / 8;
  load_kv_rows(true, v_off, p.v_row, dv_words, tid);  // waited for only after step 1
#endif

  // 1. Scores of key fragment f: sum over D of Q's fragment times K^T's (key j is column j).
  const int key_frags = p.sk / 16, sstr = p.sk + 4;
  for (int f = sg; f < key_frags; f += SUBGROUPS) {
    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
    for (int ds = 0; ds < p.d / 16; ++ds) {
      fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a, b;
      coopMatLoadNV(a, s_q, uint(2 * ds), uint(qstr), false);
#if STAGED_KV
      coopMatLoadNV(b, s_kv, uint(16 * f * qstr + 2 * ds), uint(qstr), true);
#else
      if ((p.flags & 2) != 0)  // K as [D, Sk]: row d of K^T as stored
        coopMatLoadNV(b, k_words, uint((k_off + 16 * ds * p.sk + 16 * f) / 8), uint(p.sk / 8), false);
      else  // K as [Sk, D]: column j of K^T is key j's row
        coopMatLoadNV(b, k_words, uint((k_off + 16 * f * p.k_row + 16 * ds) / 8), uint(p.k_row / 8), true);
#endif
      acc = coopMatMulAddNV(a, b, acc);
    }
    coopMatStoreNV(acc, s_s, uint(16 * f), uint(sstr), false);
  }
  barrier();
#if STAGED_KV
  store_kv_rows(dv_words, tid);  // over K's rows, read by step 1 only; the softmax's barriers follow
#endif

  // 2. Softmax of row r over its Sk scores: thread g of the row owns `per` consecutive keys.
  const int r = tid / ROW_THREADS, g = tid % ROW_THREADS, qrow = q0 + r;
  const int per = p.sk / ROW_THREADS, c0 = g * per;  // per is even: Sk is a multiple of 16
  float row_max = NEG_INF;
  for (int i = 0; i < per; ++i) {
    float v = s_s[r * sstr + c0 + i] * p.scale;
    if ((p.flags & 1) != 0 && qrow < p.sq) v += float(m_data[m_off + qrow * p.m_row + (c0 + i) * p.m_col]);
    s_s[r * sstr + c0 + i] = v;
    row_max = max(row_max, v);
  }
  s_red[tid] = row_max;
  barrier();
  [[unroll]] for (int i = 0; i < ROW_THREADS; ++i) row_max = max(row_max, s_red[r * ROW_THREADS + i]);
  barrier();  // s_red is rewritten below
  float sum = 0.0;
  for (int i = 0; i < per; ++i) {
    float v = s_s[r * sstr + c0 + i];
    float e = v == NEG_INF ? 0.0 : exp(v - row_max);  // a row masked everywhere gives 0 / 0, as attention.comp
    s_s[r * sstr + c0 + i] = e;
    sum += e;
  }
  s_red[tid] = sum;
  barrier();
  float total = 0.0;
  [[unroll]] for (int i = 0; i < ROW_THREADS; ++i) total += s_red[r * ROW_THREADS + i];
  const float inv = 1.0 / total;
  const int pstr = p.sk / 8 + 1;
  for (int i = 0; i < per; i += 2) {
    int c = c0 + i;
    s_p[r * pstr + c / 8][(c % 8) / 2] = packHalf2x16(vec2(s_s[r * sstr + c], s_s[r * sstr + c + 1]) * inv);
  }
  barrier();

  // 3. Y's Dv fragment j: P times V's rows of the block's keys, written 8 values a lane.
  const int slot = sg * 256, yr = lane / 2, yc = 8 * (lane % 2), yrow = q0 + yr;
  for (int j = sg; j < p.dv / 16; j += SUBGROUPS) {
    fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
    for (int kf = 0; kf < key_frags; ++kf) {
      fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a, b;
      coopMatLoadNV(a, s_p, uint(2 * kf), uint(pstr), false);
#if STAGED_KV
      coopMatLoadNV(b, s_kv, uint(16 * kf * (dv_words + 1) + 2 * j), uint(dv_words + 1), false);
#else
      coopMatLoadNV(b, v_words, uint((v_off + 16 * kf * p.v_row + 16 * j) / 8), uint(p.v_row / 8), false);
#endif
      acc = coopMatMulAddNV(a, b, acc);
    }
    coopMatStoreNV(acc, s_y, uint(slot), 16u, false);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    if (yrow < p.sq) {
      const int e = slot + yr * 16 + yc;
      y_words[(y_off + yrow * p.y_row + 16 * j + yc) / 8] =
          uvec4(packHalf2x16(vec2(s_y[e], s_y[e + 1])), packHalf2x16(vec2(s_y[e + 2], s_y[e + 3])),
                packHalf2x16(vec2(s_y[e + 4], s_y[e + 5])), packHalf2x16(vec2(s_y[e + 6], s_y[e + 7])));
    }
    subgroupBarrier();  // the patch is rewritten by the next fragment
  }
}

#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// vx.Attention (ops/fused_ops.h): Y = softmax(Q K^T * scale + Mask) V over the last axis, in one
// dispatch, flash-attention style. One workgroup of 256 threads per (batch, block of 16 query rows)
// walks the keys in tiles of 64 with an online softmax (running row max m and sum l, earlier
// partial results rescaled by exp(m_old - m_new)), so Sk is unbounded and the scores never reach
// memory. D is consumed in chunks of 64, Dv in DV_CHUNKS chunks of 64 (accumulators in registers).
// fp32 arithmetic; storage f32 or f16 (TX=1); vector loads and stores when D and Dv allow.
//
// Thread layout: row r = tid / 16 of the block, lane g = tid % 16. For the scores the lane owns keys
// g, g + 16, g + 32, g + 48 of the tile; for the output it owns columns 4g..4g+3 of each Dv chunk.
// (8 lanes a row gave each thread twice the serial work: on the H200 a PyTorch transformer encoder
// layer's attention, 64 workgroups, took 21 us that way and 18 this way.) Shared tiles hold vec4s
// with one vec4 of padding per row (no bank conflicts). Operands: attention_io.glsl.
#extension GL_EXT_control_flow_attributes : require
#include "element_types.glsl"
#include "attention_io.glsl"

layout(constant_id = 0) const int DV_CHUNKS = 1;
// 1 when D and Dv are multiples of 4: Q, K (not transposed), V and Y move as vec4s.
layout(constant_id = 1) const int VEC_LOADS = 0;
const int BQ = 16;         // query rows per workgroup
const int LANES = 16;      // threads per query row
#define THREADS 256        // BQ * LANES
layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;

const int TK = 64;         // keys per tile
const int KPL = TK / LANES;  // keys per lane and tile
const int DC = 64;         // chunk of D / Dv
const int DC4 = DC / 4;
const int PAD4 = DC4 + 1;  // vec4s per shared row
const int PSTRIDE = TK + 1;
const float NEG_INF = -1.0 / 0.0;

layout(std430, binding = 0) readonly buffer BufQ { elem_t q_data[]; };
layout(std430, binding = 1) readonly buffer BufK { elem_t k_data[]; };
layout(std430, binding = 2) readonly buffer BufV { elem_t v_data[]; };
layout(std430, binding = 3) readonly buffer BufM { elem_t m_data[]; };
layout(std430, binding = 4) writeonly buffer BufY { elem_t y_data[]; };
layout(std430, binding = 0) readonly buffer BufQ4 { elem4_t q4[]; };
layout(std430, binding = 1) readonly buffer BufK4 { elem4_t k4[]; };
layout(std430, binding = 2) readonly buffer BufV4 { elem4_t v4[]; };
layout(std430, binding = 4) writeonly buffer BufY4 { elem4_t y4[]; };

shared vec4 s_q[BQ * PAD4];
shared vec4 s_kv[TK * PAD4];
shared float s_p[BQ * PSTRIDE];
shared float s_red[THREADS];

int tid;
int q_off, k_off, v_off, m_off, y_off;

// 4 consecutive values of row `row` (length n, at base) from column c, zeros past the end.
vec4 load4_q(int base, int c, int n) {
  vec4 v = vec4(0.0);
  for (int i = 0; i < 4; ++i)
    if (c + i < n) v[i] = float(q_data[base + c + i]);
  return v;
}

// Q rows q0.. of D chunk `chunk` into s_q (zeros past Sq and D).
void load_q(int q0, int chunk) {
  for (int idx = tid; idx < BQ * DC4; idx += THREADS) {
    int r = idx / DC4, c4 = idx % DC4, row = q0 + r;
    vec4 v = vec4(0.0);
    int c = chunk * DC + 4 * c4;
    if (VEC_LOADS != 0) {
      if (row < p.sq && c < p.d) v = vec4(q4[(q_off + row * p.q_row + c) >> 2]);
    } else if (row < p.sq) {
      v = load4_q(q_off + row * p.q_row, c, p.d);
    }
    s_q[r * PAD4 + c4] = v;
  }
}

// A K or V tile (TK keys x one 64-wide chunk) moves through registers: fetch_* issues the global
// loads into pre[] (4 vec4 per thread: element idx = tid + THREADS u), store_tile() writes them to s_kv
// as [key][chunk column]. Fetching the next tile before the current one's arithmetic hides the load
// latency (V behind Q K^T, the next K behind P V).
const int PER_THREAD = TK * DC4 / THREADS;
vec4 pre[PER_THREAD];

// K keys k0.. of D chunk `chunk` (zeros past Sk and D).
void fetch_k(int k0, int chunk) {
  int d0 = chunk * DC;
  [[unroll]] for (int u = 0; u < PER_THREAD; ++u) {
    int idx = tid + THREADS * u;
    vec4 v = vec4(0.0);
    if ((p.flags & 2) != 0) {  // [D, Sk]: consecutive threads read consecutive keys
      int key = idx % TK, c4 = idx / TK, kk = k0 + key;
      if (kk < p.sk)
        for (int i = 0; i < 4; ++i) {
          int dd = d0 + 4 * c4 + i;
          if (dd < p.d) v[i] = float(k_data[k_off + dd * p.sk + kk]);
        }
    } else {
      int key = idx / DC4, c4 = idx % DC4, kk = k0 + key;
      int base = k_off + kk * p.k_row + d0 + 4 * c4, left = p.d - d0 - 4 * c4;
      if (VEC_LOADS != 0) {
        if (kk < p.sk && left > 0) v = vec4(k4[base >> 2]);
      } else if (kk < p.sk) {
        for (int i = 0; i < 4; ++i)
          if (i < left) v[i] = float(k_data[base + i]);
      }
    }
    pre[u] = v;
  }
}

// V keys k0.. of Dv chunk `chunk` (zeros past Sk and Dv).
void fetch_v(int k0, int chunk) {
  int c0 = chunk * DC;
  [[unroll]] for (int u = 0; u < PER_THREAD; ++u) {
    int idx = tid + THREADS * u;
    int key = idx / DC4, c4 = idx % DC4, kk = k0 + key;
    vec4 v = vec4(0.0);
    int base = v_off + kk * p.v_row + c0 + 4 * c4, left = p.dv - c0 - 4 * c4;
    if (VEC_LOADS != 0) {
      if (kk < p.sk && left > 0) v = vec4(v4[base >> 2]);
    } else if (kk < p.sk) {
      for (int i = 0; i < 4; ++i)
        if (i < left) v[i] = float(v_data[base + i]);
    }
    pre[u] = v;
  }
}

// pre[] into s_kv; `transposed_k`: the fetch_k layout of [D, Sk] (key fastest).
void store_tile(bool transposed_k) {
  [[unroll]] for (int u = 0; u < PER_THREAD; ++u) {
    int idx = tid + THREADS * u;
    int key = transposed_k ? idx % TK : idx / DC4, c4 = transposed_k ? idx / TK : idx % DC4;
    s_kv[key * PAD4 + c4] = pre[u];
  }
}

void main() {
  tid = int(gl_LocalInvocationID.x);
  const int r = tid / LANES, g = tid % LANES;
  const int q0 = int(gl_WorkGroupID.x) * BQ;
  const int qrow = q0 + r;
  const bool row_ok = qrow < p.sq;

  const AttentionOffsets off = attention_offsets(int(gl_WorkGroupID.y));
  q_off = off.q;
  k_off = off.k;
  v_off = off.v;
  m_off = off.m;
  y_off = off.y;

  const int d_chunks = (p.d + DC - 1) / DC;
  const bool q_resident = d_chunks == 1;
  if (q_resident) load_q(q0, 0);  // made visible by the barrier after the first K tile

  float m = NEG_INF, l = 0.0;
  vec4 acc[DV_CHUNKS];
  [[unroll]] for (int i = 0; i < DV_CHUNKS; ++i) acc[i] = vec4(0.0);

  for (int k0 = 0; k0 < p.sk; k0 += TK) {
    // Scores of this tile: s[j] for key k0 + g + LANES j.
    float s[KPL];
    [[unroll]] for (int j = 0; j < KPL; ++j) s[j] = 0.0;
    for (int chunk = 0; chunk < d_chunks; ++chunk) {
      if (!q_resident) load_q(q0, chunk);
      if (!(q_resident && k0 > 0)) fetch_k(k0, chunk);  // else prefetched during the last P V
      store_tile((p.flags & 2) != 0);
      barrier();
      if (chunk == d_chunks - 1) fetch_v(k0, 0);  // lands while Q K^T runs
      const int n4 = (min(DC, p.d - chunk * DC) + 3) >> 2;
      for (int c4 = 0; c4 < n4; ++c4) {
        vec4 qv = s_q[r * PAD4 + c4];
        [[unroll]] for (int j = 0; j < KPL; ++j) s[j] += dot(qv, s_kv[(g + LANES * j) * PAD4 + c4]);
      }
      barrier();
    }

    // Scale, mask, and the tile's row maximum (LANES lanes per row, through shared memory).
    float tile_max = NEG_INF;
    [[unroll]] for (int j = 0; j < KPL; ++j) {
      int key = k0 + g + LANES * j;
      float v = NEG_INF;
      if (key < p.sk) {
        v = s[j] * p.scale;
        if ((p.flags & 1) != 0 && row_ok) v += float(m_data[m_off + qrow * p.m_row + key * p.m_col]);
      }
      s[j] = v;
      tile_max = max(tile_max, v);
    }
    s_red[tid] = tile_max;
    barrier();
    float m_new = m;
    [[unroll]] for (int i = 0; i < LANES; ++i) m_new = max(m_new, s_red[r * LANES + i]);
    // Rows masked with -inf everywhere so far: nothing accumulated yet, so no rescale is needed.
    const float alpha = m_new == NEG_INF ? 1.0 : exp(m - m_new);
    float psum = 0.0;
    [[unroll]] for (int j = 0; j < KPL; ++j) {
      float e = s[j] == NEG_INF ? 0.0 : exp(s[j] - m_new);
      psum += e;
      s_p[r * PSTRIDE + g + LANES * j] = e;
    }
    l = l * alpha + psum;
    m = m_new;
    [[unroll]] for (int i = 0; i < DV_CHUNKS; ++i) acc[i] *= alpha;

    // acc += P V over this tile's keys, one Dv chunk at a time.
    const int kn = min(TK, p.sk - k0);
    [[unroll]] for (int chunk = 0; chunk < DV_CHUNKS; ++chunk) {
      if (chunk > 0) fetch_v(k0, chunk);
      store_tile(false);
      barrier();
      // The next tile's K (single D chunk) lands while P V runs.
      if (chunk == DV_CHUNKS - 1 && q_resident && k0 + TK < p.sk) fetch_k(k0 + TK, 0);
      for (int k = 0; k < kn; ++k) {
        acc[chunk] += s_p[r * PSTRIDE + k] * s_kv[k * PAD4 + g];
      }
      barrier();
    }
  }

  // The row's sum of exponentials: the lanes' partial sums.
  s_red[tid] = l;
  barrier();
  float total = 0.0;
  [[unroll]] for (int i = 0; i < LANES; ++i) total += s_red[r * LANES + i];
  if (!row_ok) return;
  const float inv = 1.0 / total;
  const int y_base = y_off + qrow * p.y_row;
  [[unroll]] for (int chunk = 0; chunk < DV_CHUNKS; ++chunk) {
    int c = chunk * DC + 4 * g;
    vec4 v = acc[chunk] * inv;
    if (VEC_LOADS != 0) {
      if (c < p.dv) y4[(y_base + c) >> 2] = elem4_t(v);
    } else {
      for (int i = 0; i < 4; ++i)
        if (c + i < p.dv) y_data[y_base + c + i] = elem_t(v[i]);
    }
  }
}

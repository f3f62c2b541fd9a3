#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// vx.Excite (ops/fused_ops.h): Y = X * E (+ R), E = post_ops(relu?(W2 H + B2)) per (n, channel),
// H = squeeze_relu?(W1 P + B1), from the pooled X (P). fp32 arithmetic throughout.
// MODE 0: H only, into the fp32 scratch [N, Rd]: a workgroup per `block` rows of H
//         (gl_WorkGroupID.x) and image n (gl_WorkGroupID.y).
// MODE 1: Y for a block of `block` channels (gl_WorkGroupID.x) of image n (y), `run` pixels of
//         each (z): the workgroup computes all of H itself (small squeezes: its C x Rd products
//         are cheaper than a dispatch), then its channels' E, then scales them.
// MODE 2: as MODE 1, with H read from the scratch MODE 0 wrote.
// Each dot product is summed by `lanes` threads (a power of two, push constant), 256 / lanes dot
// products a workgroup, added pairwise in shared memory; every global load is issued before the
// first sum (the kernel is latency-bound: a few microseconds against ~5 for a dispatch).
//   binding 0: X [N, C, pixels]; 1: P [N, C] (MODE 0, 1) or the H scratch (MODE 2, fp32 [N, Rd]);
//   2: W1 [Rd, C]; 3: B1 [Rd]; 4: W2 [C, Rd]; 5: B2 [C]; 6: R [N, C, pixels] (when HAS_RESIDUAL);
//   7: Y (MODE 1, 2) or the H scratch (MODE 0).
#extension GL_EXT_control_flow_attributes : require
#include "element_types.glsl"
layout(constant_id = 0) const int MODE = 1;
layout(constant_id = 1) const int SQUEEZE_RELU = 0;
layout(constant_id = 2) const int RELU = 0;
layout(constant_id = 3) const int HAS_B1 = 0;
layout(constant_id = 4) const int HAS_B2 = 0;
layout(constant_id = 5) const int HAS_RESIDUAL = 0;
#define POST_OPS_ID0 6
#include "post_ops.glsl"

#define THREADS 256
#define MAX_SQUEEZED 1024  // Rd, checked by the plan (kernels/excite.cpp)
#define PER_THREAD 4       // X values a thread scales: block * run <= 1024 (the plan's choice)
#define MAX_TERMS 16       // W2 terms a thread sums: Rd <= 16 * excite_lanes (the plan's choice);
                           // W1 terms loaded at once (C > 16 * squeeze_lanes loops past them)
layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Params {
  int C, Rd, pixels;
  int block;          // channels per workgroup (MODE 1, 2) or rows of H per workgroup (MODE 0)
  int run;            // pixels of each channel per workgroup (MODE 1, 2; gl_WorkGroupID.z picks which)
  int squeeze_lanes;  // threads per dot product of W1 (C terms)
  int excite_lanes;   // threads per dot product of W2 (Rd terms)
} p;
layout(std430, binding = 0) readonly buffer BufX { elem_t x_data[]; };
layout(std430, binding = 1) readonly buffer BufP { elem_t p_data[]; };
layout(std430, binding = 1) readonly buffer BufHIn { float h_in[]; };  // MODE 2
layout(std430, binding = 2) readonly buffer BufW1 { elem_t w1_data[]; };
layout(std430, binding = 3) readonly buffer BufB1 { elem_t b1_data[]; };
layout(std430, binding = 4) readonly buffer BufW2 { elem_t w2_data[]; };
layout(std430, binding = 5) readonly buffer BufB2 { elem_t b2_data[]; };
layout(std430, binding = 6) readonly buffer BufR { elem_t r_data[]; };
layout(std430, binding = 7) writeonly buffer BufY { elem_t y_data[]; };
layout(std430, binding = 7) writeonly buffer BufH { float h_out[]; };

shared float s_part[THREADS];
shared float s_h[MAX_SQUEEZED];
shared float s_gate[THREADS];

// Adds each group of `lanes` consecutive threads' s_part into the group's first; every thread calls it.
void sum_lanes(int lid, int lanes) {
  barrier();
  for (int half_count = lanes / 2; half_count > 0; half_count /= 2) {
    if (lid % lanes < half_count) s_part[lid] += s_part[lid + half_count];
    barrier();
  }
}

// Thread `lane` of row r's `lanes`: its share of W1[r] . P[n] (terms lane, lane + lanes, ...), the
// first MAX_TERMS loaded together.
float squeeze_share(int n, int r, bool mine, int lane, int lanes) {
  float w[MAX_TERMS], v[MAX_TERMS];
  const int row = min(r, p.Rd - 1) * p.C;
  [[unroll]] for (int t = 0; t < MAX_TERMS; ++t) {
    const int c = min(lane + t * lanes, p.C - 1);  // clamped: every load in bounds
    w[t] = float(w1_data[row + c]);
    v[t] = float(p_data[n * p.C + c]);
  }
  float acc = 0.0;
  [[unroll]] for (int t = 0; t < MAX_TERMS; ++t)
    if (lane + t * lanes < p.C) acc += w[t] * v[t];
  for (int c = lane + MAX_TERMS * lanes; c < p.C; c += lanes) acc += float(w1_data[row + c]) * float(p_data[n * p.C + c]);
  return mine ? acc : 0.0;
}

// Adds the shares of H row r (one a thread) and stores it: into the scratch (MODE 0) or s_h.
void squeeze_store(int lid, int n, int r, bool mine, int lanes, float share) {
  s_part[lid] = share;
  sum_lanes(lid, lanes);
  if (mine && lid % lanes == 0) {
    float v = s_part[lid] + (HAS_B1 != 0 ? float(b1_data[r]) : 0.0);
    if (SQUEEZE_RELU != 0) v = max(v, 0.0);
    if (MODE == 0) h_out[n * p.Rd + r] = v;
    else s_h[r] = v;
  }
  barrier();  // s_part is rewritten next
}

void main() {
  const int lid = int(gl_LocalInvocationID.x), n = int(gl_WorkGroupID.y);
  // H: row r of `slots` rows a workgroup (MODE 0) or all Rd <= slots rows (MODE 1), one round.
  const int sq_lanes = p.squeeze_lanes, h_row = (MODE == 0 ? int(gl_WorkGroupID.x) * p.block : 0) + lid / sq_lanes;
  const bool sq_mine = lid / sq_lanes < (MODE == 0 ? p.block : p.Rd) && h_row < p.Rd;
  if (MODE == 0) {
    squeeze_store(lid, n, h_row, sq_mine, sq_lanes, squeeze_share(n, h_row, sq_mine, lid % sq_lanes, sq_lanes));
    return;
  }
  // This workgroup's channels [c0, c0 + count) and, of each, the pixels [p0, p0 + run): at most
  // PER_THREAD values a thread, loaded first so that their latency overlaps the dot products.
  const int c0 = int(gl_WorkGroupID.x) * p.block, count = min(p.block, p.C - c0);
  const int p0 = int(gl_WorkGroupID.z) * p.run, run = min(p.run, p.pixels - p0);
  const int lanes = p.excite_lanes, lane = lid % lanes, j = lid / lanes, c = c0 + j;
  float xv[PER_THREAD], rv[PER_THREAD];
  [[unroll]] for (int i = 0; i < PER_THREAD; ++i) {
    const int e = lid + i * THREADS, ec = min(e, count * run - 1);  // clamped: every load in bounds
    const int at = (n * p.C + c0 + ec / run) * p.pixels + p0 + ec % run;
    const float x = float(x_data[at]), res = HAS_RESIDUAL != 0 ? float(r_data[at]) : 0.0;
    xv[i] = e < count * run ? x : 0.0;
    rv[i] = e < count * run ? res : 0.0;
  }
  // This thread's terms of channel c's row of W2 (one round: count <= 256 / lanes, the plan's choice).
  const bool mine = j < count;
  float wv[MAX_TERMS];
  [[unroll]] for (int t = 0; t < MAX_TERMS; ++t) {
    const int r = lane + t * lanes;
    const float w = float(w2_data[min(c, p.C - 1) * p.Rd + min(r, p.Rd - 1)]);
    wv[t] = mine && r < p.Rd ? w : 0.0;
  }
  if (MODE == 1) {
    squeeze_store(lid, n, h_row, sq_mine, sq_lanes, squeeze_share(n, h_row, sq_mine, lid % sq_lanes, sq_lanes));
  } else {
    for (int r = lid; r < p.Rd; r += THREADS) s_h[r] = h_in[n * p.Rd + r];
  }
  barrier();
  float acc = 0.0;
  [[unroll]] for (int t = 0; t < MAX_TERMS; ++t) {
    const int r = lane + t * lanes;
    if (r < p.Rd) acc += wv[t] * s_h[r];
  }
  s_part[lid] = acc;
  sum_lanes(lid, lanes);
  if (mine && lane == 0) {
    float v = s_part[lid] + (HAS_B2 != 0 ? float(b2_data[c]) : 0.0);
    if (RELU != 0) v = max(v, 0.0);
    s_gate[j] = apply_post_ops(v);
  }
  barrier();
  [[unroll]] for (int i = 0; i < PER_THREAD; ++i) {
    const int e = lid + i * THREADS, ch = e / run, at = (n * p.C + c0 + ch) * p.pixels + p0 + e % run;
    if (e < count * run) y_data[at] = elem_t(xv[i] * s_gate[ch] + rv[i]);
  }
}

#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// Shared-memory tiled 3x3 conv with the same fusions as conv_direct. A workgroup of 8x8 threads
// computes a 16x16 pixel tile for 16 output channels (4 blocks); each thread a 2x2 pixel quad, so a
// fused 2x2 max pool stays inside one thread. Per input chunk of ICH blocks the halo tile (18x18)
// and the chunk's weights are staged in shared memory once and reused by all threads.
// Weights: the same layout as conv_direct.
#include "element_types.glsl"
#include "conv3x3_io.glsl"

#define ICH 2       // input vec4 blocks per chunk
#define OB 4        // output vec4 blocks per workgroup
#define TILE 16
#define HALO (TILE + 2)

layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;
layout(std430, binding = 2) readonly buffer Weights { elem4_t wts[]; };

shared vec4 s_in[HALO * HALO * ICH];
shared vec4 s_w[9 * ICH * OB * 4];

void main() {
  int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
  int lid = ty * 8 + tx;
  int x0 = int(gl_WorkGroupID.x) * TILE, y0 = int(gl_WorkGroupID.y) * TILE;
  int o0 = int(gl_WorkGroupID.z) * OB;
  int cin4 = p.cin4_a + p.cin4_b;

  vec4 acc[4][OB];
  for (int q = 0; q < 4; ++q)
    for (int b = 0; b < OB; ++b) acc[q][b] = vec4(0.0);

  for (int c0 = 0; c0 < cin4; c0 += ICH) {
    barrier();
    for (int idx = lid; idx < HALO * HALO * ICH; idx += 64) {
      int pix = idx / ICH, i = idx % ICH;
      int c4 = c0 + i;
      s_in[idx] = c4 < cin4 ? load_src(y0 + pix / HALO - 1, x0 + pix % HALO - 1, c4) : vec4(0.0);
    }
    for (int idx = lid; idx < 9 * ICH * OB * 4; idx += 64) {
      int k = idx % 4, b = (idx / 4) % OB, i = (idx / (4 * OB)) % ICH, t = idx / (4 * OB * ICH);
      int o = o0 + b, c4 = c0 + i;
      s_w[idx] = (o < p.cout4 && c4 < cin4) ? vec4(wts[((o * 9 + t) * cin4 + c4) * 4 + k]) : vec4(0.0);
    }
    barrier();
    for (int t = 0; t < 9; ++t) {
      int dy = t / 3, dx = t % 3;
      for (int i = 0; i < ICH; ++i) {
        vec4 v[4];
        for (int q = 0; q < 4; ++q) v[q] = s_in[((2 * ty + (q >> 1) + dy) * HALO + 2 * tx + (q & 1) + dx) * ICH + i];
        for (int b = 0; b < OB; ++b) {
          int w = ((t * ICH + i) * OB + b) * 4;
          vec4 w0 = s_w[w], w1 = s_w[w + 1], w2 = s_w[w + 2], w3 = s_w[w + 3];
          for (int q = 0; q < 4; ++q) acc[q][b] += w0 * v[q].x + w1 * v[q].y + w2 * v[q].z + w3 * v[q].w;
        }
      }
    }
  }

  for (int b = 0; b < OB; ++b) {
    int o = o0 + b;
    if (o >= p.cout4) break;
    vec4 bv = bias[o];
    if (p.pool != 0) {
      int ox = x0 / 2 + tx, oy = y0 / 2 + ty;
      vec4 m = max(max(acc[0][b], acc[1][b]), max(acc[2][b], acc[3][b]));
      if (ox < p.out_w && oy < p.out_h) dst[(oy * p.out_w + ox) * p.cout4 + o] = elem4_t(activate(m + bv));
    } else {
      for (int q = 0; q < 4; ++q) {
        int x = x0 + 2 * tx + (q & 1), y = y0 + 2 * ty + (q >> 1);
        if (x < p.out_w && y < p.out_h) dst[(y * p.out_w + x) * p.cout4 + o] = elem4_t(activate(acc[q][b] + bv));
      }
    }
  }
}

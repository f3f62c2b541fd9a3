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
// 3x3 conv as an implicit GEMM on tensor cores (GL_NV_cooperative_matrix, 16x16x16 fp16 fragments,
// fp32 accumulators), with the same fusions as conv_direct. fp16 storage only.
//   M = pixels: a workgroup (4 subgroups of 32) computes an 8x16 pixel tile; subgroup s owns rows
//       2s and 2s+1 (two 16-pixel A fragments), so a fused 2x2 pool is one subgroup's job.
//   N = output channels: all of them, NFRAG fragments of 16 (n_pad = 16 * NFRAG).
//   K = 9 taps x input channels in chunks of 16: per chunk the 10x18 halo tile is staged in shared
//       memory once (zero padded at borders and past the last channel) and every tap reads its A
//       fragments from it directly (rows = consecutive pixels, 16 channels each), no im2col copy.
// Weights: f16 B[(tap * k_chunks + chunk) * 16 + k][n], row-major with row length n_pad.
#define FP16 1
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#include "conv_common.glsl"

#define TH 8
#define TW 16
#define HH (TH + 2)
#define HW (TW + 2)

layout(local_size_x = 128, local_size_y = 1, local_size_z = 1) in;
layout(std430, binding = 2) readonly buffer Weights { float16_t wts[]; };

shared float16_t s_in[HH * HW * 16];  // [halo pixel][16 channels]
shared float s_out[4 * 512];        // per subgroup: 32 pixels x 16 channels

void main() {
  int lid = int(gl_LocalInvocationID.x);
  int sg = int(gl_SubgroupID), lane = int(gl_SubgroupInvocationID);
  int x0 = int(gl_WorkGroupID.x) * TW, y0 = int(gl_WorkGroupID.y) * TH;
  int cin4 = p.cin4_a + p.cin4_b;

  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc[2][NFRAG];
  for (int r = 0; r < 2; ++r)
    for (int n = 0; n < NFRAG; ++n) acc[r][n] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);

  for (int chunk = 0; chunk < p.k_chunks; ++chunk) {
    barrier();
    for (int idx = lid; idx < HH * HW * 4; idx += 128) {
      int pix = idx >> 2, c4 = chunk * 4 + (idx & 3);
      vec4 v = c4 < cin4 ? load_src(y0 + pix / HW - 1, x0 + pix % HW - 1, c4) : vec4(0.0);
      f16vec4 h = f16vec4(v);
      s_in[idx * 4] = h.x;
      s_in[idx * 4 + 1] = h.y;
      s_in[idx * 4 + 2] = h.z;
      s_in[idx * 4 + 3] = h.w;
    }
    barrier();
    for (int t = 0; t < 9; ++t) {
      int dy = t / 3, dx = t % 3;
      fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a0, a1;
      coopMatLoadNV(a0, s_in, uint(((2 * sg + dy) * HW + dx) * 16), 16u, false);
      coopMatLoadNV(a1, s_in, uint(((2 * sg + 1 + dy) * HW + dx) * 16), 16u, false);
      uint wrow = uint((t * p.k_chunks + chunk) * 16 * p.n_pad);
      for (int n = 0; n < NFRAG; ++n) {
        fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> b;
        coopMatLoadNV(b, wts, wrow + uint(n * 16), uint(p.n_pad), false);
        acc[0][n] = coopMatMulAddNV(a0, b, acc[0][n]);
        acc[1][n] = coopMatMulAddNV(a1, b, acc[1][n]);
      }
    }
  }

  // Epilogue through shared memory: bias, ReLU, pool, fp16 store, bounds checks.
  int sbase = sg * 512;
  for (int n = 0; n < NFRAG; ++n) {
    coopMatStoreNV(acc[0][n], s_out, uint(sbase), 16u, false);
    coopMatStoreNV(acc[1][n], s_out, uint(sbase + 256), 16u, false);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    if (p.pool != 0) {
      int j = lane >> 2, q = lane & 3, o = n * 4 + q;
      int oy = y0 / 2 + sg, ox = x0 / 2 + j;
      if (o < p.cout4 && oy < p.out_h && ox < p.out_w) {
        vec4 m = vec4(-3.0e38);
        for (int r = 0; r < 2; ++r)
          for (int c = 0; c < 2; ++c) {
            int e = sbase + (r * 16 + 2 * j + c) * 16 + q * 4;
            m = max(m, vec4(s_out[e], s_out[e + 1], s_out[e + 2], s_out[e + 3]));
          }
        dst[(oy * p.out_w + ox) * p.cout4 + o] = sfpvec4(activate(m + bias[o]));
      }
    } else {
      for (int k = 0; k < 4; ++k) {
        int item = lane + 32 * k, pix = item >> 2, q = item & 3, o = n * 4 + q;
        int y = y0 + 2 * sg + (pix >> 4), x = x0 + (pix & 15);
        if (o < p.cout4 && y < p.out_h && x < p.out_w) {
          int e = sbase + pix * 16 + q * 4;
          vec4 v = vec4(s_out[e], s_out[e + 1], s_out[e + 2], s_out[e + 3]);
          dst[(y * p.out_w + x) * p.cout4 + o] = sfpvec4(activate(v + bias[o]));
        }
      }
    }
    subgroupBarrier();
  }
}

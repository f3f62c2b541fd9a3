#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT f16_quads -DTX=1 -DQUADS=1
// The second pass of a split-K GEMM (gemm_io.glsl) whose rows vx.FusedMatMul then normalises (its
// LnScale / LnBias inputs): one workgroup of 128 per output row adds the `splits` fp32 partial
// sums, applies the GEMM's epilogue, and normalises the row as layer_norm.comp does (the row in
// registers, N <= THREADS * CACHED; two-pass mean and variance in fp32), then scales and shifts.
// One dispatch where gemm_reduce and a vx.LayerNorm took two (a post-norm transformer's
// out-projection and second FFN product). QUADS (fp16, where gemm_io.glsl's Y_QUADS holds): an
// invocation's values are CACHED / 4 quads of consecutive columns, each split's partial sums
// loaded as one 16-byte word (one load where there were four) and the quad stored as one word.
//   bindings: gemm_io.glsl's, but 0 (A's, which the reduce pass never reads) holds LnScale [N] and
//   1 (B's) LnBias [N] (read when LN_BIAS): a dispatch has at most 8 bindings.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "element_types.glsl"
#include "gemm_io.glsl"
layout(constant_id = 40) const float LN_EPSILON = 1e-5;
layout(constant_id = 41) const int LN_BIAS = 0;

layout(local_size_x = 128, local_size_y = 1, local_size_z = 1) in;
const int THREADS = 128;
const int CACHED = 8;  // row values per invocation (gemm_plan.cpp: kLayerNormMaxColumns)
layout(std430, binding = 0) readonly buffer BufLnScale { elem_t ln_scale_data[]; };
layout(std430, binding = 1) readonly buffer BufLnBias { elem_t ln_bias_data[]; };
#include "workgroup_sum.glsl"

void main() {
  const int row = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);  // z * M + m
  if (row >= p.batches * p.M) return;  // uniform per workgroup
  const int z = row / p.M, m = row - z * p.M, tid = int(gl_LocalInvocationID.x);
  const BatchOffsets off = batch_offsets(z);
  float v[CACHED];
  float sum = 0.0;
#if QUADS
  // v[c] is value c % 4 of the invocation's quad c / 4.
#define column(c) (4 * (tid + ((c) / 4) * THREADS) + (c) % 4)
  [[unroll]] for (int q = 0; q < CACHED / 4; ++q) {
    const int n = 4 * (tid + q * THREADS);
    float e[4] = float[4](0.0, 0.0, 0.0, 0.0);
    if (n < p.N) {  // the whole quad: N is a multiple of 4
      vec4 acc = vec4(0.0);
      for (int s = 0; s < p.splits; ++s) acc += part_quad[(((z * p.splits + s) * p.M + m) * p.N + n) / 4];
      epilogue_quad(off, m, n, float[4](acc.x, acc.y, acc.z, acc.w), e);
    }
    [[unroll]] for (int i = 0; i < 4; ++i) {
      v[4 * q + i] = e[i];
      sum += e[i];
    }
  }
#else
#define column(c) (tid + (c) * THREADS)
  [[unroll]] for (int c = 0; c < CACHED; ++c) {
    const int n = column(c);
    v[c] = 0.0;
    if (n < p.N) {
      float acc = 0.0;
      for (int s = 0; s < p.splits; ++s) acc += part_data[((z * p.splits + s) * p.M + m) * p.N + n];
      v[c] = epilogue(off, m, n, acc);
    }
    sum += v[c];
  }
#endif
  const float mean = workgroup_sum(sum) / float(p.N);
  float sq = 0.0;
  [[unroll]] for (int c = 0; c < CACHED; ++c) {
    const float d = column(c) < p.N ? v[c] - mean : 0.0;
    sq += d * d;
  }
  const float inv = inversesqrt(workgroup_sum(sq) / float(p.N) + LN_EPSILON);
#if QUADS
  [[unroll]] for (int q = 0; q < CACHED / 4; ++q) {
    const int n = 4 * (tid + q * THREADS);
    if (n < p.N) {
      float y[4];
      [[unroll]] for (int i = 0; i < 4; ++i) {
        y[i] = (v[4 * q + i] - mean) * inv * float(ln_scale_data[n + i]);
        if (LN_BIAS != 0) y[i] += float(ln_bias_data[n + i]);
      }
      store_y_values_quad(off, m, n, y);
    }
  }
#else
  [[unroll]] for (int c = 0; c < CACHED; ++c) {
    const int n = column(c);
    if (n < p.N) {
      float y = (v[c] - mean) * inv * float(ln_scale_data[n]);
      if (LN_BIAS != 0) y += float(ln_bias_data[n]);
      y_data[off.o + m * p.N + n] = elem_t(y);
    }
  }
#endif
}

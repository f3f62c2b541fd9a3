#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// The second pass of a split-K convolution whose output is only averaged over its pixels (vx.FusedConv's
// global_mean: a GlobalAveragePool folded in): a workgroup per row m of Y and batch z adds the
// `splits` fp32 partial sums of each of the row's N pixels, applies the epilogue (bias, residual,
// ReLU, post-ops) as gemm_reduce.comp does, and writes the row's mean to Y[z * M + m]. Y itself is
// never written: one dispatch instead of the reduce pass and a pool. fp32 throughout.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "element_types.glsl"
#include "gemm_io.glsl"

const int THREADS = 64;
layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;
#include "workgroup_sum.glsl"

void main() {
  const int row = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
  const int z = row / p.M, m = row - z * p.M;
  if (z >= p.batches) return;  // the whole workgroup: the sum below needs every invocation
  const BatchOffsets off = batch_offsets(z);
  float sum = 0.0;
  for (int n = int(gl_LocalInvocationID.x); n < p.N; n += THREADS) {
    float acc = 0.0;
    for (int s = 0; s < p.splits; ++s) acc += part_data[((z * p.splits + s) * p.M + m) * p.N + n];
    sum += epilogue(off, m, n, acc);
  }
  const float total = workgroup_sum(sum);
  if (gl_LocalInvocationID.x == 0) y_data[z * p.M + m] = elem_t(total / float(p.N));
}

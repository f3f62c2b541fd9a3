#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// Direct convolution, one output element per workgroup: for convolutions with few outputs and a
// long reduction each (squeeze-and-excitation 1x1 layers on a 1x1 map, a window covering the whole
// input), where a GEMM has a single column of tiles and conv_nchw.comp one long serial loop per
// output. The workgroup's threads split the output's input channels (consecutive threads read
// consecutive channels of X and W) and add their sums in shared memory. Any groups, strides,
// dilations and pads; 1-D to 3-D. fp32 accumulation.
//   binding 0: X [N, C, IZ, IY, IX]; 1: W [M, CG, KZ, KY, KX]; 2: bias [M] (when HAS_BIAS);
//   binding 3: Y [N, M, OZ, OY, OX]. Then ReLU and the post-ops (post_ops.glsl).
#include "element_types.glsl"
layout(constant_id = 0) const int CG = 1;  // input channels per group
layout(constant_id = 1) const int MG = 1;  // output channels per group
layout(constant_id = 20) const int HAS_BIAS = 0;
layout(constant_id = 21) const int RELU = 0;
#define WINDOW_ID0 2
#include "window_geometry.glsl"
#define POST_OPS_ID0 22
#include "post_ops.glsl"

#define THREADS 64
layout(local_size_x = THREADS, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Params {
  int total;  // N * M * OZ * OY * OX: one workgroup each (x, spilling into y past 65535)
  int C, M;
} p;
layout(std430, binding = 0) readonly buffer BufX { elem_t x_data[]; };
layout(std430, binding = 1) readonly buffer BufW { elem_t w_data[]; };
layout(std430, binding = 2) readonly buffer BufB { elem_t b_data[]; };
layout(std430, binding = 3) writeonly buffer BufY { elem_t y_data[]; };
#include "conv_window.glsl"

shared float s_sum[THREADS];

void main() {
  const int idx = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
  const int lid = int(gl_LocalInvocationID.x);
  if (idx >= p.total) return;  // uniform over the workgroup
  const ConvOutput o = conv_output(idx, p.M);
  float acc[1] = float[1](0.0);
  for (int ic = lid; ic < CG; ic += THREADS) add_channel_window(acc, o, p.C, ic);
  s_sum[lid] = acc[0];
  barrier();
  for (int half_count = THREADS / 2; half_count > 0; half_count /= 2) {
    if (lid < half_count) s_sum[lid] += s_sum[lid + half_count];
    barrier();
  }
  if (lid != 0) return;
  float v = s_sum[0] + (HAS_BIAS != 0 ? float(b_data[o.oc]) : 0.0);
  if (RELU != 0) v = max(v, 0.0);
  y_data[idx] = elem_t(apply_post_ops(v));
}

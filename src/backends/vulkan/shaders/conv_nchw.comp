#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// Direct convolution, XR neighbouring outputs of a row per invocation (each tap's weight loaded once
// for them: DeepLabV3 fp16 on the H100, 1.44 -> 1.27 ms, session 34): for depthwise and other
// convolutions with few input channels per group, where a GEMM's K would be tiny. Any groups,
// strides, dilations and pads; 1-D to 3-D. fp32 accumulation.
//   binding 0: X [N, C, IZ, IY, IX]; 1: W [M, CG, KZ, KY, KX]; 2: bias [M] (when HAS_BIAS);
//   binding 3: Y [N, M, OZ, OY, OX]. Then ReLU and the post-ops (post_ops.glsl).
#include "element_types.glsl"
#include "linear_index.glsl"
layout(constant_id = 0) const int CG = 1;  // input channels per group
layout(constant_id = 1) const int MG = 1;  // output channels per group
layout(constant_id = 20) const int HAS_BIAS = 0;
layout(constant_id = 21) const int RELU = 0;
#define WINDOW_ID0 2
#include "window_geometry.glsl"
#define POST_OPS_ID0 22
#include "post_ops.glsl"

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Params {
  int total;  // invocations: N * M * OZ * OY * ceil(OX / XR)
  int C, M;
} p;
layout(std430, binding = 0) readonly buffer BufX { elem_t x_data[]; };
layout(std430, binding = 1) readonly buffer BufW { elem_t w_data[]; };
layout(std430, binding = 2) readonly buffer BufB { elem_t b_data[]; };
layout(std430, binding = 3) writeonly buffer BufY { elem_t y_data[]; };
const int XR = 4;  // outputs along x an invocation (conv.cpp: kDirectOutputsPerInvocation)
#define WINDOW_OUTPUTS XR
#include "conv_window.glsl"

void main() {
  const int row_invocations = (OX + XR - 1) / XR;
  const int idx = int(linear_index(256));
  if (idx >= p.total) return;
  const int row_start = idx / row_invocations * OX, ox0 = idx % row_invocations * XR;
  const ConvOutput o = conv_output(row_start + ox0, p.M);
  float acc[XR];
  [[unroll]] for (int j = 0; j < XR; ++j) acc[j] = HAS_BIAS != 0 ? float(b_data[o.oc]) : 0.0;
  for (int ic = 0; ic < CG; ++ic) add_channel_window(acc, o, p.C, ic);
  [[unroll]] for (int j = 0; j < XR; ++j) {
    if (ox0 + j >= OX) break;
    float v = acc[j];
    if (RELU != 0) v = max(v, 0.0);
    y_data[row_start + ox0 + j] = elem_t(apply_post_ops(v));
  }
}

#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// Row statistics, one workgroup of 256 threads per contiguous row of `cols` elements, fp32
// workgroup reductions (per-thread partial sums, then a tree in shared memory):
//   MODE 0 normalise: y = (x - mean) / sqrt(var + eps) * scale + bias, with the mean and variance
//          computed in two passes (exact for rows of large magnitude); LayerNormalization (scale
//          and bias indexed by column) and InstanceNormalization (by channel: row % channels).
//          Optionally writes each row's mean and 1/sqrt(var + eps) (LayerNormalization's outputs).
//   MODE 1 mean, 2 max, 3 Lp (P): one value per row (GlobalAverage/Max/LpPool).
//   binding 0: X [rows, cols]; 1: scale; 2: bias; 3: Y; 4: mean [rows]; 5: inv std dev [rows].
#extension GL_EXT_control_flow_attributes : require
#include "element_types.glsl"
layout(constant_id = 0) const int MODE = 0;
layout(constant_id = 1) const int P = 2;
layout(constant_id = 2) const int AFFINE_BY_CHANNEL = 0;  // scale/bias index: 0 column, 1 row % channels

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Params {
  int rows, cols, channels;
  float eps;
  int flags;  // 1: scale, 2: bias, 4: write mean and inv std dev
} p;
layout(std430, binding = 0) readonly buffer BufX { elem_t x_data[]; };
layout(std430, binding = 1) readonly buffer BufS { elem_t s_data[]; };
layout(std430, binding = 2) readonly buffer BufB { elem_t b_data[]; };
layout(std430, binding = 3) writeonly buffer BufY { elem_t y_data[]; };
layout(std430, binding = 4) writeonly buffer BufMean { elem_t mean_data[]; };
layout(std430, binding = 5) writeonly buffer BufInv { elem_t inv_data[]; };

shared float s_red[256];

float reduce_sum(float v) {
  int lid = int(gl_LocalInvocationID.x);
  s_red[lid] = v;
  barrier();
  [[unroll]] for (int s = 128; s > 0; s >>= 1) {
    if (lid < s) s_red[lid] += s_red[lid + s];
    barrier();
  }
  float r = s_red[0];
  barrier();  // s_red is reused by the next reduction
  return r;
}

float reduce_max(float v) {
  int lid = int(gl_LocalInvocationID.x);
  s_red[lid] = v;
  barrier();
  [[unroll]] for (int s = 128; s > 0; s >>= 1) {
    if (lid < s) s_red[lid] = max(s_red[lid], s_red[lid + s]);
    barrier();
  }
  float r = s_red[0];
  barrier();
  return r;
}

void main() {
  int row = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
  if (row >= p.rows) return;  // uniform per workgroup
  int lid = int(gl_LocalInvocationID.x);
  int base = row * p.cols;
  if (MODE == 2) {
    float m = F32_LOWEST;
    for (int c = lid; c < p.cols; c += 256) m = max(m, float(x_data[base + c]));
    m = reduce_max(m);
    if (lid == 0) y_data[row] = elem_t(m);
    return;
  }
  float sum = 0.0;
  for (int c = lid; c < p.cols; c += 256) {
    float v = float(x_data[base + c]);
    sum += MODE == 3 ? (P == 1 ? abs(v) : (P == 2 ? v * v : pow(abs(v), float(P)))) : v;
  }
  sum = reduce_sum(sum);
  if (MODE == 1 || MODE == 3) {
    if (lid == 0) {
      float r = MODE == 1 ? sum / float(max(p.cols, 1)) : (P == 1 ? sum : (P == 2 ? sqrt(sum) : pow(sum, 1.0 / float(P))));
      y_data[row] = elem_t(r);
    }
    return;
  }
  float mean = sum / float(max(p.cols, 1));
  float sq = 0.0;
  for (int c = lid; c < p.cols; c += 256) {
    float d = float(x_data[base + c]) - mean;
    sq += d * d;
  }
  sq = reduce_sum(sq);
  float inv = inversesqrt(sq / float(max(p.cols, 1)) + p.eps);
  int ch = p.channels > 0 ? row % p.channels : 0;
  for (int c = lid; c < p.cols; c += 256) {
    int a = AFFINE_BY_CHANNEL != 0 ? ch : c;
    float v = (float(x_data[base + c]) - mean) * inv;
    if ((p.flags & 1) != 0) v *= float(s_data[a]);
    if ((p.flags & 2) != 0) v += float(b_data[a]);
    y_data[base + c] = elem_t(v);
  }
  if ((p.flags & 4) != 0 && lid == 0) {
    mean_data[row] = elem_t(mean);
    inv_data[row] = elem_t(inv);
  }
}

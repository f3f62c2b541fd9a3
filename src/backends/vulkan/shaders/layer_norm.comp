#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// vx.LayerNorm: y = (x - mean) / sqrt(var + eps) * scale + bias over each contiguous row of `cols`.
// One workgroup of 128 per row; the row stays in registers (8 values per thread, rows up to 1024;
// longer rows re-read the rest), mean and variance in two passes over the registers (exact for rows
// of large magnitude), each a subgroup reduction plus one exchange through shared memory: 4
// barriers per row instead of a shared-memory tree's 16 (row_stats.comp). fp32 arithmetic.
//   binding 0: X [rows, cols]; 1: scale [cols]; 2: bias [cols]; 3: Y.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require
#include "element_types.glsl"

layout(local_size_x = 128, local_size_y = 1, local_size_z = 1) in;
const int THREADS = 128;
const int CACHED = 8;

// Matches LayerNormPush in kernels/layer_norm.cpp.
layout(push_constant) uniform Params {
  int rows, cols;
  float eps;
  int flags;  // 1: scale, 2: bias
} p;
layout(std430, binding = 0) readonly buffer BufX { elem_t x_data[]; };
layout(std430, binding = 1) readonly buffer BufS { elem_t s_data[]; };
layout(std430, binding = 2) readonly buffer BufB { elem_t b_data[]; };
layout(std430, binding = 3) writeonly buffer BufY { elem_t y_data[]; };

#include "workgroup_sum.glsl"

void main() {
  const int row = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
  if (row >= p.rows) return;  // uniform per workgroup
  const int tid = int(gl_LocalInvocationID.x);
  const int base = row * p.cols;
  const float n = float(p.cols);

  float v[CACHED];
  float sum = 0.0;
  [[unroll]] for (int k = 0; k < CACHED; ++k) {
    int c = tid + k * THREADS;
    v[k] = c < p.cols ? float(x_data[base + c]) : 0.0;
    sum += v[k];
  }
  for (int c = tid + CACHED * THREADS; c < p.cols; c += THREADS) sum += float(x_data[base + c]);
  const float mean = workgroup_sum(sum) / n;

  float sq = 0.0;
  [[unroll]] for (int k = 0; k < CACHED; ++k) {
    float d = tid + k * THREADS < p.cols ? v[k] - mean : 0.0;
    sq += d * d;
  }
  for (int c = tid + CACHED * THREADS; c < p.cols; c += THREADS) {
    float d = float(x_data[base + c]) - mean;
    sq += d * d;
  }
  const float inv = inversesqrt(workgroup_sum(sq) / n + p.eps);

  const bool scale = (p.flags & 1) != 0, bias = (p.flags & 2) != 0;
  [[unroll]] for (int k = 0; k < CACHED; ++k) {
    int c = tid + k * THREADS;
    if (c < p.cols) {
      float y = (v[k] - mean) * inv;
      if (scale) y *= float(s_data[c]);
      if (bias) y += float(b_data[c]);
      y_data[base + c] = elem_t(y);
    }
  }
  for (int c = tid + CACHED * THREADS; c < p.cols; c += THREADS) {
    float y = (float(x_data[base + c]) - mean) * inv;
    if (scale) y *= float(s_data[c]);
    if (bias) y += float(b_data[c]);
    y_data[base + c] = elem_t(y);
  }
}

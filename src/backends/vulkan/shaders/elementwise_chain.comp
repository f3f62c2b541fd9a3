#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// vx.ElementwiseChain (ops/fused_ops.h): Y = post_ops(X), the steps as specialization constants
// (post_ops.glsl), one element an invocation. fp32 arithmetic.
//   binding 0: X; 1: Y (X's shape).
#include "element_types.glsl"
#include "linear_index.glsl"
#define POST_OPS_ID0 0
#include "post_ops.glsl"

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Params {
  uint count;
} p;
layout(std430, binding = 0) readonly buffer BufX { elem_t x_data[]; };
layout(std430, binding = 1) writeonly buffer BufY { elem_t y_data[]; };

void main() {
  const uint i = linear_index(256);
  if (i >= p.count) return;
  y_data[i] = elem_t(apply_post_ops(float(x_data[i])));
}

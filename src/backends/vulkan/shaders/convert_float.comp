#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32_f16 -DTI=0 -DTO=1
// VARIANT f16_f32 -DTI=1 -DTO=0
// A float tensor between the host's f32 and the device's f16 storage (segment_executable.cpp): the
// executor uploads and downloads f32 as the caller has it, and this dispatch converts on the GPU,
// reading or writing the staging buffer directly. y[i] = x[i], rounded once to nearest even.
//   binding 0: x [count]; binding 1: y [count].
#include "element_types.glsl"
#include "linear_index.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params {
  int count;
} p;
layout(std430, binding = 0) readonly buffer Src { STORAGE(TI) x[]; };
layout(std430, binding = 1) writeonly buffer Dst { STORAGE(TO) y[]; };

void main() {
  const int i = int(linear_index(256));
  if (i < p.count) y[i] = STORAGE(TO)(x[i]);
}

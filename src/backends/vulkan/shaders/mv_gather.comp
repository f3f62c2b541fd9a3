#version 450
// VARIANT f16 -DFP16=1
// Gather along one axis: data seen as [outer, extent, inner], output as [outer, n_indices, inner];
// out[(o * n_indices + j) * inner + k] = data[(o * extent + idx[j]) * inner + k]. Negative indices
// count from the end; indices outside [-extent, extent) are clamped (never read out of bounds).
#include "mv_common.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params { int count, inner, n_indices, extent; } p;
layout(std430, binding = 0) readonly buffer Src { move_t src[]; };
layout(std430, binding = 1) readonly buffer Indices { int indices[]; };
layout(std430, binding = 2) writeonly buffer Dst { move_t dst[]; };

void main() {
  int i = global_index();
  if (i >= p.count) return;
  int k = i % p.inner, t = i / p.inner;
  int j = t % p.n_indices, o = t / p.n_indices;
  int idx = indices[j];
  if (idx < 0) idx += p.extent;
  idx = clamp(idx, 0, p.extent - 1);
  dst[i] = src[(o * p.extent + idx) * p.inner + k];
}

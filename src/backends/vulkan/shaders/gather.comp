#version 450
// NO_DEFAULT_VARIANT
// VARIANT b32 -DTX=0
// VARIANT f16 -DTX=1
// Gather along one axis: data seen as [outer, extent, inner], output as [outer, n_indices, inner];
// out[(o * n_indices + j) * inner + k] = data[(o * extent + idx[j]) * inner + k]. Negative indices
// count from the end; indices outside [-extent, extent) are reported and skipped.
#include "element_types.glsl"
#include "tensor_index.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params { int count, inner, n_indices, extent; } p;
layout(std430, binding = 0) readonly buffer Src { move_t src[]; };
layout(std430, binding = 1) readonly buffer Indices { int indices[]; };
layout(std430, binding = 2) writeonly buffer Dst { move_t dst[]; };
// Index status (Binding::status() in op_kernel.h): the first index outside [-extent, extent)
// and its extent; the executor throws after the submit, as the CPU kernels do.
layout(std430, binding = 3) buffer Status { uint status[4]; };
void report_bad_index(int index, int extent) {
  if (atomicCompSwap(status[0], 0u, 1u) == 0u) {
    status[1] = uint(index);
    status[2] = uint(extent);
  }
}

void main() {
  int i = global_index();
  if (i >= p.count) return;
  int k = i % p.inner, t = i / p.inner;
  int j = t % p.n_indices, o = t / p.n_indices;
  int idx = indices[j];
  if (idx < -p.extent || idx >= p.extent) {
    report_bad_index(idx, p.extent);
    return;
  }
  if (idx < 0) idx += p.extent;
  dst[i] = src[(o * p.extent + idx) * p.inner + k];
}

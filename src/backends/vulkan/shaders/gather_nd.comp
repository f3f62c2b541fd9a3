#version 450
// NO_DEFAULT_VARIANT
// VARIANT b32 -DTX=0
// VARIANT f16 -DTX=1
// GatherND: output element o is element e of slice t (o = t * slice + e); tuple t (k indices)
// belongs to batch b = t / tuples_per_batch and reads data at
// b * batch_stride + sum_j idx[t * k + j] * strides[j] + e. Negative indices count from the end;
// out-of-range ones are reported and skipped (never read out of bounds).
#include "element_types.glsl"
#include "tensor_index.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params {
  int count, slice, k, tuples_per_batch, batch_stride;
  int extents[kMaxRank];  // of the indexed data axes
  int strides[kMaxRank];
} p;
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
  int t = i / p.slice, e = i % p.slice;
  int s = (t / p.tuples_per_batch) * p.batch_stride + e;
  for (int j = 0; j < p.k; ++j) {
    int idx = indices[t * p.k + j];
    if (idx < -p.extents[j] || idx >= p.extents[j]) {
      report_bad_index(idx, p.extents[j]);
      return;
    }
    if (idx < 0) idx += p.extents[j];
    s += idx * p.strides[j];
  }
  dst[i] = src[s];
}

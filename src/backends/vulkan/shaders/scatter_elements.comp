#version 450
// NO_DEFAULT_VARIANT
// VARIANT b32 -DTX=0
// VARIANT f16 -DTX=1
// ScatterElements (reduction none), after the data was copied to the output: update element c
// (over the indices' shape, rank <= 6) goes to the output at c with c[axis] replaced by idx[c].
// Negative indices count from the end; out-of-range ones are reported and skipped. Duplicate
// indices: one of the updates wins (ONNX leaves the order undefined).
#include "element_types.glsl"
#include "tensor_index.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params {
  int count, rank, axis, extent;
  int dims[kMaxRank];  // of the indices and the updates
  int out_strides[kMaxRank];
} p;
layout(std430, binding = 0) readonly buffer Indices { int indices[]; };
layout(std430, binding = 1) readonly buffer Updates { move_t updates[]; };
layout(std430, binding = 2) buffer Dst { move_t dst[]; };
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
  int idx = indices[i];
  if (idx < -p.extent || idx >= p.extent) {
    report_bad_index(idx, p.extent);
    return;
  }
  if (idx < 0) idx += p.extent;
  int d = 0, rest = i;
  for (int k = p.rank - 1; k >= 0; --k) {
    int c = rest % p.dims[k];
    rest /= p.dims[k];
    d += (k == p.axis ? idx : c) * p.out_strides[k];
  }
  dst[d] = updates[i];
}

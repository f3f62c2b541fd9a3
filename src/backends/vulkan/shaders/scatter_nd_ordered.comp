#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT i32 -DTX=2
// ScatterND. Phase 0 copies the data to the output; phase 1 runs one invocation per element of a
// slice and applies the tuples in order, so repeated tuples combine as in the sequential ONNX
// definition (invocations never share an output element). Out-of-range tuples are reported and
// skipped.
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"
#include "scatter_combine.glsl"

layout(std430, binding = 0) readonly buffer X { elem_t x[]; };
layout(std430, binding = 1) readonly buffer I { int indices[]; };
layout(std430, binding = 2) readonly buffer U { elem_t updates[]; };
layout(std430, binding = 3) buffer Y { elem_t y[]; };
// Index status (Binding::status() in op_kernel.h): the first index outside [-extent, extent)
// and its extent; the executor throws after the submit, as the CPU kernels do.
layout(std430, binding = 4) buffer Status { uint status[4]; };
void report_bad_index(int index, int extent) {
  if (atomicCompSwap(status[0], 0u, 1u) == 0u) {
    status[1] = uint(index);
    status[2] = uint(extent);
  }
}

// Matches ScatterNDPush in scatter_ordered.cpp.
layout(push_constant) uniform Push {
  uint count;  // phase 0: data elements; phase 1: slice elements
  int phase;
  int reduction;
  int k;       // tuple length
  int tuples;
  int slice;
  int dims[6];     // data extents of the first k axes
  int strides[6];  // data strides of the first k axes
} p;

void main() {
  uint e = linear_index();
  if (e >= p.count) return;
  if (p.phase == 0) {
    y[e] = x[e];
    return;
  }
  for (int t = 0; t < p.tuples; ++t) {
    int offset = 0;
    bool inside = true;
    for (int j = 0; j < p.k; ++j) {
      int idx = indices[t * p.k + j];
      if (idx < -p.dims[j] || idx >= p.dims[j]) {
        report_bad_index(idx, p.dims[j]);
        inside = false;
      }
      if (idx < 0) idx += p.dims[j];
      offset += idx * p.strides[j];
    }
    if (!inside) continue;
    int dst = offset + int(e);
    y[dst] = combine(y[dst], updates[t * p.slice + int(e)], p.reduction);
  }
}

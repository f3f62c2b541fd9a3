#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT i32 -DTX=2
// ScatterElements / Scatter. Phase 0 copies the data to the output; phase 1 runs one invocation
// per line of the indices along the axis and applies that line's updates in order, so repeated
// indices combine (or overwrite) exactly as the sequential ONNX definition does: different lines
// never write the same output element. Out-of-range indices are reported and skipped.
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

// Matches ScatterElementsPush in scatter_ordered.cpp (dims padded with leading 1s to rank 6).
layout(push_constant) uniform Push {
  uint count;  // phase 0: data elements; phase 1: lines
  int phase;
  int reduction;
  int axis;
  int data_extent;   // data's extent along the axis
  int index_extent;  // indices' extent along the axis
  int index_dims[6];
  int index_strides[6];
  int data_strides[6];
} p;

void main() {
  uint e = linear_index();
  if (e >= p.count) return;
  if (p.phase == 0) {
    y[e] = x[e];
    return;
  }
  uint rest = e;
  int index_base = 0, data_base = 0;
  for (int d = 5; d >= 0; --d) {
    if (d == p.axis) continue;
    int c = int(rest % uint(p.index_dims[d]));
    rest /= uint(p.index_dims[d]);
    index_base += c * p.index_strides[d];
    data_base += c * p.data_strides[d];
  }
  for (int j = 0; j < p.index_extent; ++j) {
    int at = index_base + j * p.index_strides[p.axis];
    int idx = indices[at];
    if (idx < -p.data_extent || idx >= p.data_extent) {
      report_bad_index(idx, p.data_extent);
      continue;
    }
    if (idx < 0) idx += p.data_extent;
    int dst = data_base + idx * p.data_strides[p.axis];
    y[dst] = combine(y[dst], updates[at], p.reduction);
  }
}

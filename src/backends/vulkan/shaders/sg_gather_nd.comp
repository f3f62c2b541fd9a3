#version 450
// NO_DEFAULT_VARIANT
// VARIANT f -DTX=0
// VARIANT h -DTX=1
// VARIANT i -DTX=2
// GatherND with batch_dims: one invocation per output element; out-of-range indices are clamped
// (never read out of bounds).
#include "more_common.glsl"

layout(std430, binding = 0) readonly buffer X { TXS x[]; };
layout(std430, binding = 1) readonly buffer I { int indices[]; };
layout(std430, binding = 2) writeonly buffer Y { TXS y[]; };

// Matches GatherNDPush in scatter_gather.cpp.
layout(push_constant) uniform Push {
  uint count;
  int k;
  int slice;
  int tuples_per_batch;
  int batch_stride;
  int dims[6];     // data extents of axes batch .. batch + k - 1
  int strides[6];  // their strides
} p;

void main() {
  uint o = linear_index();
  if (o >= p.count) return;
  int t = int(o) / p.slice, e = int(o) % p.slice;
  int offset = (t / p.tuples_per_batch) * p.batch_stride;
  for (int j = 0; j < p.k; ++j) {
    int idx = indices[t * p.k + j];
    if (idx < 0) idx += p.dims[j];
    offset += clamp(idx, 0, p.dims[j] - 1) * p.strides[j];
  }
  y[o] = x[offset + e];
}

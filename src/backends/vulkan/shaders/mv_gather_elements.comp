#version 450
// VARIANT f16 -DFP16=1
// GatherElements: out[c] = data[c with c[axis] replaced by idx[c]], c over the indices' shape
// (rank <= 6). Negative indices count from the end; out-of-range ones are clamped.
#include "mv_common.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params {
  int count, rank, axis, extent;
  int dims[kMaxRank];         // of the indices (and the output)
  int data_strides[kMaxRank];
} p;
layout(std430, binding = 0) readonly buffer Src { move_t src[]; };
layout(std430, binding = 1) readonly buffer Indices { int indices[]; };
layout(std430, binding = 2) writeonly buffer Dst { move_t dst[]; };

void main() {
  int i = global_index();
  if (i >= p.count) return;
  int idx = indices[i];
  if (idx < 0) idx += p.extent;
  idx = clamp(idx, 0, p.extent - 1);
  int s = 0, rest = i;
  for (int k = p.rank - 1; k >= 0; --k) {
    int c = rest % p.dims[k];
    rest /= p.dims[k];
    s += (k == p.axis ? idx : c) * p.data_strides[k];
  }
  dst[i] = src[s];
}

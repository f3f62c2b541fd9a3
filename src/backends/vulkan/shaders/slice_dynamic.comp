#version 450
// NO_DEFAULT_VARIANT
// VARIANT b32 -DTX=0
// VARIANT f16 -DTX=1
// Slice whose starts (and axes, steps) are computed at run time: each invocation derives the
// per-axis start and step from the int32 operand tensors (ONNX's clamping rules; int64 values
// arrive saturated to int32, which clamps the same) and reads its element; the output extents are
// the bound shape, so `ends` is not needed. Coordinates are clamped into the input (never out of
// bounds).
#include "element_types.glsl"
#include "tensor_index.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params {
  int count, rank, entries, has_axes, has_steps;
  int out_dims[kMaxRank];
  int in_dims[kMaxRank];
} p;
layout(std430, binding = 0) readonly buffer Src { move_t src[]; };
layout(std430, binding = 1) readonly buffer Starts { int starts[]; };
layout(std430, binding = 2) readonly buffer Axes { int axes[]; };
layout(std430, binding = 3) readonly buffer Steps { int steps[]; };
layout(std430, binding = 4) writeonly buffer Dst { move_t dst[]; };

void main() {
  int i = global_index();
  if (i >= p.count) return;
  int start[kMaxRank], step[kMaxRank];
  for (int a = 0; a < kMaxRank; ++a) {
    start[a] = 0;
    step[a] = 1;
  }
  for (int j = 0; j < p.entries; ++j) {
    int a = p.has_axes != 0 ? axes[j] : j;
    if (a < 0) a += p.rank;
    a = clamp(a, 0, p.rank - 1);
    int st = p.has_steps != 0 ? steps[j] : 1;
    if (st == 0) st = 1;
    int d = p.in_dims[a], s = starts[j];
    if (s < 0) s += d;
    start[a] = st > 0 ? clamp(s, 0, d) : clamp(s, 0, d - 1);
    step[a] = st;
  }
  int offset = 0, stride = 1, rest = i;
  for (int k = p.rank - 1; k >= 0; --k) {
    int c = rest % p.out_dims[k];
    rest /= p.out_dims[k];
    offset += clamp(start[k] + c * step[k], 0, p.in_dims[k] - 1) * stride;
    stride *= p.in_dims[k];
  }
  dst[i] = src[offset];
}

#version 450
// NO_DEFAULT_VARIANT
// VARIANT b32 -DTX=0
// VARIANT f16 -DTX=1
// The input of an upsample_concat vx.FusedConv in the per-op executor, NCHW:
// Y = concat(upsample2x_nearest(A), B) along channels, A [N, CA, H/2, W/2], B [N, CB, H, W],
// Y [N, CA + CB, H, W]. One element per invocation; the conv's GEMM then reads Y (kernels/conv.cpp).
#include "element_types.glsl"
#include "linear_index.glsl"

layout(local_size_x = 256) in;
// Matches UpsampleConcatPush in kernels/conv.cpp.
layout(push_constant) uniform Params {
  int total;  // N * (CA + CB) * H * W
  int ca, cb, h, w;
} p;
layout(std430, binding = 0) readonly buffer SrcA { move_t a[]; };
layout(std430, binding = 1) readonly buffer SrcB { move_t b[]; };
layout(std430, binding = 2) writeonly buffer Dst { move_t y[]; };

void main() {
  const int idx = int(linear_index(256));
  if (idx >= p.total) return;
  const int x = idx % p.w;
  int t = idx / p.w;
  const int row = t % p.h;
  t /= p.h;
  const int channels = p.ca + p.cb;
  const int c = t % channels, n = t / channels;
  if (c < p.ca)
    y[idx] = a[((n * p.ca + c) * (p.h >> 1) + (row >> 1)) * (p.w >> 1) + (x >> 1)];
  else
    y[idx] = b[((n * p.cb + c - p.ca) * p.h + row) * p.w + x];
}

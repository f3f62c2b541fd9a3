#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32_f32 -DTX=0
// VARIANT f32_f16 -DTX=1
// The fused conv network's input on the device (graph_executable.cpp): an f32 NCHW tensor (batch
// 1, as uploaded) to the kernels' activation layout, NHWC with channels in blocks of 4 (zero past
// the last channel), in the storage type. One invocation per (block, pixel), pixels fastest, so
// that neighbouring invocations read neighbouring floats of one plane.
//   binding 0: src f32 [C, H, W]; binding 4: dst elem4_t [H, W, C4]. (Bindings 1-3 are the conv
//   kernels' and unused here: the executable's one descriptor-set layout.)
#include "element_types.glsl"
#include "linear_index.glsl"

layout(local_size_x = 256) in;
// The first four of the executable's push words (the conv kernels' block, conv3x3_io.glsl).
layout(push_constant) uniform Params {
  int channels, pixels, blocks;  // C, H * W, (C + 3) / 4
} p;
layout(std430, binding = 0) readonly buffer Src { float src[]; };
layout(std430, binding = 4) writeonly buffer Dst { elem4_t dst[]; };

void main() {
  const int idx = int(linear_index(256));
  if (idx >= p.pixels * p.blocks) return;
  const int pixel = idx % p.pixels, block = idx / p.pixels;
  vec4 v = vec4(0.0);
  for (int i = 0; i < 4; ++i) {
    const int c = block * 4 + i;
    if (c < p.channels) v[i] = src[c * p.pixels + pixel];
  }
  dst[pixel * p.blocks + block] = elem4_t(v);
}

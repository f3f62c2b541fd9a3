#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32_f32 -DTX=0
// VARIANT f16_f32 -DTX=1
// The fused conv network's output on the device (graph_executable.cpp): the kernels' activation
// layout (NHWC, channels in blocks of 4, storage type) to an f32 NCHW tensor (batch 1), which is
// then downloaded as is. One invocation per (channel, pixel), pixels fastest: coalesced writes.
//   binding 0: src elem4_t [H, W, C4]; binding 4: dst f32 [C, H, W]. (Bindings 1-3 unused.)
#include "element_types.glsl"
#include "linear_index.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params {
  int channels, pixels, blocks;  // C, H * W, (C + 3) / 4
} p;
layout(std430, binding = 0) readonly buffer Src { elem4_t src[]; };
layout(std430, binding = 4) writeonly buffer Dst { float dst[]; };

void main() {
  const int idx = int(linear_index(256));
  if (idx >= p.pixels * p.channels) return;
  const int pixel = idx % p.pixels, c = idx / p.pixels;
  dst[idx] = vec4(src[pixel * p.blocks + (c >> 2)])[c & 3];
}

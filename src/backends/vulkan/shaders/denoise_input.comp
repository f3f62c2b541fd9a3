#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// OIDN's input processing for one tile, straight from the user's images into the network's input
// activation (NHWC, channels in blocks of 4, zero padded; fp32 or fp16 storage), as
// src/denoise/processing.h:
//   main input (binding 0: the colour, or albedo / normal filtered alone): non-finite -> 0,
//   * inputScale, clamp to [snorm ? -1 : 0, hdr ? FLT_MAX : 1], snorm -> * 0.5 + 0.5, transfer forward;
//   albedo non-finite -> 0, clamp [0, 1]; normal non-finite -> 0, clamp [-1, 1], * 0.5 + 0.5.
// Buffer pixels outside the tile's input rectangle are zero (as the CPU path's memset).
#include "element_types.glsl"
#include "denoise_io.glsl"

layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;
layout(std430, binding = 0) readonly buffer Input { uint input_words[]; };
layout(std430, binding = 1) readonly buffer Albedo { uint albedo_words[]; };
layout(std430, binding = 2) readonly buffer Normal { uint normal_words[]; };
layout(std430, binding = 4) writeonly buffer Dst { elem4_t dst[]; };

layout(push_constant) uniform Tile {
  int in_x, in_y, in_w, in_h;      // image rectangle read
  int buffer_x, buffer_y;          // where it goes in the tile buffer
  int buffer_w, buffer_h;          // tile buffer size (the network input)
  int c4;                          // vec4 blocks per pixel of the network input
} t;

const float FLT_MAX = 3.402823466e+38;

void main() {
  int bx = int(gl_GlobalInvocationID.x), by = int(gl_GlobalInvocationID.y);
  if (bx >= t.buffer_w || by >= t.buffer_h) return;
  float v[12];
  for (int i = 0; i < 12; ++i) v[i] = 0.0;
  int col = bx - t.buffer_x, row = by - t.buffer_y;
  if (col >= 0 && row >= 0 && col < t.in_w && row < t.in_h) {
    int x = t.in_x + col, y = t.in_y + row;
    float scale = job.input_scale;
    float input_min = job.snorm != 0 ? -1.0 : 0.0;
    float input_max = job.hdr != 0 ? FLT_MAX : 1.0;
    vec3 rgb;
    LOAD_RGB(input_words, job.images[0], x, y, rgb);
    for (int c = 0; c < 3; ++c) {
      float value = clamp(finite_or_zero(rgb[c]) * scale, input_min, input_max);
      if (job.snorm != 0) value = value * 0.5 + 0.5;
      v[c] = transfer_forward(value);
    }
    if (job.input_channels >= 6) {
      LOAD_RGB(albedo_words, job.images[1], x, y, rgb);
      for (int c = 0; c < 3; ++c) v[3 + c] = clamp(finite_or_zero(rgb[c]), 0.0, 1.0);
    }
    if (job.input_channels >= 9) {
      LOAD_RGB(normal_words, job.images[2], x, y, rgb);
      for (int c = 0; c < 3; ++c) v[6 + c] = clamp(finite_or_zero(rgb[c]), -1.0, 1.0) * 0.5 + 0.5;
    }
  }
  int base = (by * t.buffer_w + bx) * t.c4;
  for (int b = 0; b < t.c4; ++b) dst[base + b] = elem4_t(vec4(v[4 * b], v[4 * b + 1], v[4 * b + 2], v[4 * b + 3]));
}

#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// OIDN's output processing for one tile, from the network's output activation straight into the
// user's output image, as src/denoise/processing.h: NaN -> 0, clamp at 0, transfer inverse, the mean
// of the three channels for a 1-channel output, snorm -> max(* 2 - 1, -1), clamp to 1 (LDR),
// / inputScale. Only the tile's owned pixels are written.
#include "element_types.glsl"
#include "denoise_io.glsl"

layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;
layout(std430, binding = 0) readonly buffer Src { elem4_t src[]; };
layout(std430, binding = 4) buffer Out { uint out_words[]; };

layout(push_constant) uniform Tile {
  int src_x, src_y;        // buffer position of the first owned pixel
  int out_x, out_y;        // its image position
  int out_w, out_h;        // owned size
  int buffer_w;            // tile buffer width
  int c4;                  // vec4 blocks per pixel of the network output
} t;

void store_elem(int x, int y, int c, float value) { STORE_ELEM(out_words, job.images[3], x, y, c, value); }

void main() {
  int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y);
  if (ox >= t.out_w || oy >= t.out_h) return;
  vec4 raw = vec4(src[((t.src_y + oy) * t.buffer_w + t.src_x + ox) * t.c4]);
  float inv_scale = 1.0 / job.input_scale;
  int channels = job.images[3].channels;
  vec3 rgb;
  for (int c = 0; c < 3; ++c) rgb[c] = transfer_inverse(max(nan_to_zero(raw[c]), 0.0));
  // OIDN averages before the range clamps (a mean of clamped channels would differ).
  if (channels == 1) rgb = vec3((rgb[0] + rgb[1] + rgb[2]) * (1.0 / 3.0));
  for (int c = 0; c < 3; ++c) {
    float v = rgb[c];
    if (job.snorm != 0) v = max(v * 2.0 - 1.0, -1.0);
    if (job.hdr == 0) v = min(v, 1.0);
    rgb[c] = clamp(v * inv_scale, -3.402823466e+38, 3.402823466e+38);  // a small inputScale must not overflow to Inf
  }
  int x = t.out_x + ox, y = t.out_y + oy;
  for (int c = 0; c < channels; ++c) store_elem(x, y, c, rgb[c]);
}

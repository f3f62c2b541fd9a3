#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT i32 -DTX=2
// Resize of the two innermost axes only (an image's height and width, the common case; resize.comp
// takes any others): a thread per output pixel on a 3-D grid (x: output column, y: output row,
// z: image plane), so no index is divided, reading resize.comp's tap tables of the two axes.
// DeepLabV3's final upsampling to 21 x 520 x 520 took 0.197 ms on the H200 with resize.comp,
// whose per-element rank loop divides by run-time extents and keeps its taps in local arrays.
#include "element_types.glsl"

layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Params {
  int in_h, in_w, out_h, out_w, taps;
  float extrapolation;
  int y_table, x_table;  // first entries of the row and column tables
} p;
layout(std430, binding = 0) readonly buffer Src { elem_t src[]; };
layout(std430, binding = 1) readonly buffer Table { ivec2 table[]; };  // (index, float bits of weight)
layout(std430, binding = 2) writeonly buffer Dst { elem_t dst[]; };

void main() {
  const int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y), plane = int(gl_GlobalInvocationID.z);
  if (ox >= p.out_w || oy >= p.out_h) return;
  const int ye = p.y_table + oy * p.taps, xe = p.x_table + ox * p.taps;
  const int out_index = (plane * p.out_h + oy) * p.out_w + ox, base = plane * p.in_h * p.in_w;
  if (table[ye].x < 0 || table[xe].x < 0) {  // tf_crop_and_resize's outside
#if TX == 2
    dst[out_index] = int(roundEven(p.extrapolation));
#else
    dst[out_index] = elem_t(p.extrapolation);
#endif
    return;
  }
  if (p.taps == 1) {  // nearest: an exact copy
    dst[out_index] = src[base + table[ye].x * p.in_w + table[xe].x];
    return;
  }
  float sum = 0.0;
  for (int ty = 0; ty < p.taps; ++ty) {
    const ivec2 ey = table[ye + ty];
    const float wy = intBitsToFloat(ey.y);
    if (wy == 0.0) continue;
    const int row = base + ey.x * p.in_w;
    for (int tx = 0; tx < p.taps; ++tx) {
      const ivec2 ex = table[xe + tx];
      const float w = wy * intBitsToFloat(ex.y);
      if (w != 0.0) sum += w * float(src[row + ex.x]);
    }
  }
#if TX == 2
  dst[out_index] = int(roundEven(sum));
#else
  dst[out_index] = elem_t(sum);
#endif
}

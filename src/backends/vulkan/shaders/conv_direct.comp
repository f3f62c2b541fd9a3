#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// Direct 3x3 conv + bias (+ReLU) (+2x2 max pool) (+nearest-upsample/concat input), one output
// vec4 (4 channels of one pixel) per invocation. Simple and exact: the reference GPU kernel.
// Weights: vec4 w[((o * 9 + tap) * cin4 + i) * 4 + k] = the 4 outputs of block o for input channel 4i+k.
#include "element_types.glsl"
#include "conv3x3_io.glsl"

layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;
layout(std430, binding = 2) readonly buffer Weights { elem4_t wts[]; };

vec4 conv_at(int y, int x, int o) {
  int cin4 = p.cin4_a + p.cin4_b;
  vec4 acc = bias[o];
  for (int t = 0; t < 9; ++t) {
    int yy = y + t / 3 - 1, xx = x + t % 3 - 1;
    if (yy < 0 || xx < 0 || yy >= p.H || xx >= p.W) continue;
    int base = (o * 9 + t) * cin4 * 4;
    for (int i = 0; i < cin4; ++i) {
      vec4 v = load_src(yy, xx, i);
      int w = base + i * 4;
      acc += vec4(wts[w]) * v.x + vec4(wts[w + 1]) * v.y + vec4(wts[w + 2]) * v.z + vec4(wts[w + 3]) * v.w;
    }
  }
  return activate(acc);
}

void main() {
  int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y), o = int(gl_GlobalInvocationID.z);
  if (ox >= p.out_w || oy >= p.out_h || o >= p.cout4) return;
  vec4 v;
  if (p.pool != 0) {
    int y = oy * 2, x = ox * 2;
    v = max(max(conv_at(y, x, o), conv_at(y, x + 1, o)), max(conv_at(y + 1, x, o), conv_at(y + 1, x + 1, o)));
  } else {
    v = conv_at(oy, ox, o);
  }
  dst[(oy * p.out_w + ox) * p.cout4 + o] = elem4_t(v);
}

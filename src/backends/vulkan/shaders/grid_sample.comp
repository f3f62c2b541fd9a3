#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// GridSample (2-D, opset 16) as PyTorch's grid_sampler_2d, which the ONNX test data follows: one
// invocation per output element; modes bilinear / nearest / bicubic (A = -0.75), padding zeros /
// border / reflection, align_corners. Bilinear and nearest pad the continuous coordinate, bicubic
// pads each of its 4x4 taps. fp32 math.
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"

layout(std430, binding = 0) readonly buffer X { elem_t x[]; };
layout(std430, binding = 1) readonly buffer G { elem_t grid[]; };
layout(std430, binding = 2) writeonly buffer Y { elem_t y[]; };

// Matches GridSamplePush in grid_sample.cpp.
layout(push_constant) uniform Push {
  uint count;
  int channels;
  int height;
  int width;
  int out_height;
  int out_width;
  int mode;     // 0 bilinear, 1 nearest, 2 bicubic
  int padding;  // 0 zeros, 1 border, 2 reflection
  int align_corners;
} p;

float unnormalize(float g, int size) {
  return p.align_corners != 0 ? (g + 1.0) / 2.0 * float(size - 1) : ((g + 1.0) * float(size) - 1.0) / 2.0;
}

float reflect_coordinate(float v, float twice_low, float twice_high) {
  if (twice_low == twice_high) return 0.0;
  float low = twice_low / 2.0, span = (twice_high - twice_low) / 2.0;
  v = abs(v - low);
  float extra = mod(v, span);
  int flips = int(floor(v / span));
  return (flips % 2) == 0 ? extra + low : span - extra + low;
}

float pad_coordinate(float v, int size) {
  if (p.padding == 1) return clamp(v, 0.0, float(size - 1));
  if (p.padding == 2) {
    v = p.align_corners != 0 ? reflect_coordinate(v, 0.0, 2.0 * float(size - 1))
                             : reflect_coordinate(v, -1.0, 2.0 * float(size) - 1.0);
    return clamp(v, 0.0, float(size - 1));
  }
  return v;
}

float cubic1(float t, float a) { return ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0; }
float cubic2(float t, float a) { return ((a * t - 5.0 * a) * t + 8.0 * a) * t - 4.0 * a; }

int base_offset;
float at(int yy, int xx) {
  return yy >= 0 && yy < p.height && xx >= 0 && xx < p.width ? float(x[base_offset + yy * p.width + xx]) : 0.0;
}

void main() {
  uint e = linear_index();
  if (e >= p.count) return;
  int j = int(e % uint(p.out_width));
  int i = int((e / uint(p.out_width)) % uint(p.out_height));
  int c = int((e / uint(p.out_width * p.out_height)) % uint(p.channels));
  int n = int(e / uint(p.out_width * p.out_height * p.channels));
  int g = ((n * p.out_height + i) * p.out_width + j) * 2;
  float ux = unnormalize(float(grid[g]), p.width), uy = unnormalize(float(grid[g + 1]), p.height);
  base_offset = (n * p.channels + c) * p.height * p.width;
  float v = 0.0;
  if (p.mode == 2) {
    float x0 = floor(ux), y0 = floor(uy), tx = ux - x0, ty = uy - y0;
    const float a = -0.75;
    float cx[4] = float[4](cubic2(tx + 1.0, a), cubic1(tx, a), cubic1(1.0 - tx, a), cubic2(2.0 - tx, a));
    float cy[4] = float[4](cubic2(ty + 1.0, a), cubic1(ty, a), cubic1(1.0 - ty, a), cubic2(2.0 - ty, a));
    for (int r = 0; r < 4; ++r)
      for (int q = 0; q < 4; ++q) {
        float px = pad_coordinate(x0 - 1.0 + float(q), p.width);
        float py = pad_coordinate(y0 - 1.0 + float(r), p.height);
        v += cy[r] * cx[q] * at(int(py), int(px));
      }
  } else {
    float px = pad_coordinate(ux, p.width), py = pad_coordinate(uy, p.height);
    if (p.mode == 1) {
      v = at(int(roundEven(py)), int(roundEven(px)));
    } else {
      float x0 = floor(px), y0 = floor(py), tx = px - x0, ty = py - y0;
      int xi = int(x0), yi = int(y0);
      v = (1.0 - ty) * ((1.0 - tx) * at(yi, xi) + tx * at(yi, xi + 1)) +
          ty * ((1.0 - tx) * at(yi + 1, xi) + tx * at(yi + 1, xi + 1));
    }
  }
  y[e] = elem_t(v);
}

#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// MaxPool / AveragePool / LpPool with ONNX semantics, one output element per invocation, 1-D to
// 3-D: padding never wins a max; the average divides by the window positions inside the input, or
// with count_include_pad by those inside the padded extent [-pad_begin, in + pad_end) (ceil_mode
// windows may reach past it); Lp is (sum |x|^P)^(1/P).
// MaxPool's Indices (WITH_INDICES): the flat index of each maximum in X (the first one wins ties),
// spatial axes row-major (STORAGE_ORDER 0) or column-major (1), as int32.
//   binding 0: X [N, C, IZ, IY, IX]; binding 1: Y [N, C, OZ, OY, OX]; binding 2: Indices (like Y).
#include "element_types.glsl"
#include "linear_index.glsl"
layout(constant_id = 0) const int MODE = 0;  // 0 max, 1 average, 2 Lp
layout(constant_id = 1) const int INCLUDE_PAD = 0;
layout(constant_id = 2) const int P = 2;
#define WINDOW_ID0 3
#include "window_geometry.glsl"
layout(constant_id = 21) const int EZ = 0;  // end pads
layout(constant_id = 22) const int EY = 0;
layout(constant_id = 23) const int EX = 0;
layout(constant_id = 24) const int WITH_INDICES = 0;
layout(constant_id = 25) const int STORAGE_ORDER = 0;

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Params {
  int total;  // N * C * OZ * OY * OX
} p;
layout(std430, binding = 0) readonly buffer BufX { elem_t x_data[]; };
layout(std430, binding = 1) writeonly buffer BufY { elem_t y_data[]; };
layout(std430, binding = 2) writeonly buffer BufI { int i_data[]; };

// Window positions of one axis inside [-pad_begin, in + pad_end).
int covered(int start, int k, int d, int pb, int in_extent, int pe) {
  int n = 0;
  for (int i = 0; i < k; ++i) {
    int q = start + i * d;
    n += (q >= -pb && q < in_extent + pe) ? 1 : 0;
  }
  return n;
}

void main() {
  int idx = int(linear_index(256));
  if (idx >= p.total) return;
  int ox = idx % OX, t = idx / OX;
  int oy = t % OY; t /= OY;
  int oz = t % OZ; t /= OZ;
  int plane = t;
  int z0 = oz * SZ - PZ, y0 = oy * SY - PY, x0 = ox * SX - PX;
  int base = plane * (IZ * IY * IX);
  float acc = MODE == 0 ? F32_LOWEST : 0.0;
  int count = 0, best = 0;
  for (int kz = 0; kz < KZ; ++kz) {
    int iz = z0 + kz * DZ;
    if (iz < 0 || iz >= IZ) continue;
    for (int ky = 0; ky < KY; ++ky) {
      int iy = y0 + ky * DY;
      if (iy < 0 || iy >= IY) continue;
      for (int kx = 0; kx < KX; ++kx) {
        int ix = x0 + kx * DX;
        if (ix < 0 || ix >= IX) continue;
        float v = float(x_data[base + (iz * IY + iy) * IX + ix]);
        if (MODE == 0) {
          if (count == 0 || v > acc) {  // strictly greater: the first maximum wins
            acc = v;
            best = STORAGE_ORDER == 0 ? (iz * IY + iy) * IX + ix : iz + (iy + ix * IY) * IZ;
          }
        }
        else if (MODE == 1) acc += v;
        else acc += P == 1 ? abs(v) : (P == 2 ? v * v : pow(abs(v), float(P)));
        ++count;
      }
    }
  }
  if (MODE == 1) {
    if (INCLUDE_PAD != 0)
      count = covered(z0, KZ, DZ, PZ, IZ, EZ) * covered(y0, KY, DY, PY, IY, EY) * covered(x0, KX, DX, PX, IX, EX);
    acc = count > 0 ? acc / float(count) : 0.0;
  } else if (MODE == 2) {
    acc = P == 1 ? acc : (P == 2 ? sqrt(acc) : pow(acc, 1.0 / float(P)));
  }
  y_data[idx] = elem_t(acc);
  if (WITH_INDICES != 0) i_data[idx] = plane * (IZ * IY * IX) + best;
}

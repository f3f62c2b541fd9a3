#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// ConvTranspose as a gather, one output element per invocation: output position o receives
// X[i] * W[k] wherever o = i * stride + k * dilation - pad_begin, i.e. for the kernel taps k whose
// (o + pad - k * dilation) is a non-negative multiple of the stride inside the input. Any groups;
// 1-D to 3-D. fp32 accumulation.
//   binding 0: X [N, C, IZ, IY, IX]; 1: W [C, MG, KZ, KY, KX]; 2: bias [M] (when HAS_BIAS);
//   binding 3: Y [N, M, OZ, OY, OX], M = MG * groups.
#include "element_types.glsl"
#include "linear_index.glsl"
layout(constant_id = 0) const int CG = 1;  // input channels per group
layout(constant_id = 1) const int MG = 1;  // output channels per group
layout(constant_id = 20) const int HAS_BIAS = 0;
#define WINDOW_ID0 2
#include "window_geometry.glsl"

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform Params {
  int total;  // N * M * OZ * OY * OX
  int C, M;
} p;
layout(std430, binding = 0) readonly buffer BufX { elem_t x_data[]; };
layout(std430, binding = 1) readonly buffer BufW { elem_t w_data[]; };
layout(std430, binding = 2) readonly buffer BufB { elem_t b_data[]; };
layout(std430, binding = 3) writeonly buffer BufY { elem_t y_data[]; };

void main() {
  int idx = int(linear_index(256));
  if (idx >= p.total) return;
  int ox = idx % OX, t = idx / OX;
  int oy = t % OY; t /= OY;
  int oz = t % OZ; t /= OZ;
  int oc = t % p.M, n = t / p.M;
  int g = oc / MG, m = oc - g * MG;
  float acc = HAS_BIAS != 0 ? float(b_data[oc]) : 0.0;
  for (int kz = 0; kz < KZ; ++kz) {
    int tz = oz + PZ - kz * DZ;
    if (tz < 0 || tz % SZ != 0 || tz / SZ >= IZ) continue;
    for (int ky = 0; ky < KY; ++ky) {
      int ty = oy + PY - ky * DY;
      if (ty < 0 || ty % SY != 0 || ty / SY >= IY) continue;
      for (int kx = 0; kx < KX; ++kx) {
        int tx = ox + PX - kx * DX;
        if (tx < 0 || tx % SX != 0 || tx / SX >= IX) continue;
        int in_at = ((tz / SZ) * IY + ty / SY) * IX + tx / SX, k_at = (kz * KY + ky) * KX + kx;
        for (int ic = 0; ic < CG; ++ic) {
          int c = g * CG + ic;
          acc += float(x_data[(n * p.C + c) * (IZ * IY * IX) + in_at]) *
                 float(w_data[(c * MG + m) * (KZ * KY * KX) + k_at]);
        }
      }
    }
  }
  y_data[idx] = elem_t(acc);
}

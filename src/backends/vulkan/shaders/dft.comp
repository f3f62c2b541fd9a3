#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// DFT and STFT by the definition, one invocation per output bin (real and imaginary part), fp32
// sums with exact integer phases ((k * t) mod n).
//   mode 0 DFT:  y[o, k, i] = sum_t x[o, t, i] e^(-+2 pi i k t / n) (1/n when inverse)
//   mode 1 STFT: y[b, f, k] = sum_t w[t] x[b, f * step + t] e^(-2 pi i k t / frame); step (and the
//                frame length, unless the window gives it) read from the device
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"

layout(std430, binding = 0) readonly buffer X { elem_t x[]; };
layout(std430, binding = 1) readonly buffer W { elem_t window_value[]; };
layout(std430, binding = 2) readonly buffer Step { int frame_step[]; };
layout(std430, binding = 3) readonly buffer Frame { int frame_length[]; };
layout(std430, binding = 4) writeonly buffer Y { elem_t y[]; };

// Matches DftPush in dft.cpp.
layout(push_constant) uniform Push {
  uint count;  // output bins (pairs)
  int mode;
  int bins;
  int inner;   // DFT: product of the axes between the transformed one and the last; STFT: 1
  int signal;  // DFT: extent of the axis; STFT: signal length
  int n;       // DFT: transform length; STFT: frame length when known (else read)
  int comps;   // 1 real, 2 complex input
  int flags;   // 1 inverse, 2 window, 4 frame length from the device
  int frames;  // STFT
} p;

void main() {
  uint e = linear_index();
  if (e >= p.count) return;
  float re = 0.0, im = 0.0;
  int k, n, start, stride, base, limit;
  if (p.mode == 0) {
    int i = int(e % uint(p.inner));
    k = int((e / uint(p.inner)) % uint(p.bins));
    int o = int(e / uint(p.inner * p.bins));
    n = p.n;
    base = (o * p.signal * p.inner + i) * p.comps;
    stride = p.inner * p.comps;
    limit = min(n, p.signal);
  } else {
    k = int(e % uint(p.bins));
    int f = int((e / uint(p.bins)) % uint(p.frames));
    int b = int(e / uint(p.bins * p.frames));
    n = (p.flags & 4) != 0 ? frame_length[0] : p.n;
    base = (b * p.signal + f * frame_step[0]) * p.comps;
    stride = p.comps;
    limit = n;
  }
  float sign = (p.flags & 1) != 0 ? 1.0 : -1.0;
  for (int t = 0; t < limit; ++t) {
    float angle = sign * 6.283185307179586 * float((k * t) % n) / float(n);
    float a = float(x[base + t * stride]);
    float b = p.comps == 2 ? float(x[base + t * stride + 1]) : 0.0;
    if ((p.flags & 2) != 0) {
      float w = float(window_value[t]);
      a *= w;
      b *= w;
    }
    float c = cos(angle), s = sin(angle);
    re += a * c - b * s;
    im += a * s + b * c;
  }
  if ((p.flags & 1) != 0) {
    re /= float(n);
    im /= float(n);
  }
  y[2u * e] = elem_t(re);
  y[2u * e + 1u] = elem_t(im);
}

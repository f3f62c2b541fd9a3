#version 450
// NO_DEFAULT_VARIANT
// VARIANT f -DTX=0
// VARIANT h -DTX=1
// LRN over channels of [N, C, ...]: y = x / (bias + alpha / size * sum of x^2 over the window
// [c - before, c + after])^beta, fp32 math.
#include "more_common.glsl"

layout(std430, binding = 0) readonly buffer X { TXS x[]; };
layout(std430, binding = 1) writeonly buffer Y { TXS y[]; };

layout(push_constant) uniform Push {
  uint count;
  int channels;
  uint spatial;
  int before;
  int after;
  float alpha_over_size;
  float beta;
  float bias;
} p;

void main() {
  uint e = linear_index();
  if (e >= p.count) return;
  uint i = e % p.spatial;
  int c = int((e / p.spatial) % uint(p.channels));
  uint n = e / (p.spatial * uint(p.channels));
  float sum = 0.0;
  for (int cc = max(0, c - p.before); cc <= min(p.channels - 1, c + p.after); ++cc) {
    float v = float(x[(n * uint(p.channels) + uint(cc)) * p.spatial + i]);
    sum += v * v;
  }
  y[e] = TXS(float(x[e]) / pow(p.bias + p.alpha_over_size * sum, p.beta));
}

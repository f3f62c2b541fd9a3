#version 450
// NO_DEFAULT_VARIANT
// VARIANT f -DTX=0
// VARIANT h -DTX=1
// Hardmax: one invocation per (outer, inner) line along the axis; 1 at the first maximum, else 0.
#include "more_common.glsl"

layout(std430, binding = 0) readonly buffer X { TXS x[]; };
layout(std430, binding = 1) writeonly buffer Y { TXS y[]; };

layout(push_constant) uniform Push {
  uint count;  // outer * inner
  uint n;      // extent of the axis
  uint inner;
} p;

void main() {
  uint k = linear_index();
  if (k >= p.count) return;
  uint base = (k / p.inner) * p.n * p.inner + k % p.inner;
  float m = uintBitsToFloat(0xFF800000u);
  uint arg = 0u;
  for (uint j = 0u; j < p.n; ++j) {
    float v = float(x[base + j * p.inner]);
    if (v > m) {
      m = v;
      arg = j;
    }
  }
  for (uint j = 0u; j < p.n; ++j) y[base + j * p.inner] = TXS(j == arg ? 1.0 : 0.0);
}

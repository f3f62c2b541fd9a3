#version 450
// NO_DEFAULT_VARIANT
// VARIANT f -DTX=0
// VARIANT h -DTX=1
// Sums the (loss, weight) pairs of loss_nll.comp in one workgroup: y = sum(loss) (sum) or
// sum(loss) / sum(weight) (mean).
#include "more_common.glsl"

layout(std430, binding = 0) readonly buffer S { float partial[]; };
layout(std430, binding = 1) writeonly buffer Y { TXS y[]; };

layout(push_constant) uniform Push {
  uint count;
  int mean;
} p;

shared float loss_sum[256];
shared float weight_sum[256];

void main() {
  uint t = gl_LocalInvocationID.x;
  float l = 0.0, w = 0.0;
  for (uint k = t; k < p.count; k += 256u) {
    l += partial[2 * k];
    w += partial[2 * k + 1];
  }
  loss_sum[t] = l;
  weight_sum[t] = w;
  barrier();
  for (uint half_size = 128u; half_size > 0u; half_size >>= 1) {
    if (t < half_size) {
      loss_sum[t] += loss_sum[t + half_size];
      weight_sum[t] += weight_sum[t + half_size];
    }
    barrier();
  }
  if (t == 0u) y[0] = TXS(p.mean != 0 ? loss_sum[0] / weight_sum[0] : loss_sum[0]);
}

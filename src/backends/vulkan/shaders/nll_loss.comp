#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// NegativeLogLikelihoodLoss (also the second half of SoftmaxCrossEntropyLoss). Input [N, C, D...]
// log-probabilities seen as [N, C, inner]; target [N, inner] (int32).
//   stage 0 (one invocation per target): loss = -input[n, t, s] * weight[t] (0 and weight 0 for
//     ignore_index; labels outside [0, C) are clamped); reduction none writes it to the output,
//     else the loss and the weight go to the scratch (fp32: losses, then weights).
//   stage 1 (one workgroup): sums both in shared memory and writes the sum, or sum / weight sum
//     (mean).
#include "element_types.glsl"
#include "tensor_index.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params {
  int count, classes, inner, stage;
  int reduction;     // 0 none, 1 sum, 2 mean
  int has_weight, has_ignore, ignore_index;
} p;
layout(std430, binding = 0) readonly buffer Src { elem_t src[]; };
layout(std430, binding = 1) readonly buffer Target { int target[]; };
layout(std430, binding = 2) readonly buffer Weight { elem_t weight[]; };
layout(std430, binding = 3) writeonly buffer Dst { elem_t dst[]; };
layout(std430, binding = 4) buffer Scratch { float scratch[]; };

shared float part_loss[256];
shared float part_weight[256];

void main() {
  if (p.stage == 0) {
    int e = global_index();
    if (e >= p.count) return;
    int t = target[e];
    float loss = 0.0, w = 0.0;
    if (p.has_ignore == 0 || t != p.ignore_index) {
      t = clamp(t, 0, p.classes - 1);
      w = p.has_weight != 0 ? float(weight[t]) : 1.0;
      int n = e / p.inner, s = e % p.inner;
      loss = -float(src[(n * p.classes + t) * p.inner + s]) * w;
    }
    if (p.reduction == 0) {
      dst[e] = elem_t(loss);
    } else {
      scratch[e] = loss;
      scratch[p.count + e] = w;
    }
    return;
  }
  int l = int(gl_LocalInvocationID.x);
  float sum = 0.0, weights = 0.0;
  for (int e = l; e < p.count; e += 256) {
    sum += scratch[e];
    weights += scratch[p.count + e];
  }
  part_loss[l] = sum;
  part_weight[l] = weights;
  barrier();
  for (int s = 128; s > 0; s >>= 1) {
    if (l < s) {
      part_loss[l] += part_loss[l + s];
      part_weight[l] += part_weight[l + s];
    }
    barrier();
  }
  if (l == 0) dst[0] = elem_t(p.reduction == 1 ? part_loss[0] : part_loss[0] / part_weight[0]);
}

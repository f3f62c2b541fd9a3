#version 450
// NO_DEFAULT_VARIANT
// VARIANT f -DTX=0
// VARIANT h -DTX=1
// NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss, one invocation per target position k of
// [N, d1..dk] (input [N, C, d1..dk], `inner` = d1*..*dk). SCE first takes log_softmax over C (and
// writes it to the log_prob output when asked). The loss -w[label] * logp[label] goes to the output
// (reduction none) or, with its weight, to the f32 scratch pairs loss_reduce.comp sums.
#include "more_common.glsl"

layout(std430, binding = 0) readonly buffer X { TXS x[]; };
layout(std430, binding = 1) readonly buffer T { int target[]; };
layout(std430, binding = 2) readonly buffer W { TXS weight[]; };
layout(std430, binding = 3) writeonly buffer Y { TXS y[]; };
layout(std430, binding = 4) writeonly buffer S { float partial[]; };
layout(std430, binding = 5) writeonly buffer L { TXS log_prob[]; };

// Matches LossPush in loss.cpp.
layout(push_constant) uniform Push {
  uint count;  // N * inner
  uint classes;
  uint inner;
  int flags;   // 1 weights, 2 ignore_index, 4 softmax first, 8 reduce (write partial), 16 write log_prob
  int ignore_index;
} p;

void main() {
  uint k = linear_index();
  if (k >= p.count) return;
  uint n = k / p.inner, d = k % p.inner;
  uint base = n * p.classes * p.inner + d;
  float shift = 0.0;  // SCE: max + log(sum(exp(x - max)))
  if ((p.flags & 4) != 0) {
    float m = uintBitsToFloat(0xFF800000u);
    for (uint c = 0; c < p.classes; ++c) m = max(m, float(x[base + c * p.inner]));
    float s = 0.0;
    for (uint c = 0; c < p.classes; ++c) s += exp(float(x[base + c * p.inner]) - m);
    shift = m + log(s);
    if ((p.flags & 16) != 0)
      for (uint c = 0; c < p.classes; ++c) {
        float v = float(x[base + c * p.inner]);
        log_prob[base + c * p.inner] = TXS(v - m - log(s));
      }
  }
  int label = target[k];
  float loss = 0.0, w = 0.0;
  if ((p.flags & 2) == 0 || label != p.ignore_index) {
    if (label < 0 || label >= int(p.classes)) {
      loss = nan_value();  // out-of-range target: undefined in ONNX, made visible
    } else {
      w = (p.flags & 1) != 0 ? float(weight[label]) : 1.0;
      loss = -(float(x[base + uint(label) * p.inner]) - shift) * w;
    }
  }
  if ((p.flags & 8) != 0) {
    partial[2 * k] = loss;
    partial[2 * k + 1] = w;
  } else {
    y[k] = TXS(loss);
  }
}

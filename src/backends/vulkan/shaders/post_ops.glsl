// vx.FusedConv's post-ops (ops/post_ops.h), applied in order after the convolution's ReLU: up to
// four steps as specialization constants from id POST_OPS_ID0 on (the count, four kinds, four
// alphas, four betas; kinds as PostOpKind: 0 linear a x + b, 1 clip to [a, b], 2 x > 0 ? x : a x,
// 3 hard_swish, 4 logistic, 5 tanh, 6 log, 7 exp, 8 round to nearest even), so that an exporter's
// activation chain after a convolution runs in its epilogue instead of one dispatch a step
// (vx.Excite's gate and vx.ElementwiseChain apply them too).
#include "eltwise_math.glsl"

layout(constant_id = POST_OPS_ID0 + 0) const int POST_COUNT = 0;
layout(constant_id = POST_OPS_ID0 + 1) const int POST_KIND0 = 0;
layout(constant_id = POST_OPS_ID0 + 2) const int POST_KIND1 = 0;
layout(constant_id = POST_OPS_ID0 + 3) const int POST_KIND2 = 0;
layout(constant_id = POST_OPS_ID0 + 4) const int POST_KIND3 = 0;
layout(constant_id = POST_OPS_ID0 + 5) const float POST_A0 = 0.0;
layout(constant_id = POST_OPS_ID0 + 6) const float POST_A1 = 0.0;
layout(constant_id = POST_OPS_ID0 + 7) const float POST_A2 = 0.0;
layout(constant_id = POST_OPS_ID0 + 8) const float POST_A3 = 0.0;
layout(constant_id = POST_OPS_ID0 + 9) const float POST_B0 = 0.0;
layout(constant_id = POST_OPS_ID0 + 10) const float POST_B1 = 0.0;
layout(constant_id = POST_OPS_ID0 + 11) const float POST_B2 = 0.0;
layout(constant_id = POST_OPS_ID0 + 12) const float POST_B3 = 0.0;

float post_op(float x, int kind, float a, float b) {
  if (kind == 0) return a * x + b;
  if (kind == 1) return min(max(x, a), b);
  if (kind == 2) return x > 0.0 ? x : a * x;
  if (kind == 3) return x * min(max(x / 6.0 + 0.5, 0.0), 1.0);
  if (kind == 4) return sigmoid_stable(x);
  if (kind == 5) return tanh_stable(x);
  if (kind == 6) return log(x);
  if (kind == 7) return exp(x);
  return roundEven(x);
}

float apply_post_ops(float v) {
  if (POST_COUNT > 0) v = post_op(v, POST_KIND0, POST_A0, POST_B0);
  if (POST_COUNT > 1) v = post_op(v, POST_KIND1, POST_A1, POST_B1);
  if (POST_COUNT > 2) v = post_op(v, POST_KIND2, POST_A2, POST_B2);
  if (POST_COUNT > 3) v = post_op(v, POST_KIND3, POST_A3, POST_B3);
  return v;
}

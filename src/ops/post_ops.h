// vx.FusedConv's post-ops (ops/fused_ops.h; vx.Excite and vx.ElementwiseChain carry them too):
// elementwise steps applied in order to the node's output after its ReLU, so that a convolution and
// the activation chain an exporter wrote after it (HardSwish, HardSigmoid, a scalar scale and
// shift, ...) run as one oneDNN primitive. Stored as
// three parallel attributes: post_ops (names), post_alpha, post_beta (floats).
//   linear      alpha * x + beta
//   clip        min(max(x, alpha), beta)
//   relu        x > 0 ? x : alpha * x            (alpha 0: ReLU; LeakyRelu otherwise)
//   hard_swish  x * min(max(x / 6 + 1/2, 0), 1)
//   logistic    1 / (1 + exp(-x))
//   tanh        tanh(x)
//   log         log(x)
//   exp         exp(x)
//   round       x rounded to the nearest integer, ties to even (a fake quantisation's step)
// These are the steps oneDNN 2.6 has as eltwise post-ops with the same meaning; HardSigmoid is
// linear then clip(0, 1).
#pragma once
#include <string>
#include <vector>

#include "core/attribute.h"

namespace vx {

enum class PostOpKind { linear, clip, relu, hard_swish, logistic, tanh, log, exp, round };

struct PostOp {
  PostOpKind kind = PostOpKind::linear;
  float alpha = 0.0f, beta = 0.0f;
};

// The node's post-ops (empty when it has none); InvalidArgument naming `what` for an unknown name
// or lists of different lengths.
std::vector<PostOp> read_post_ops(const Attributes& attrs, const std::string& what);
void write_post_ops(Attributes& attrs, const std::vector<PostOp>& ops);

// The reference meaning of one step, in float.
float apply_post_op(const PostOp& op, float x);

}  // namespace vx

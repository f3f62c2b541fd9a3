// The oneDNN eltwise algorithm each step of a convolution's post-op chain (ops/post_ops.h) runs as
// on the CPU. oneDNN 2.6 (Debian 12's) keeps one injector per algorithm in a chain, so every later
// step of an algorithm is applied with the first one's alpha and beta (measured: linear(2) ->
// clip -> linear(3) computed 4 x). Steps with other parameters must take another algorithm of the
// same meaning: a scale without shift (linear(a, 0)) also runs as pow(a, 1), a clip also as the
// older clip. Shared by the CPU pipeline (passes/fuse_conv_post_ops.h grows only chains that
// spread) and the oneDNN convolution (which declines the others).
#pragma once
#include <optional>
#include <vector>

#include "ops/post_ops.h"

namespace vx {

enum class EltwiseAlgorithm { linear, pow, clip_v2, clip, relu, hard_swish, logistic, tanh, log, exp, round };

// One algorithm per step of `ops`, after the convolution's ReLU when `relu` (oneDNN's relu with
// alpha 0), none shared by two steps of different parameters; nullopt when the chain has no such
// assignment.
std::optional<std::vector<EltwiseAlgorithm>> eltwise_post_op_algorithms(bool relu, const std::vector<PostOp>& ops);

}  // namespace vx

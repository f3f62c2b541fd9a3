// The elementwise steps (ops/post_ops.h) that a plain ONNX node applies to one of its inputs, for
// the passes that move chains of them into another node (fuse_conv_post_ops: a convolution's
// epilogue; fuse_elementwise_chains: one Vulkan dispatch): Relu, LeakyRelu, HardSigmoid, HardSwish,
// Sigmoid, Tanh, Log, Exp, Neg, Clip with constant bounds, Mul / Div / Add / Sub by a one-element
// f32 constant, Max / Min with one (a clip: tf2onnx writes Max(x, c)), a Cast of a float to float
// (no step) and vx.FakeQuantize (a scale-and-shift, a rounding, a clip and the scale back: the
// quotient x / s becomes x * (1 / s), which may move a value at a rounding tie by one step).
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "core/graph.h"
#include "ops/post_ops.h"

namespace vx {

// The steps `n` applies to `x` (a value of rank `rank`: a constant operand must not broadcast it
// to more axes), or nothing when `n` is not such a unary map of x.
std::optional<std::vector<PostOp>> post_op_steps(const Graph& g, const Node& n, ValueId x, size_t rank);

// Appends `step`, merging a scale-and-shift into a preceding one.
void append_post_op(std::vector<PostOp>& ops, const PostOp& step);

}  // namespace vx

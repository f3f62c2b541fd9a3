// Chains of elementwise steps -> one vx.ElementwiseChain (ops/fused_ops.h) each, for Vulkan, where
// every node is a dispatch of ~5 us however small (a mel-spectrogram's Clip, Log, Mul, Div, Sub:
// one instead of five). A chain: two or more nodes that passes/post_op_steps.h reads as steps, each
// applied to the one before it (which nothing else reads), starting at any float value of known
// rank; consecutive scale-and-shifts merge; a chain stops before it would pass `max_steps`. Runs
// after the fusions that take such steps into a convolution, a MatMul or a fused op, so it only
// gets what they left.
#pragma once
#include <cstddef>

#include "core/graph.h"

namespace vx {

Graph fuse_elementwise_chains(Graph graph, size_t max_steps);

}  // namespace vx

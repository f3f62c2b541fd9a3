// Conv + elementwise chain -> one vx.FusedConv with post-ops (ops/post_ops.h): the unary steps that
// alone read a vx.FusedConv's (or vx.FusedConvResidual's) output, one after another (the nodes
// passes/post_op_steps.h names) move into the conv's post_ops, consecutive scale-and-shifts merged
// into one. Convolutions with a fused 2x2 pool are left alone (the steps would run before
// the pool). oneDNN runs the steps inside the convolution on the CPU, the conv kernels' epilogue
// on Vulkan (shaders/post_ops.glsl, at most four steps).
#pragma once
#include <cstddef>
#include <limits>

#include "core/graph.h"

namespace vx {

// `max_steps`: the most post-ops one node may get (a chain stops growing before it passes them).
// `onednn_eltwise`: grow only chains whose steps oneDNN can run (ops/eltwise_post_op_algorithms.h).
Graph fuse_conv_post_ops(Graph graph, size_t max_steps = std::numeric_limits<size_t>::max(),
                         bool onednn_eltwise = false);

}  // namespace vx

// A vx.Attention whose output (through Reshapes) is A of a vx.FusedMatMul -> vx.AttentionProjection
// (ops/fused_ops.h), so that on Vulkan's tensor cores the attention's workgroups compute the
// projection's partial sums, a head a split, and the product's reduce pass adds them: one dispatch
// fewer a layer (a transformer's attention and its out-projection). Matched: the attention's output
// read only by a chain of Reshapes read only by each other, the last one read only by a
// vx.FusedMatMul as A (activation none) of a constant W [K, N]; only shapes the tensor-core path
// takes (Sk, D, Dv and N multiples of 16, K a multiple of Dv), so that elsewhere nothing changes but
// the node (its plan runs the two nodes' own kernels in a row). Runs last among the Vulkan fusions,
// after fuse_matmul_layer_norm (Vulkan path only).
#pragma once
#include "core/graph.h"

namespace vx {

Graph fuse_attention_projection(Graph graph);

}  // namespace vx

// Scaled dot-product attention -> vx.Attention (ops/fused_ops.h). Matched:
//   S = MatMul(Q, Kt); S = S * c  or  S / c  (c a constant scalar; absent: scale 1);
//   S = S + Mask (optional, a float tensor from anywhere); P = Softmax(S, last axis); Y = MatMul(P, V)
// When Kt is a Transpose that swaps only the two innermost axes (and is read only here), its input
// becomes K; otherwise Kt itself is passed with k_transposed = 1. Q, Kt, V must not be known to be
// vectors, and every intermediate must be read only inside the pattern.
#pragma once
#include "core/graph.h"

namespace vx {

Graph fuse_attention(Graph graph);

}  // namespace vx

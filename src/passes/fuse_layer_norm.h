// Layer normalisation over the last axis -> vx.LayerNorm (ops/fused_ops.h). Matched:
//   the decomposed form  mean = ReduceMean(x, axes=[-1]); d = x - mean; var = ReduceMean(Pow(d, 2));
//                        y = d / Sqrt(var + eps) [* gamma] [+ beta]
//     (ReduceMean's axes as attribute or constant input, keepdims 1; Pow(d, 2) also as Mul(d, d);
//     gamma and beta constant vectors of the last axis' extent), and
//   LayerNormalization with axis = -1 (or rank - 1) and only its first output used.
// Every intermediate must be read only inside the pattern.
#pragma once
#include "core/graph.h"

namespace vx {

Graph fuse_layer_norm(Graph graph);

}  // namespace vx

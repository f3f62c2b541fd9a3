// Constant folding: a node whose inputs are all constants (initializers, Constant nodes, or values
// folded before it) is evaluated once, here, with the CPU reference kernel (ops/host_kernels.h);
// its outputs become constants and the node goes. Typical wins: shape arithmetic of exported models (Shape -> Gather
// -> Concat -> Reshape once the shape is constant), weight transposes and casts.
//
// Not folded: ops without a reference kernel, random generators, nodes of other domains, nodes
// whose kernel fails (left for run time to report), and outputs over `max_elements` elements (so a
// constant Expand cannot bloat the model).
#pragma once
#include <cstdint>

#include "core/graph.h"

namespace vx {

Graph fold_constants(Graph graph, int64_t max_elements = int64_t(1) << 24);

}  // namespace vx

// Shape and Size of values whose shapes are known become constants, and what they feed folds on:
// exported models compute Reshape targets and Slice bounds from Shape at run time (PyTorch's
// attention: Shape -> Gather -> Div -> Mul -> Slice), which hides every shape after them from the
// fusions. The constant folding pass alone folds only nodes whose inputs are constants.
#pragma once
#include <vector>

#include "core/graph.h"

namespace vx {

// One step: the Shape / Size nodes whose input `known` marks (shape_inference.h) become constants
// taken from the graph's value shapes. Returns whether any did.
bool fold_shape_queries(Graph& graph, const std::vector<bool>& known);

// Before the inputs are bound: where every graph input declares a full shape (binding refuses any
// other), infers shapes on a copy and folds the queries and the constants after them until nothing
// changes. A graph input declared [] may be bound to any rank, so such a graph is left as it is.
Graph fold_declared_shapes(Graph graph);

}  // namespace vx

// Shape inference: fills Value::shape and Value::dtype of every node output from its inputs'
// shapes, through the ops' shape functions (ops/shape_fn.h). An op without a shape function, or a
// shape that depends on runtime data, leaves the output as it was (unknown) rather than failing:
// the planner then lets the kernel allocate that output at run time.
#pragma once
#include <vector>

#include "core/graph.h"

namespace vx {

// Runs the shape functions over the nodes in order. When `inferred` is given it is resized to the
// number of values and marks each value whose shape is now known: produced by a node whose shape
// function ran, or produced by no node (graph inputs, constants) with a fully known shape.
void infer_shapes(Graph& graph, std::vector<bool>* inferred = nullptr);

}  // namespace vx

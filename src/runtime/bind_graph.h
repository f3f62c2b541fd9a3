// Binds a graph to one set of input shapes for the scheduler: shapes inferred for every value, and
// what became constant with them folded (Shape and Size of bound values, then the arithmetic on
// them), so that backends see static shapes wherever the inputs decide them.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"
#include "runtime/backend.h"

namespace vx::runtime {

// Runs `graph` on `inputs` (graph input order) on the host and returns its outputs: how shapes that
// shape inference cannot tell (ops without a shape function) are observed. It may throw
// Unsupported (an op the host lacks): those shapes then stay unknown.
using ObserveFn = std::function<std::vector<Tensor>(const Graph& graph, const std::vector<Tensor>& inputs)>;

// `input_shapes`: graph input name -> shape (inputs with fully declared shapes may be omitted;
// InvalidArgument names a missing or contradicting one). `sample_inputs` and `observe` (both
// optional): when some shapes stay unknown, the graph is run once on the samples to observe them;
// a later run that computes other shapes throws ShapeChanged (scheduled_executable.h).
BoundGraph bind_graph(const Graph& graph, const std::map<std::string, Shape>& input_shapes,
                      const std::vector<Tensor>* sample_inputs = nullptr, const ObserveFn& observe = {});

}  // namespace vx::runtime

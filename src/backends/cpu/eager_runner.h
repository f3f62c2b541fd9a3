// Runs a Graph node by node on the CPU kernel registry, allocating every output: the simplest way to
// execute an imported ONNX model (no planning, no arena). The conformance suite and `volvox run`
// use it; the planned executor will replace it for real workloads.
#pragma once
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"

namespace vx {

// `inputs` in the order of graph.inputs. Checks their count, dtypes and shapes against the graph
// (known extents must match; one symbolic name must bind to one extent) and throws InvalidArgument
// naming the input otherwise. Returns the graph's outputs in order. Kernel errors are rethrown
// with the node's name and op prepended.
std::vector<Tensor> run_graph_eager(const Graph& graph, const std::vector<Tensor>& inputs);

}  // namespace vx

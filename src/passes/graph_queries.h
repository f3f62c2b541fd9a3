// Small questions passes ask about a graph: who reads a value, is it a graph output, what constant
// does an input hold.
#pragma once
#include <vector>

#include "core/graph.h"

namespace vx {

bool is_graph_output(const Graph& graph, ValueId id);
// True when `id` is read by exactly one node and is not a graph output: the producer and that
// consumer can be fused without anyone else seeing the intermediate value.
bool has_single_private_consumer(const Graph& graph, const std::vector<std::vector<int>>& consumers, ValueId id);
// True when the Resize node is a 2x nearest upsample of the two innermost axes of a rank-4 tensor
// with constant scales or sizes, and a coordinate mode that maps output pixel 2i and 2i+1 to input i.
bool is_nearest_upsample_2x(const Node& resize, const Graph& graph);
// Removes the nodes whose index is marked, keeping the order of the rest.
void erase_marked_nodes(Graph& graph, const std::vector<bool>& marked);

}  // namespace vx

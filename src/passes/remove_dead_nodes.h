// Dead-node removal: drops nodes none of whose outputs is read by a later node or is a graph
// output, repeatedly, so whole dead branches go. Values stay (ids are stable); they are just unused.
#pragma once
#include "core/graph.h"

namespace vx {

Graph remove_dead_nodes(Graph graph);

}  // namespace vx

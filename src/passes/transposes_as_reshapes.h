// A Transpose that moves only axes of extent 1 keeps every element where it was: it becomes a
// Reshape, which the backends run as an alias of its input instead of a copy. PyTorch's attention
// exports [1, seq, d] <-> [seq, 1, d] twice a layer; once they are Reshapes the products and their
// residual Adds around them can fuse.
#pragma once
#include "core/graph.h"

namespace vx {

Graph transposes_as_reshapes(Graph graph);

}  // namespace vx

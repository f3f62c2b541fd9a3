// Slices of one float tensor along one axis, with step 1 and constant bounds, that together cover
// the axis in order (an exported packed QKV projection cut into Q, K and V) become one Split: on Vulkan
// one dispatch instead of one a Slice (a dependent dispatch costs a GPU ~5 us however small).
#pragma once
#include "core/graph.h"

namespace vx {

Graph merge_sibling_slices(Graph graph);

}  // namespace vx

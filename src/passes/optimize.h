// The inference pipeline of graph passes, in order: conv+bias+relu fusion, upsample+concat+conv
// fusion, conv+relu+pool fusion, dead-node removal. Each pass is also callable alone.
#pragma once
#include "core/graph.h"

namespace vx {

void optimize_for_inference(Graph& graph);

}  // namespace vx

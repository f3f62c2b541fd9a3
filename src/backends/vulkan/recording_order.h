// The order in which the Vulkan executor records a segment's nodes: the graph's, except that the
// first node not yet ordered takes along those of the next `window` nodes that read nothing made by
// a node not yet ordered (nor by itself or the others it takes). Independent nodes (a detector's
// pyramid branches, SSDLite's heads, parallel ASPP branches) then follow one another and their
// dispatches run without a barrier between them (dispatch_hazards.h); a chain keeps its order. The
// window bounds how far a node moves ahead, and so how much longer its outputs live (PaddleOCR's
// detector: 66 barriers for its 89 dispatches, 77 in graph order; an arena of 17.4 MiB, 15.6 before).
#pragma once
#include <cstddef>
#include <vector>

#include "core/graph.h"

namespace vx::vk {

constexpr size_t kRecordingWindow = 16;

// `nodes`: a segment's node indices into g.nodes, in a topological order.
std::vector<size_t> recording_order(const Graph& g, const std::vector<size_t>& nodes, size_t window = kRecordingWindow);

}  // namespace vx::vk

// The order in which the Vulkan executor records a segment's nodes: the graph's, except that the
// first node not yet ordered takes along those of the next `window` nodes that read nothing made by
// a node not yet ordered (nor by itself or the others it takes). Independent nodes (a detector's
// pyramid branches, SSDLite's heads, parallel ASPP branches) then follow one another and their
// dispatches run without a barrier between them (dispatch_hazards.h); a chain keeps its order. The
// window bounds how far a node moves ahead, and so how much longer its outputs live (PaddleOCR's
// detector: 66 barriers for its 89 dispatches, 77 in graph order; an arena of 17.4 MiB, 15.6 before).
//
// The dispatches of such independent nodes are interleaved as well (interleaved_dispatches, where
// segment_executable.cpp placed their memory as one group): each node's first dispatch, then each
// one's second, and so on, so that chains of dependent dispatches (ResNet's first convolutions of a
// block beside its downsample convolution: im2col passes, GEMMs, split-K reduce passes) share their
// barriers instead of waiting for one another.
#pragma once
#include <cstddef>
#include <vector>

#include "core/graph.h"

namespace vx::vk {

constexpr size_t kRecordingWindow = 16;

// `nodes`: a segment's node indices into g.nodes, in a topological order.
std::vector<size_t> recording_order(const Graph& g, const std::vector<size_t>& nodes, size_t window = kRecordingWindow);

// One dispatch of a group: the node's place in the group and the dispatch's among the node's.
struct DispatchRef {
  size_t node = 0, dispatch = 0;
  bool operator==(const DispatchRef&) const = default;
};

// The dispatches of a group of independent nodes, node k holding dispatch_counts[k], in the order
// to record them: round by round, one dispatch of every node that has one left.
std::vector<DispatchRef> interleaved_dispatches(const std::vector<size_t>& dispatch_counts);

}  // namespace vx::vk

// Fusion: Resize (2x nearest) -> Concat(axis 1, the upsampled value first, then one skip value) ->
// vx.FusedConv becomes one vx.FusedConv with upsample_concat = 1 reading X_low and X_skip directly,
// so the 4x larger upsampled tensor and the concatenation are never stored. Only when the
// upsampled and concatenated values are read by nothing else and are not graph outputs.
#pragma once
#include "core/graph.h"

namespace vx {

Graph fuse_upsample_concat_conv(Graph graph);

}  // namespace vx

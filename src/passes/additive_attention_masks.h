// Attention masked by selection, as exporters write a masked_fill before the Softmax:
//   Softmax(Where(keep, S, fill))  or  Softmax(Where(drop, fill, S))
// with `fill` a constant scalar of at most -1e30 (-inf, a float's lowest), becomes the additive form
// fuse_attention matches: Softmax(S + Where(keep, 0, fill)). The new Where reads only the
// condition, so it is the size of the mask, not of the scores. Equal after the Softmax: S + fill is
// fill itself (to float precision) for any score below 1e31 in magnitude.
#pragma once
#include "core/graph.h"

namespace vx {

Graph additive_attention_masks(Graph graph);

}  // namespace vx

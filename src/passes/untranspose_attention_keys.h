#pragma once
#include "core/graph.h"

namespace vx {

// vx.Attention with k_transposed = 1 whose K comes from a Transpose that also swaps the last two
// axes (exporters write k.transpose(-2, -1) after splitting heads: perm 0,2,3,1 of [B, S, H, D]):
// the Transpose keeps the innermost axis instead (perm 0,2,1,3) and the attention reads K with
// k_transposed = 0. Same result; the copy moves contiguous rows and the kernel's K loads are
// vectorised. Only where the Transpose's output has no other reader.
// For the Vulkan path (optimize_for_vulkan), before fold_attention_transposes.
Graph untranspose_attention_keys(Graph graph);

}  // namespace vx

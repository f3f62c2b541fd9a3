// Folds the head Transposes around vx.Attention into the op (ops/fused_ops.h): a Transpose that
// swaps the two axes before the innermost (perm (0,2,1,3) on [B, S, H, D]) feeding Q, K and V
// becomes qkv_layout = "bshd", and one applied to the output becomes out_layout = "bshd", so the
// attention kernel reads and writes the heads-interleaved layout and the Transposes (one dispatch
// each on Vulkan, a copy on the CPU) disappear. Unit axes aside is enough: [S, H, D] -> [H, S, D] ->
// [1, H, S, D] folds too, the Transpose becoming a Reshape. Only Transposes read by nothing else are
// folded; Q, K and V fold together (one layout for the three) and only when K is not transposed (run
// after untranspose_attention_keys). Both pipelines (optimize_for_vulkan, optimize_onnx).
#pragma once
#include "core/graph.h"

namespace vx {

Graph fold_attention_transposes(Graph graph);

}  // namespace vx

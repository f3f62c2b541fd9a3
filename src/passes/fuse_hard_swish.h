// HardSwish patterns -> ONNX HardSwish (y = x * max(0, min(1, x / 6 + 1 / 2))), as exporters that
// predate opset 14 (PaddlePaddle, older PyTorch) write it. Matched, constants within 1e-6:
//   x * Clip(x + 3, 0, 6) / 6        (the product in either order; / 6 also as * (1 / 6))
//   x * (Clip(x + 3, 0, 6) / 6)
//   x * HardSigmoid(x, alpha = 1/6, beta = 1/2)
// Clip's bounds as inputs (opset 11+) or attributes. Every intermediate must be read only inside the
// pattern. One node instead of four lets the CPU fold it into a convolution as a post-op.
#pragma once
#include "core/graph.h"

namespace vx {

Graph fuse_hard_swish(Graph graph);

}  // namespace vx

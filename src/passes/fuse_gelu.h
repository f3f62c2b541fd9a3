// Gelu patterns -> vx.Gelu (ops/fused_ops.h). Matched, with constants within 0.1%:
//   erf form:   0.5 * x * (1 + Erf(x / sqrt 2))      (x / sqrt 2 also as x * (1 / sqrt 2))
//   tanh form:  0.5 * x * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * Pow(x, 3))))
// where the final products may associate in any order (x * a * 0.5, x * (a * 0.5), (x * 0.5) * a).
// Every intermediate must be read only inside the pattern. ONNX's own Gelu (opset 20) is left as is.
#pragma once
#include "core/graph.h"

namespace vx {

Graph fuse_gelu(Graph graph);

}  // namespace vx

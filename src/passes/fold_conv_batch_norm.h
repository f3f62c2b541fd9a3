// Conv + BatchNormalization folding: an inference-mode BatchNormalization that alone reads a Conv's
// output is folded into the Conv's weights and bias (W'[m] = W[m] * s, b'[m] = (b[m] - mean) * s +
// beta with s = scale / sqrt(var + epsilon)), and the BatchNormalization node goes. Needs f32
// constant weights, bias (or none) and BN parameters; anything else is left as it is.
#pragma once
#include "core/graph.h"

namespace vx {

Graph fold_conv_batch_norm(Graph graph);

}  // namespace vx

// Folds a per-output-channel affine map that follows a Conv or ConvTranspose into its weights and
// bias: y = conv(x) * s + t with W'[m] = W[m] * s[m] and b'[m] = b[m] * s[m] + t[m]. The affine
// map is an inference-mode BatchNormalization (s = scale / sqrt(var + epsilon), t = beta - mean * s)
// or a Mul, Div, Add or Sub by a constant that varies at most along the channel axis (exporters
// write "learnable affine blocks" and bias Adds after ConvTranspose this way). Folds repeatedly, so a
// chain Conv -> Mul -> Add -> BatchNormalization becomes one Conv. Needs f32 constant weights, bias
// (or none) and affine parameters, and the conv's output read by the affine node alone; anything
// else is left as it is.
#pragma once
#include "core/graph.h"

namespace vx {

Graph fold_conv_affine(Graph graph);

}  // namespace vx

// QuantizeLinear -> DequantizeLinear pairs with one scale and zero point (an activation's fake
// quantisation in a QDQ model, as PyTorch and ONNX Runtime's quantiser write them) -> one
// vx.FakeQuantize (ops/fused_ops.h): the integer tensor between them is never stored, and the
// CPU keeps the value in its convolutions' layout across it, as it does across a Relu. Matched:
// the scale a float32 constant of one value, the zero point absent or a uint8 / int8 constant of
// one value, the same in both nodes; the Q's output read by the DQ alone. CPU pipeline only.
#pragma once
#include "core/graph.h"

namespace vx {

Graph fuse_fake_quantize(Graph graph);

}  // namespace vx

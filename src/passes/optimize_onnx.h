// The pipeline for imported ONNX models, in order: dead-node removal, constant folding, per-tensor
// QuantizeLinear -> DequantizeLinear pairs -> vx.FakeQuantize, dilated Conv kernels cropped to the
// taps that reach the input, Conv+BatchNormalization folding,
// Conv(+Relu) -> vx.FusedConv (which the oneDNN kernel runs; passes/fuse_conv_bias_relu.h), Conv +
// residual Add (+ Relu), the transformer fusions (Gelu, LayerNorm, attention, then MatMul + bias +
// activation; passes/fuse_*.h), DequantizeLinear -> MatMul as int8 weights, optionally weight-only
// int8 quantisation, dead-node removal. (The U-Net keeps optimize_for_inference.)
#pragma once
#include "core/graph.h"

namespace vx {

struct OnnxOptimizeOptions {
  bool fuse_transformer = true;  // fuse_gelu, fuse_layer_norm, fuse_attention, fuse_matmul_bias_act
  bool int8_weights = false;     // quantize_weights_int8: lossy, opt-in
};

void optimize_onnx(Graph& graph);
void optimize_onnx(Graph& graph, const OnnxOptimizeOptions& options);

}  // namespace vx

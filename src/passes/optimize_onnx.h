// The pipeline for imported ONNX models, in order: dead-node removal, constant folding,
// Conv+BatchNormalization folding, Conv(+Relu) -> vx.FusedConv (which the oneDNN kernel runs;
// passes/fuse_conv_bias_relu.h), dead-node removal. (The U-Net keeps optimize_for_inference.)
#pragma once
#include "core/graph.h"

namespace vx {

void optimize_onnx(Graph& graph);

}  // namespace vx

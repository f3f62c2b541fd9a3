// The pipeline for imported ONNX models, in order: dead-node removal, constant folding,
// Conv+BatchNormalization folding, dead-node removal. (The U-Net keeps optimize_for_inference.)
#pragma once
#include "core/graph.h"

namespace vx {

void optimize_onnx(Graph& graph);

}  // namespace vx

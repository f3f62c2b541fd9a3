// MatMul [+ bias] [+ activation] -> vx.FusedMatMul (ops/fused_ops.h), which the oneDNN matmul
// kernel runs as one primitive (bias and eltwise post-op). Matched: MatMul(A, B) whose output is
// read only by Add(., bias) with bias a constant float vector of B's last extent, then optionally
// (or directly after the MatMul) Relu, vx.Gelu or ONNX Gelu read only there. A lone MatMul is left
// as it is. Also registers the shape function of vx.FusedMatMul.
#pragma once
#include "core/graph.h"

namespace vx {

Graph fuse_matmul_bias_act(Graph graph);

}  // namespace vx

// Conv + residual Add (+ Relu) -> vx.FusedConvResidual (ops/fused_ops.h), as ResNet's blocks
// end: Relu(BN(Conv(x)) + identity). The oneDNN kernel adds the residual with a sum post-op, so
// the residual and the sum stay in the convolutions' blocked / NHWC layout instead of a
// reorder to NCHW and back around every block; on Vulkan the residual joins the conv GEMM's
// epilogue (two dispatches fewer a block). Matched: a vx.FusedConv without relu, pool or
// upsample_concat whose output is read only by an Add whose other operand has the same known
// shape (after shape inference) and dtype f32; a Relu reading only the Add's output is taken too.
// Where both operands are such convs, the deeper one takes the other's output as its residual.
// Runs after fuse_conv_bias_relu. Also registers the shape function of vx.FusedConvResidual.
#pragma once
#include "core/graph.h"

namespace vx {

Graph fuse_conv_residual(Graph graph);

}  // namespace vx

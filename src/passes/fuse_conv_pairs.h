// A 1x1 vx.FusedConv and the convolution that alone reads it -> vx.ConvPair (ops/fused_ops.h), so
// that on Vulkan the first one's split-K reduce pass can write the second one's im2col matrix
// (one dispatch fewer: ResNet-50's bottlenecks, a 1x1 reduction then a 3x3 layer). Matched: a
// vx.FusedConv of 1x1 weights, stride 1, no padding, group 1, without pool, upsample_concat or
// post-ops, whose output (f32, of known shape) is read only by a vx.FusedConv as its X; that one
// without pool or upsample_concat, of group 1, and not itself a plain 1x1 (a kernel larger than
// 1x1, a stride or padding: the convolutions that read an im2col matrix).
// Runs after fuse_conv_post_ops and fuse_squeeze_excite (Vulkan path only).
#pragma once
#include "core/graph.h"

namespace vx {

Graph fuse_conv_pairs(Graph graph);

}  // namespace vx

// Fusion (Vulkan): vx.FusedConv or vx.FusedConvResidual (group 1, no pool, no upsample_concat) whose
// output is read only by a GlobalAveragePool, or by a ReduceMean over every spatial axis that keeps
// them (`x.mean((2, 3), keepdim=True)` exported), gets global_mean = 1 and writes the means
// directly (ResNet's last block before its classifier). On Vulkan the convolution's split-K reduce
// pass then averages as it adds the partial sums: one dispatch instead of two (kernels/conv.cpp).
#pragma once
#include "core/graph.h"

namespace vx {

Graph fuse_conv_global_mean(Graph graph);

}  // namespace vx

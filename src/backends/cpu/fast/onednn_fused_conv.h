// vx.FusedConv through oneDNN (Debian's libdnnl, OpenMP runtime): one convolution primitive per
// node with bias and ReLU as a post-op, weights reordered once when the executable is built, a
// oneDNN max-pooling primitive for pool = 1, and for upsample_concat = 1 the 2x upsample and the
// concatenation written straight into the convolution's NHWC source (one pass over memory, the
// same cost as the layout reorder any NCHW input needs anyway). Activations are NHWC inside the
// CPU backend where cpu_layout.h allows, NCHW otherwise. oneDNN's OpenMP threads follow the size
// of the executor's ThreadPool (--threads).
#pragma once
#include <cstddef>

#include "core/graph.h"

namespace vx::cpu::fast {

// Whether the oneDNN kernel takes this node: 2-D, float32, group 1, constant weights and bias.
bool onednn_fused_conv_supports(const Node& node, const Graph& graph);
// The scratch bytes one run of this (annotated) node needs: the packed NHWC source when the input
// is NCHW or upsample_concat is set, the full-size conv output when pooling or writing NCHW.
size_t onednn_fused_conv_scratch_bytes(const Node& node, const Graph& graph);
// Sets the number of OpenMP threads oneDNN uses from now on in the calling thread.
void set_onednn_threads(int threads);

}  // namespace vx::cpu::fast

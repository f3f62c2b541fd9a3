// vx.FusedConv through oneDNN (Debian's libdnnl, OpenMP runtime): one convolution primitive per
// node with bias and ReLU as a post-op, weights reordered once when the executable is built, a
// oneDNN max-pooling primitive for pool = 1, and for upsample_concat = 1 the 2x upsample and the
// concatenation written straight into the convolution's source (one pass over memory, the same
// cost as the layout reorder any NCHW input needs anyway). Activations are NHWC, nChw16c or nChw8c inside
// the CPU backend where cpu_layout.h allows, NCHW otherwise; eligible convolutions run as
// Winograd F(4x4, 3x3) (relative error ~2e-6 against direct on U-Net layers). oneDNN's OpenMP threads follow the size
// of the executor's ThreadPool (--threads).
#pragma once
#include <cstddef>

#include "backends/cpu/fast/cpu_layout.h"
#include "core/graph.h"

namespace vx::cpu::fast {

// Whether this CPU's oneDNN has a Winograd convolution (Debian's oneDNN 2.6: AVX-512 only).
bool onednn_has_winograd();
// Whether this CPU runs convolutions best on nChw8c: without Winograd (AVX2), where oneDNN's JIT
// kernels for the 8-channel blocked layout beat its NHWC ones (what ONNX Runtime's NCHWc does).
bool onednn_prefers_blocked8();
// Whether oneDNN has a JIT kernel for a first layer (fewer than 8 input channels) reading NCHW and
// writing nChw8c.
bool onednn_takes_plain_stems();
// The layout the convolution of this node reads and writes: nChw16c for Winograd candidates (3x3,
// stride 1, dilation 1, pad 1, input and output channels dividing by 16, large maps, and a CPU
// with Winograd); nChw8c where onednn_prefers_blocked8() for undilated convolutions whose input
// and output channels divide by 8 (group 1 or depthwise), and for stems (fewer than 8 input
// channels, group 1, output channels dividing by 8), which read NCHW; else NHWC. Inputs in
// another layout are reordered (or packed) into it; outputs wanted in another layout are reordered.
Layout onednn_working_layout(const Node& node, const Graph& graph);
// Whether the oneDNN kernel takes this node: 2-D, float32, constant weights and bias; grouped and
// depthwise convolutions too (without upsample_concat).
bool onednn_fused_conv_supports(const Node& node, const Graph& graph);
// The scratch bytes one run of this (annotated) node needs: the packed NHWC source when the input
// is NCHW or upsample_concat is set, the full-size conv output when pooling or writing NCHW.
size_t onednn_fused_conv_scratch_bytes(const Node& node, const Graph& graph);

}  // namespace vx::cpu::fast

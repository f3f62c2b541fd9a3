// The CPU backend's internal activation layouts. The graph IR and the executor boundary are NCHW,
// but oneDNN is several times faster on other layouts (measured with bench/bench_cpu_conv on the
// 2-core AVX-512 machine, base U-Net layers at 1080p): direct convolutions (brgconv) run best on
// NHWC (plain NCHW falls back to a gemm path 5-10x slower), and 3x3 stride-1 convolutions whose
// channel counts are multiples of 16 run about 1.6x faster again as Winograd F(4x4, 3x3), which
// needs the channel-blocked layout nChw16c (no padding, since the channels divide by 16). Where
// oneDNN has no Winograd (AVX2 CPUs) its JIT kernels run best on nChw8c, the 8-channel block.
//
// Which nodes take part (only rank-4 f32 values of known shape are ever stored in another layout):
//   - oneDNN vx.FusedConv / vx.FusedConvResidual: read their data inputs (X, X_low / X_skip, R) in
//     any layout, reordering into their working layout (nChw16c for Winograd candidates, nChw8c
//     on AVX2, read from plain NCHW by a stem, else NHWC: fast/fused_conv_onednn.h), and write
//     any layout;
//   - "followers", which read their activation input in any layout and write their output in the
//     same one: the fast unary kernels (eltwise_unary.cpp: Relu, Clip, HardSwish, ...: they work
//     on the raw buffer), the fast binary kernels (eltwise_binary.cpp) where one operand has the
//     output's full 4-D shape and the other is a scalar or spatially 1x1 ([N,C,1,1], [1,C,1,1],
//     [C,1,1], ...; indexed per channel in the activation's layout), or both operands have the
//     full shape and the same layout, the fast GlobalAveragePool / GlobalMaxPool (global_pool.cpp,
//     whose [N,C,1,1] output is layout-free, below), and the fast MaxPool / AveragePool
//     (pool.cpp: ResNet's max pool between two convolutions).
// A rank-4 value of spatial extent 1x1 is byte-identical in NCHW, NHWC and (when C divides by the
// block) nChw16c / nChw8c: it is layout-free, never reordered, and each node reading or writing it names whichever
// of those layouts suits it.
//
// Decision, a fixpoint: a conv's output wants its working layout, a follower's output its
// activation input's layout. A value that is a graph output, or that some node reads other than as
// a conv's data input or a follower's activation input (a reference kernel, a Reshape, a binary
// op whose two full operands differ in layout, ...), is forced to NCHW; forcing a unary, binary or
// windowed pool follower's output forces its activation inputs too, back to the convolution, which then writes
// NCHW. So no kernel other than these ever sees another layout. The decision is recorded on the
// nodes of the plan's own graph copy as attributes only these kernels read (absent: all NCHW):
//   cpu.layout_inputs   ints: on a conv one per data input; on a follower (only where it works in
//                       another layout than NCHW) one per input
//   cpu.layout_output   int (a Layout)
// A vx.FusedConvResidual whose R is in its working layout and read by no later step is also marked
//   cpu.residual_in_place   int 1: R is added by a sum post-op into the output's buffer, which
//                           the plan gives R's bytes (PlanStep::output_reuses_input; where the
//                           arena could not, the kernel copies R there first)
#pragma once
#include "plan/plan.h"

namespace vx::cpu {

enum class Layout : int64_t { nchw = 0, nhwc = 1, nchw16c = 2, nchw8c = 3 };

// The channel block of a blocked layout (nChw16c, nChw8c), 0 for the others.
constexpr int64_t channel_block(Layout l) { return l == Layout::nchw16c ? 16 : l == Layout::nchw8c ? 8 : 0; }

inline constexpr const char* kLayoutInputsAttr = "cpu.layout_inputs";
inline constexpr const char* kLayoutOutputAttr = "cpu.layout_output";
inline constexpr const char* kResidualInPlaceAttr = "cpu.residual_in_place";
inline constexpr const char* kOneDnnVariant = "onednn";
inline constexpr const char* kFastVariant = "fast";

// The CPU backend's PlanHook: decides layouts (above), annotates the nodes and sets each oneDNN
// step's scratch bytes. Idempotent; sets plan.prepared_by = "cpu".
void prepare_cpu_plan(Plan& plan);

// For a follower's kernel: the layout of its input i and of its output (NCHW where the attributes
// are absent, as on nodes run outside a prepared plan).
Layout follower_input_layout(const Node& node, size_t i);
Layout follower_output_layout(const Node& node);

}  // namespace vx::cpu

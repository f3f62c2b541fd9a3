// The CPU backend's internal activation layouts. The graph IR and the executor boundary are NCHW,
// but oneDNN is several times faster on other layouts (measured with bench/bench_cpu_conv on the
// 2-core AVX-512 machine, base U-Net layers at 1080p): direct convolutions (brgconv) run best on
// NHWC (plain NCHW falls back to a gemm path 5-10x slower), and 3x3 stride-1 convolutions whose
// channel counts are multiples of 16 run about 1.6x faster again as Winograd F(4x4, 3x3), which
// needs the channel-blocked layout nChw16c (no padding, since the channels divide by 16).
//
// Rule: a value is internal when the node producing it is a oneDNN vx.FusedConv, every node
// reading it is a oneDNN vx.FusedConv reading it as a data input (X, or X_low / X_skip), and it is
// not a graph output. An internal value is stored in its producer's working layout (nChw16c for
// Winograd candidates, else NHWC: fast/fused_conv_onednn.h); a reader working in another layout
// reorders it (or packs it, for upsample_concat) into scratch. Everything else (graph inputs and
// outputs, values that reference kernels read) stays NCHW, so no other kernel ever sees another
// layout. The decision is recorded on the nodes of the plan's own graph copy as attributes only
// the oneDNN kernel reads:
//   cpu.layout_inputs   ints, one per data input (a Layout)
//   cpu.layout_output   int (a Layout)
#pragma once
#include "plan/plan.h"

namespace vx::cpu {

enum class Layout : int64_t { nchw = 0, nhwc = 1, nchw16c = 2 };

inline constexpr const char* kLayoutInputsAttr = "cpu.layout_inputs";
inline constexpr const char* kLayoutOutputAttr = "cpu.layout_output";
inline constexpr const char* kOneDnnVariant = "onednn";

// The CPU backend's PlanHook: decides layouts (above), annotates the nodes and sets each oneDNN
// step's scratch bytes. Idempotent; sets plan.prepared_by = "cpu".
void prepare_cpu_plan(Plan& plan);

}  // namespace vx::cpu

// The CPU backend's internal activation layout. The graph IR and the executor boundary are NCHW,
// but oneDNN's convolutions are several times faster on NHWC than on plain NCHW on this class of
// machine (brgconv vs gemm; measured in bench/bench_cpu_conv.cpp), and NHWC needs no channel
// padding (unlike nChw16c), so activation sizes stay those the planner computed.
//
// Rule: a value is stored NHWC when the node producing it is a oneDNN vx.FusedConv and every node
// reading it is a oneDNN vx.FusedConv reading it as a data input (X, or X_low / X_skip), and it
// is not a graph output. Everything else (graph inputs and outputs, values that reference kernels
// read) stays NCHW, so no other kernel ever sees NHWC data. The decision is recorded on the nodes
// of the plan's own graph copy as attributes that only the oneDNN kernel reads:
//   cpu.nhwc_inputs   ints, one per data input (1 = NHWC)
//   cpu.nhwc_output   int (1 = NHWC)
#pragma once
#include "plan/plan.h"

namespace vx::cpu {

inline constexpr const char* kNhwcInputsAttr = "cpu.nhwc_inputs";
inline constexpr const char* kNhwcOutputAttr = "cpu.nhwc_output";
inline constexpr const char* kOneDnnVariant = "onednn";

// The CPU backend's PlanHook: decides layouts (above), annotates the nodes and sets each oneDNN
// step's scratch bytes. Idempotent; sets plan.prepared_by = "cpu".
void prepare_cpu_plan(Plan& plan);

}  // namespace vx::cpu

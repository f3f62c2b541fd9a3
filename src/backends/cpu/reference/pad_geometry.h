// What a Pad node asks for, read once for the reference and the fast kernel (fast/pad.cpp): the
// mode, the begin pad and output extent per axis (pads, value and axes as inputs from opset 11 and
// 18, as attributes before), and the fill value in the input's dtype.
#pragma once
#include <string>
#include <vector>

#include "backends/cpu/kernel_registry.h"

namespace vx::cpu::ref {

struct PadGeometry {
  std::string mode;              // constant, reflect, edge or wrap
  std::vector<int64_t> begin;    // per axis: the pad before the input (negative: a crop)
  std::vector<int64_t> dims;     // the output's extents
  Tensor fill;                   // one element of the input's dtype (constant mode)
};

PadGeometry read_pad_geometry(KernelContext& ctx);

// Where padded output coordinate `o` reads along an input axis of extent `d` (begin pad `b`), or
// -1 for the constant value.
int64_t pad_source(int64_t o, int64_t b, int64_t d, const std::string& mode);

}  // namespace vx::cpu::ref

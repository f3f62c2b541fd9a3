// The geometry of Slice (opset 1 with attributes, opset 10+ with inputs) with ONNX semantics: per
// sliced axis the first input index, the step and the number of elements taken, after clamping
// starts and ends (INT64_MAX / INT64_MIN included) as ONNX does. Shared by the shape function, the
// CPU reference kernel and the Vulkan kernel so they never disagree.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"

namespace vx {

struct SliceOperands {
  std::vector<int64_t> starts, ends, axes, steps;  // axes and steps may be empty (all axes, steps of 1)
};

struct SliceAxis {
  int64_t start = 0, step = 1, count = 0;
};

// A Slice node's operands where they are known before it runs: its inputs when they are constants
// (opset 10+), or its attributes (opset 1); nullopt when an input is computed at run time.
std::optional<SliceOperands> constant_slice_operands(const Node& node, const Graph& graph);

// One entry per input axis (unsliced axes: start 0, step 1, count = the extent). InvalidArgument
// naming `what` for operands of different lengths, a repeated or out-of-range axis, or a step of 0.
std::vector<SliceAxis> slice_geometry(const std::vector<int64_t>& dims, SliceOperands operands, const std::string& what);

}  // namespace vx

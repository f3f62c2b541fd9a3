// The geometry of a sliding-window op (Conv, MaxPool, vx.FusedConv) with ONNX semantics: kernel,
// strides, dilations, begin/end pads (auto_pad resolved) and the output extents, per spatial axis.
// Shared by shape inference, the reference kernels and the oneDNN kernels so they never disagree.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/attribute.h"

namespace vx {

struct WindowGeometry {
  std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end, output;
  size_t rank() const { return kernel.size(); }
};

// `input` and `kernel` are the spatial extents (kernel from W's shape for Conv; kernel_shape wins
// when present). ceil_mode applies to pooling. Throws InvalidArgument naming `what` when the
// attributes are inconsistent (wrong lengths, non-positive strides, an empty output).
WindowGeometry window_geometry(const Attributes& attrs, const std::vector<int64_t>& input,
                               std::vector<int64_t> kernel, bool ceil_mode, const std::string& what);

}  // namespace vx

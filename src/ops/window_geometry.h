// The geometry of a sliding-window op (Conv, MaxPool, vx.FusedConv) with ONNX semantics: kernel,
// strides, dilations, begin/end pads (auto_pad resolved) and the output extents, per spatial axis.
// Shared by shape inference, the reference kernels and the oneDNN kernels so they never disagree.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
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

// Along one spatial axis: the outputs o in [0, out) whose input position o * stride - pad_begin +
// tap_offset (a kernel tap's offset, tap * dilation) lies inside [0, in), as [first, end); empty
// (first == end) where the tap reads only padding.
std::pair<int64_t, int64_t> outputs_inside_input(int64_t in, int64_t out, int64_t stride, int64_t pad_begin,
                                                 int64_t tap_offset);

}  // namespace vx

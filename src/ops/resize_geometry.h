// The geometry of Resize (opsets 10-19) and Upsample (7-9) with ONNX semantics: the attributes,
// the output extent and scale of every axis (scales or sizes, axes, keep_aspect_ratio_policy,
// roi), and per resized axis a tap table (input index and weight per output index) for nearest
// (every nearest_mode and the legacy floor/ceil rule), n-linear and n-cubic (cubic_coeff_a,
// exclude_outside) under every coordinate_transformation_mode. Shared by the CPU reference
// kernel and the Vulkan kernel so they never disagree. Antialias is not supported.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/attribute.h"
#include "core/graph.h"
#include "core/tensor.h"

namespace vx {

struct ResizeParams {
  std::string mode = "nearest";  // nearest | linear | cubic
  std::string transform = "half_pixel";
  std::string nearest_mode = "round_prefer_floor";
  bool legacy_nearest = false;  // Upsample and Resize-10: floor when enlarging, ceil when shrinking
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
};

// Upsample, and Resize before opset 11 (`opset` 0: unknown, taken as current): scales only,
// asymmetric coordinates and the legacy nearest rule.
bool resize_is_legacy(const Node& node, int64_t opset);

// The node's roi, scales and sizes as its inputs give them (Upsample-7: its scales attribute).
// `input(i)` is the tensor of the node's input i, nullptr where omitted; empty tensors count as
// omitted. InvalidArgument for sizes that are not integers.
struct ResizeValues {
  std::vector<double> scales, roi;
  std::vector<int64_t> sizes;
};
ResizeValues read_resize_values(const Node& node, bool legacy, const std::function<const Tensor*(size_t)>& input);

// `legacy`: Upsample or Resize before opset 11 (asymmetric coordinates, the legacy nearest rule).
// Throws Unsupported naming `what` for an unknown mode or antialias.
ResizeParams read_resize_params(const Attributes& attrs, bool legacy, const std::string& what);

// Output extent, scale and roi of every axis of an input with extents `in_dims`. The values are
// given for the `axes` attribute's axes (all axes when absent), as the node's inputs hold them:
// exactly one of scale_values and size_values is non-empty; roi_values is empty or 2 per axis.
struct ResizeAxes {
  std::vector<int64_t> out_dims;
  std::vector<double> scales, roi_start, roi_end;
};
ResizeAxes resize_axes(const std::vector<int64_t>& in_dims, const Attributes& attrs,
                       const std::vector<double>& scale_values, const std::vector<int64_t>& size_values,
                       const std::vector<double>& roi_values, const std::string& what);

struct ResizeTap {
  int64_t index;
  double weight;
};
struct ResizeAxisTaps {
  std::vector<std::vector<ResizeTap>> taps;  // per output index
  std::vector<bool> outside;                 // tf_crop_and_resize: the output is extrapolation_value
};
// The taps of one axis with `in` input and `out` output elements.
ResizeAxisTaps resize_axis_taps(int64_t in, int64_t out, double scale, double roi_start, double roi_end,
                                const ResizeParams& p, const std::string& what);

}  // namespace vx

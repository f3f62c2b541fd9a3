#include "ops/window_geometry.h"

#include <algorithm>

#include "core/error.h"

namespace vx {

namespace {
std::vector<int64_t> ints_or(const Attributes& attrs, const std::string& name, size_t n, int64_t fallback,
                             const std::string& what) {
  std::vector<int64_t> v = attrs.get_ints(name);
  if (v.empty()) return std::vector<int64_t>(n, fallback);
  VX_CHECK(v.size() == n, InvalidArgument, what, ": attribute ", name, " has ", v.size(), " entries, expected ", n);
  return v;
}
int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
}  // namespace

std::pair<int64_t, int64_t> outputs_inside_input(int64_t in, int64_t out, int64_t stride, int64_t pad_begin,
                                                 int64_t tap_offset) {
  const int64_t shift = pad_begin - tap_offset;  // input = o * stride - shift
  const int64_t first = std::max<int64_t>(0, floor_div(shift + stride - 1, stride));
  const int64_t last = std::min<int64_t>(out - 1, floor_div(in - 1 + shift, stride));
  return {first, std::max(first, last + 1)};
}

WindowGeometry window_geometry(const Attributes& attrs, const std::vector<int64_t>& input,
                               std::vector<int64_t> kernel, bool ceil_mode, const std::string& what) {
  const size_t n = input.size();
  WindowGeometry g;
  std::vector<int64_t> ks = attrs.get_ints("kernel_shape");
  if (!ks.empty()) kernel = ks;
  VX_CHECK(kernel.size() == n, InvalidArgument, what, ": kernel has ", kernel.size(), " spatial axes, input has ", n);
  g.kernel = kernel;
  g.strides = ints_or(attrs, "strides", n, 1, what);
  g.dilations = ints_or(attrs, "dilations", n, 1, what);
  std::vector<int64_t> pads = ints_or(attrs, "pads", 2 * n, 0, what);
  g.pads_begin.assign(pads.begin(), pads.begin() + long(n));
  g.pads_end.assign(pads.begin() + long(n), pads.end());
  g.output.resize(n);
  const std::string auto_pad = attrs.get_string("auto_pad", "NOTSET");
  for (size_t i = 0; i < n; ++i) {
    VX_CHECK(g.kernel[i] > 0 && g.strides[i] > 0 && g.dilations[i] > 0, InvalidArgument, what,
             ": kernel, strides and dilations must be positive");
    VX_CHECK(g.pads_begin[i] >= 0 && g.pads_end[i] >= 0, InvalidArgument, what, ": negative pads");
    const int64_t extent = (g.kernel[i] - 1) * g.dilations[i] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      g.output[i] = ceil_div(input[i], g.strides[i]);
      int64_t total = std::max<int64_t>(0, (g.output[i] - 1) * g.strides[i] + extent - input[i]);
      int64_t small = total / 2;
      g.pads_begin[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      g.pads_end[i] = total - g.pads_begin[i];
    } else {
      if (auto_pad == "VALID") {
        g.pads_begin[i] = g.pads_end[i] = 0;
      } else {
        VX_CHECK(auto_pad == "NOTSET" || auto_pad.empty(), InvalidArgument, what, ": unknown auto_pad '", auto_pad,
                 "'");
      }
      const int64_t span = input[i] + g.pads_begin[i] + g.pads_end[i] - extent;
      if (ceil_mode) {
        g.output[i] = ceil_div(span, g.strides[i]) + 1;
        // The last window must start inside the input or its begin padding (ONNX / PyTorch rule).
        if ((g.output[i] - 1) * g.strides[i] >= input[i] + g.pads_begin[i]) --g.output[i];
      } else {
        g.output[i] = floor_div(span, g.strides[i]) + 1;
      }
    }
    VX_CHECK(g.output[i] > 0, InvalidArgument, what, ": the window (extent ", extent, ") is larger than the padded input (",
             input[i] + g.pads_begin[i] + g.pads_end[i], ") on spatial axis ", i);
  }
  return g;
}

}  // namespace vx

#include "ops/conv_transpose_geometry.h"

#include <algorithm>

#include "core/error.h"
#include "ops/shape_fn.h"

namespace vx {

ConvTransposeGeometry conv_transpose_geometry(const Attributes& attrs, const Shape& x, const Shape& w,
                                              const std::string& what) {
  VX_CHECK(x.rank() >= 3 && w.rank() == x.rank(), InvalidArgument, what, ": input ", x.str(), " and weight ", w.str(),
           " must be N-D images of equal rank");
  const size_t nd = x.rank() - 2;
  ConvTransposeGeometry g;
  g.group = attrs.get_int("group", 1);
  VX_CHECK(g.group >= 1 && x[1] % g.group == 0 && w[0] == x[1], InvalidArgument, what, ": weight ", w.str(),
           " does not fit ", x[1], " input channels in ", g.group, " groups");
  auto per_axis = [&](const char* name, size_t count, int64_t fallback) {
    std::vector<int64_t> v = attrs.get_ints(name);
    if (v.empty()) v.assign(count, fallback);
    VX_CHECK(v.size() == count, InvalidArgument, what, ": ", name, " has ", v.size(), " entries for ", nd,
             " spatial axes");
    return v;
  };
  g.kernel.assign(w.begin() + 2, w.end());
  g.strides = per_axis("strides", nd, 1);
  g.dilations = per_axis("dilations", nd, 1);
  g.output_padding = per_axis("output_padding", nd, 0);
  const std::vector<int64_t> kernel_attr = attrs.get_ints("kernel_shape");
  VX_CHECK(kernel_attr.empty() || kernel_attr == g.kernel, InvalidArgument, what, ": kernel_shape ",
           Shape(kernel_attr).str(), " differs from the weight's ", Shape(g.kernel).str());
  const std::vector<int64_t> pads = per_axis("pads", 2 * nd, 0);
  const std::string auto_pad = attrs.get_string("auto_pad", "NOTSET");
  std::vector<int64_t> output_shape = attrs.get_ints("output_shape");
  if (output_shape.size() == nd + 2) output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  VX_CHECK(output_shape.empty() || output_shape.size() == nd, InvalidArgument, what, ": output_shape has ",
           output_shape.size(), " entries");

  g.output.resize(nd);
  g.pads_begin.resize(nd);
  g.pads_end.resize(nd);
  for (size_t i = 0; i < nd; ++i) {
    VX_CHECK(g.strides[i] >= 1 && g.dilations[i] >= 1 && g.output_padding[i] >= 0, InvalidArgument, what,
             ": strides and dilations must be >= 1 and output_padding >= 0");
    const int64_t input = x[i + 2], extent = (g.kernel[i] - 1) * g.dilations[i] + 1;
    const int64_t full = g.strides[i] * (input - 1) + g.output_padding[i] + extent;
    if (!output_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      // The output extent is given (or in * stride): pad the difference, the odd one at the end
      // for SAME_UPPER and at the start otherwise (as ONNX Runtime does).
      g.output[i] = !output_shape.empty() ? output_shape[i] : input * g.strides[i];
      const int64_t total = std::max<int64_t>(0, full - g.output[i]);
      g.pads_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else if (auto_pad == "VALID") {
      g.output[i] = full;
      g.pads_begin[i] = 0;
    } else {
      VX_CHECK(auto_pad == "NOTSET", Unsupported, what, ": unknown auto_pad '", auto_pad, "'");
      g.output[i] = full - pads[i] - pads[i + nd];
      g.pads_begin[i] = pads[i];
    }
    VX_CHECK(g.output[i] >= 0, InvalidArgument, what, ": negative output extent on spatial axis ", i);
    g.pads_end[i] = g.strides[i] * (input - 1) + extent - g.pads_begin[i] - g.output[i];
  }
  std::vector<int64_t> out = {x[0], w[1] * g.group};
  out.insert(out.end(), g.output.begin(), g.output.end());
  g.output_shape = Shape(out);
  return g;
}

namespace {
// Without it every value after a ConvTranspose would be of unknown shape: allocated at run time
// instead of planned, and declined by the fast kernels that need planned shapes.
bool conv_transpose_shape(const Node& node, Graph& graph) {
  VX_CHECK(node.input(0) != kNoValue && node.input(1) != kNoValue && !node.outputs.empty(), InvalidArgument, "node '",
           node.name, "' (ConvTranspose) needs X, W and an output");
  const Value& x = graph.value(node.input(0));
  const ConvTransposeGeometry g = conv_transpose_geometry(node.attrs, x.shape, graph.value(node.input(1)).shape,
                                                          "node '" + node.name + "' (ConvTranspose)");
  if (node.outputs[0] == kNoValue) return true;
  Value& y = graph.value(node.outputs[0]);
  y.shape = g.output_shape;
  y.dtype = x.dtype;
  return true;
}
}  // namespace

VX_REGISTER_SHAPE_FN(conv_transpose, "ConvTranspose", conv_transpose_shape);

}  // namespace vx

#include "passes/crop_dilated_conv_taps.h"

#include <algorithm>
#include <cstring>

#include "ops/window_geometry.h"
#include "passes/fuse_pattern_util.h"

namespace vx {

namespace {

struct TapRange {
  int64_t first = 0, last = -1;  // last < first: no tap reaches the input
  int64_t count() const { return last - first + 1; }
};

// The taps along one spatial axis that read the input for at least one output.
TapRange reaching_taps(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin, int64_t out) {
  TapRange r{kernel, -1};
  for (int64_t k = 0; k < kernel; ++k) {
    const auto [first, end] = outputs_inside_input(in, out, stride, pad_begin, k * dilation);
    if (first < end) {
      r.first = std::min(r.first, k);
      r.last = k;
    }
  }
  return r;
}

// W [M, C / group, k0, k1, ...] cut to the taps [first, last] of each spatial axis.
Tensor crop_taps(const Tensor& w, const std::vector<TapRange>& taps) {
  const size_t spatial = taps.size(), element = dtype_size(w.dtype());
  std::vector<int64_t> dims = {w.dim(0), w.dim(1)};
  for (const TapRange& t : taps) dims.push_back(t.count());
  Tensor out(w.dtype(), Shape(dims));
  // Input strides in elements, per spatial axis.
  std::vector<int64_t> stride(spatial, 1);
  for (size_t i = spatial - 1; i > 0; --i) stride[i - 1] = stride[i] * w.dim(i + 2);
  const int64_t in_filter = stride[0] * w.dim(2), run = taps.back().count();
  const auto* src = static_cast<const uint8_t*>(w.raw());
  auto* dst = static_cast<uint8_t*>(out.raw());
  std::vector<int64_t> at(spatial, 0);  // the kept tap along each axis but the last (an odometer)
  for (int64_t filter = 0; filter < w.dim(0) * w.dim(1); ++filter) {
    for (bool more = true; more;) {
      int64_t from = filter * in_filter + taps.back().first;
      for (size_t i = 0; i + 1 < spatial; ++i) from += (taps[i].first + at[i]) * stride[i];
      std::memcpy(dst, src + size_t(from) * element, size_t(run) * element);
      dst += size_t(run) * element;
      more = false;
      for (size_t i = spatial - 1; i-- > 0;) {
        if (++at[i] < taps[i].count()) {
          more = true;
          break;
        }
        at[i] = 0;
      }
    }
  }
  return out;
}

}  // namespace

Graph crop_dilated_conv_taps(Graph graph) {
  for (ValueId id : graph.inputs)  // as transposes_as_reshapes: a rank-0 input may be bound to any rank
    if (graph.value(id).shape.rank() == 0) return graph;
  const std::vector<Shape> shapes = pattern::inferred_shapes(graph);
  for (Node& node : graph.nodes) {
    if (!pattern::is_op(node, "Conv") || node.inputs.size() < 2 || node.input(1) == kNoValue ||
        !graph.value(node.input(1)).is_constant())
      continue;
    const Tensor w = graph.value(node.input(1)).constant;
    const Shape& xs = shapes[size_t(node.input(0))];
    if (xs.rank() < 3 || !xs.is_known() || w.rank() != xs.rank()) continue;
    const std::vector<int64_t> in(xs.begin() + 2, xs.end()), kernel(w.shape().begin() + 2, w.shape().end());
    WindowGeometry g;
    try {
      g = window_geometry(node.attrs, in, kernel, false, node.name);
    } catch (const Error&) {
      continue;  // the kernels report it
    }
    if (g.kernel != kernel) continue;
    bool cropped = false, valid = true;
    std::vector<TapRange> taps;
    std::vector<int64_t> pads_begin = g.pads_begin, pads_end = g.pads_end, dilations = g.dilations;
    for (size_t i = 0; i < in.size(); ++i) {
      const TapRange t =
          g.dilations[i] > 1 ? reaching_taps(in[i], kernel[i], g.strides[i], g.dilations[i], g.pads_begin[i], g.output[i])
                             : TapRange{0, kernel[i] - 1};
      pads_begin[i] -= t.first * g.dilations[i];
      pads_end[i] -= (kernel[i] - 1 - t.last) * g.dilations[i];
      // No tap at all (the output is the bias alone) or a cut that would need negative pads: left.
      valid = valid && t.count() > 0 && pads_begin[i] >= 0 && pads_end[i] >= 0;
      cropped = cropped || t.count() < kernel[i];
      if (t.count() == 1) dilations[i] = 1;
      taps.push_back(t);
    }
    if (!valid || !cropped) continue;
    std::vector<int64_t> pads = pads_begin, kernel_shape;
    pads.insert(pads.end(), pads_end.begin(), pads_end.end());
    for (const TapRange& t : taps) kernel_shape.push_back(t.count());
    node.inputs[1] = graph.add_constant(node.name + "/reaching_taps", crop_taps(w, taps));
    node.attrs.set("pads", pads);
    node.attrs.set("dilations", dilations);
    node.attrs.set("kernel_shape", kernel_shape);
    node.attrs.erase("auto_pad");  // resolved into the pads
  }
  return graph;
}

}  // namespace vx

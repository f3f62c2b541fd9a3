// Shape functions for the common ONNX ops (elementwise with broadcasting, unary, MatMul, Gemm,
// Conv and pooling, Resize, Concat, Transpose, Reshape / Unsqueeze / Squeeze / Slice /
// Pad / Expand / Tile with constant operands, Flatten, Softmax, normalisations, Gather, Cast,
// reductions, quantisation and the quantised products, recurrent layers, TopK and OneHot with a
// constant K / depth, Einsum, GatherND, the Scatters, Size)
// and for vx.FusedConv, so that typical
// CNNs and transformers are planned with every activation in the arena. A shape that depends on
// data computed at run time returns false: the executor allocates it then.
#include <algorithm>
#include <cmath>
#include <optional>

#include "core/error.h"
#include "ops/einsum_equation.h"
#include "ops/fused_ops.h"
#include "ops/matmul_shape.h"
#include "ops/onnx_dtype.h"
#include "ops/resize_geometry.h"
#include "ops/shape_fn.h"
#include "ops/shape_rules.h"
#include "ops/slice_geometry.h"
#include "ops/window_geometry.h"

namespace vx {
namespace {

std::string what(const Node& node) { return "node '" + node.name + "' (" + node.op + ")"; }

const Value& in(const Node& node, const Graph& graph, size_t i) {
  VX_CHECK(node.input(i) != kNoValue, InvalidArgument, what(node), " lacks input ", i);
  return graph.value(node.input(i));
}

void set_out(const Node& node, Graph& graph, size_t i, Shape shape, DType dtype) {
  if (i >= node.outputs.size() || node.outputs[i] == kNoValue) return;
  Value& v = graph.value(node.outputs[i]);
  v.shape = std::move(shape);
  v.dtype = dtype;
}

int64_t normalized_axis(const Node& node, int64_t axis, int64_t rank) { return normalize_axis(axis, rank, what(node)); }

Shape broadcast(const Node& node, const Shape& a, const Shape& b) { return broadcast_shapes(a, b, what(node)); }

// Elementwise over every input with numpy broadcasting; the output dtype is the first input's, or
// bool for comparisons and logic.
bool broadcast_shape(const Node& node, Graph& graph, std::optional<DType> dtype) {
  Shape out = in(node, graph, 0).shape;
  for (size_t i = 1; i < node.inputs.size(); ++i) out = broadcast(node, out, in(node, graph, i).shape);
  set_out(node, graph, 0, out, dtype.value_or(in(node, graph, 0).dtype));
  return true;
}
bool arithmetic_shape(const Node& node, Graph& graph) { return broadcast_shape(node, graph, std::nullopt); }
bool comparison_shape(const Node& node, Graph& graph) { return broadcast_shape(node, graph, DType::boolean); }
bool where_shape(const Node& node, Graph& graph) {
  return broadcast_shape(node, graph, in(node, graph, 1).dtype);
}

bool cast_shape(const Node& node, Graph& graph) {
  std::optional<DType> to = dtype_from_onnx(node.attrs.get_int("to", 0));
  if (!to) return false;
  set_out(node, graph, 0, in(node, graph, 0).shape, *to);
  return true;
}

bool matmul_op_shape(const Node& node, Graph& graph) {
  const Value& a = in(node, graph, 0);
  set_out(node, graph, 0, matmul_shape(a.shape, in(node, graph, 1).shape, what(node)).out, a.dtype);
  return true;
}

bool gemm_op_shape(const Node& node, Graph& graph) {
  const GemmShape s = gemm_shape(in(node, graph, 0).shape, in(node, graph, 1).shape, node.attrs, what(node));
  set_out(node, graph, 0, Shape({s.m, s.n}), in(node, graph, 0).dtype);
  return true;
}

bool transpose_shape(const Node& node, Graph& graph) {
  const Shape& x = in(node, graph, 0).shape;
  const std::vector<int64_t> perm = transpose_perm(node.attrs.get_ints("perm"), x.rank());
  VX_CHECK(perm.size() == x.rank(), InvalidArgument, what(node), ": perm has ", perm.size(),
           " entries for an input of rank ", x.rank());
  std::vector<int64_t> out(x.rank());
  for (size_t d = 0; d < perm.size(); ++d) out[d] = x[size_t(normalized_axis(node, perm[d], int64_t(x.rank())))];
  set_out(node, graph, 0, Shape(out), in(node, graph, 0).dtype);
  return true;
}

bool reshape_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  std::optional<std::vector<int64_t>> target = constant_ints(node, graph, 1);
  if (!target) return false;
  const bool allow_zero = node.attrs.get_int("allowzero", 0) != 0;
  std::vector<int64_t> out = *target;
  int64_t known = 1, infer_at = -1;
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 0 && !allow_zero) {
      VX_CHECK(d < x.shape.rank(), InvalidArgument, what(node), ": shape entry 0 at ", d, " past the input rank");
      out[d] = x.shape[d];
    }
    if (out[d] == -1) {
      VX_CHECK(infer_at < 0, InvalidArgument, what(node), ": more than one -1 in the target shape");
      infer_at = int64_t(d);
    } else {
      VX_CHECK(out[d] >= 0, InvalidArgument, what(node), ": negative extent in the target shape");
      known *= out[d];
    }
  }
  const int64_t numel = x.shape.numel();
  if (infer_at >= 0) {
    VX_CHECK(known > 0 && numel % known == 0, InvalidArgument, what(node), ": cannot reshape ", x.shape.str());
    out[size_t(infer_at)] = numel / known;
  } else {
    VX_CHECK(known == numel, InvalidArgument, what(node), ": cannot reshape ", x.shape.str(), " to ",
             Shape(out).str());
  }
  set_out(node, graph, 0, Shape(out), x.dtype);
  return true;
}

bool flatten_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  const int64_t rank = int64_t(x.shape.rank());
  int64_t axis = node.attrs.get_int("axis", 1);
  VX_CHECK(axis >= -rank && axis <= rank, InvalidArgument, what(node), ": axis ", axis, " out of range");
  if (axis < 0) axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= x.shape[size_t(d)];
  set_out(node, graph, 0, Shape({outer, inner}), x.dtype);
  return true;
}

bool unsqueeze_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  std::optional<std::vector<int64_t>> axes = axes_of(node, graph, 1);
  if (!axes) return false;
  const int64_t rank = int64_t(x.shape.rank() + axes->size());
  std::vector<bool> inserted(size_t(rank), false);
  for (int64_t a : *axes) {
    const int64_t axis = normalized_axis(node, a, rank);
    VX_CHECK(!inserted[size_t(axis)], InvalidArgument, what(node), ": axis ", a, " repeated");
    inserted[size_t(axis)] = true;
  }
  std::vector<int64_t> out;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d) out.push_back(inserted[size_t(d)] ? 1 : x.shape[next++]);
  set_out(node, graph, 0, Shape(out), x.dtype);
  return true;
}

bool squeeze_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  std::optional<std::vector<int64_t>> axes = axes_of(node, graph, 1);
  if (!axes) return false;
  const int64_t rank = int64_t(x.shape.rank());
  std::vector<bool> drop(size_t(rank), false);
  for (int64_t a : *axes) drop[size_t(normalized_axis(node, a, rank))] = true;
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (axes->empty() ? x.shape[size_t(d)] == 1 : drop[size_t(d)]) {
      VX_CHECK(x.shape[size_t(d)] == 1, InvalidArgument, what(node), ": axis ", d, " of ", x.shape.str(),
               " is not 1");
      continue;
    }
    out.push_back(x.shape[size_t(d)]);
  }
  set_out(node, graph, 0, Shape(out), x.dtype);
  return true;
}

// Conv output: [N, M, spatial...] from X [N, C, spatial...] and W [M, C/group, k...].
Shape conv_output(const Node& node, const Shape& x, const Shape& w, int64_t channels_in) {
  VX_CHECK(x.rank() >= 3 && w.rank() == x.rank(), InvalidArgument, what(node), ": input ", x.str(), " and weights ",
           w.str(), " must be N,C,spatial... of the same rank");
  const int64_t group = node.attrs.get_int("group", 1);
  VX_CHECK(group >= 1 && channels_in % group == 0 && w[1] * group == channels_in && w[0] % group == 0,
           InvalidArgument, what(node), ": ", channels_in, " input channels do not match weights ", w.str(),
           " with group ", group);
  std::vector<int64_t> spatial(x.begin() + 2, x.end()), k(w.begin() + 2, w.end());
  WindowGeometry g = window_geometry(node.attrs, spatial, k, false, what(node));
  std::vector<int64_t> out = {x[0], w[0]};
  out.insert(out.end(), g.output.begin(), g.output.end());
  return Shape(out);
}

bool conv_shape(const Node& node, Graph& graph) {
  const Shape& x = in(node, graph, 0).shape;
  const Shape& w = in(node, graph, 1).shape;
  set_out(node, graph, 0, conv_output(node, x, w, x.rank() > 1 ? x[1] : -1), in(node, graph, 0).dtype);
  return true;
}

bool fused_conv_shape(const Node& node, Graph& graph) {
  const bool upsample_concat = node.attrs.get_int("upsample_concat", 0) != 0;
  Shape x = in(node, graph, 0).shape;
  size_t w_index = 1;
  if (upsample_concat) {
    const Shape& skip = in(node, graph, 1).shape;
    VX_CHECK(x.rank() == 4 && skip.rank() == 4 && x[0] == skip[0] && x[2] * 2 == skip[2] && x[3] * 2 == skip[3],
             InvalidArgument, what(node), ": upsample_concat needs X_low [N,C,H,W] and X_skip [N,C2,2H,2W], got ",
             x.str(), " and ", skip.str());
    x = Shape({skip[0], x[1] + skip[1], skip[2], skip[3]});
    w_index = 2;
  }
  const Shape& w = in(node, graph, w_index).shape;
  Shape y = conv_output(node, x, w, x[1]);
  if (node.attrs.get_int("pool", 0) != 0) {
    VX_CHECK(y.rank() == 4, InvalidArgument, what(node), ": pool needs a 2-D convolution");
    y[2] /= 2;
    y[3] /= 2;
    VX_CHECK(y[2] > 0 && y[3] > 0, InvalidArgument, what(node), ": the convolution output is too small to pool");
  }
  if (node.attrs.get_int("global_mean", 0) != 0)  // the mean over the spatial positions
    for (size_t i = 2; i < y.rank(); ++i) y[i] = 1;
  set_out(node, graph, 0, y, in(node, graph, 0).dtype);
  return true;
}

bool max_pool_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  VX_CHECK(x.shape.rank() >= 3, InvalidArgument, what(node), ": input ", x.shape.str(), " must be N,C,spatial...");
  std::vector<int64_t> spatial(x.shape.begin() + 2, x.shape.end());
  VX_CHECK(node.attrs.has("kernel_shape"), InvalidArgument, what(node), ": kernel_shape is required");
  WindowGeometry g = window_geometry(node.attrs, spatial, {}, node.attrs.get_int("ceil_mode", 0) != 0, what(node));
  std::vector<int64_t> out = {x.shape[0], x.shape[1]};
  out.insert(out.end(), g.output.begin(), g.output.end());
  set_out(node, graph, 0, Shape(out), x.dtype);
  if (node.outputs.size() > 1) set_out(node, graph, 1, Shape(out), DType::i64);  // Indices
  return true;
}

bool average_pool_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  VX_CHECK(x.shape.rank() >= 3, InvalidArgument, what(node), ": input ", x.shape.str(), " must be N,C,spatial...");
  VX_CHECK(node.attrs.has("kernel_shape"), InvalidArgument, what(node), ": kernel_shape is required");
  std::vector<int64_t> spatial(x.shape.begin() + 2, x.shape.end());
  WindowGeometry g = window_geometry(node.attrs, spatial, {}, node.attrs.get_int("ceil_mode", 0) != 0, what(node));
  std::vector<int64_t> out = {x.shape[0], x.shape[1]};
  out.insert(out.end(), g.output.begin(), g.output.end());
  set_out(node, graph, 0, Shape(out), x.dtype);
  return true;
}

bool global_pool_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  VX_CHECK(x.shape.rank() >= 2, InvalidArgument, what(node), ": input ", x.shape.str(), " must be N,C,...");
  std::vector<int64_t> out(x.shape.rank(), 1);
  out[0] = x.shape[0];
  out[1] = x.shape[1];
  set_out(node, graph, 0, Shape(out), x.dtype);
  return true;
}

// Resize (opset 10: X, scales; opset 11+: X, roi, scales, sizes). Only constant scales / sizes
// give a shape at plan time.
// Resize and Upsample with constant scales or sizes: resize_axes, as the kernels compute it (axes,
// keep_aspect_ratio_policy, the legacy forms).
bool resize_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  for (size_t i = 1; i < node.inputs.size(); ++i)
    if (node.inputs[i] != kNoValue && !graph.value(node.inputs[i]).is_constant()) return false;
  const bool legacy = resize_is_legacy(node, graph.opset(""));
  const ResizeValues v = read_resize_values(node, legacy, [&](size_t i) -> const Tensor* {
    return node.input(i) == kNoValue ? nullptr : &graph.value(node.input(i)).constant;
  });
  if (v.scales.empty() && v.sizes.empty()) return false;
  const ResizeAxes axes = resize_axes(x.shape.dims(), node.attrs, v.scales, v.sizes, v.roi, what(node));
  set_out(node, graph, 0, Shape(axes.out_dims), x.dtype);
  return true;
}

bool concat_shape(const Node& node, Graph& graph) {
  VX_CHECK(!node.inputs.empty(), InvalidArgument, what(node), ": no inputs");
  Shape out = in(node, graph, 0).shape;
  const int64_t rank = int64_t(out.rank());
  const int64_t axis = normalized_axis(node, node.attrs.get_int("axis", 1), rank);
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    const Shape& s = in(node, graph, i).shape;
    VX_CHECK(int64_t(s.rank()) == rank, InvalidArgument, what(node), ": input ", i, " has shape ", s.str(),
             ", input 0 has ", out.str());
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        VX_CHECK(s[size_t(d)] == out[size_t(d)], InvalidArgument, what(node), ": input ", i, " has shape ", s.str(),
                 ", input 0 has ", in(node, graph, 0).shape.str());
    out[size_t(axis)] += s[size_t(axis)];
  }
  set_out(node, graph, 0, out, in(node, graph, 0).dtype);
  return true;
}

bool gather_shape(const Node& node, Graph& graph) {
  const Value& data = in(node, graph, 0);
  const Shape& indices = in(node, graph, 1).shape;
  const int64_t axis = normalized_axis(node, node.attrs.get_int("axis", 0), int64_t(data.shape.rank()));
  std::vector<int64_t> out(data.shape.begin(), data.shape.begin() + axis);
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), data.shape.begin() + axis + 1, data.shape.end());
  set_out(node, graph, 0, Shape(out), data.dtype);
  return true;
}

// ReduceMean & co.: axes from the attribute, or (ReduceSum 13+, all reductions 18+) the input.
bool reduce_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  std::optional<std::vector<int64_t>> axes = axes_of(node, graph, 1);
  if (!axes) return false;
  const int64_t rank = int64_t(x.shape.rank());
  const bool keep = node.attrs.get_int("keepdims", 1) != 0;
  if (axes->empty() && node.attrs.get_int("noop_with_empty_axes", 0) != 0) {
    set_out(node, graph, 0, x.shape, x.dtype);
    return true;
  }
  std::vector<bool> reduced(size_t(rank), axes->empty());
  for (int64_t a : *axes) reduced[size_t(normalized_axis(node, a, rank))] = true;
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[size_t(d)]) out.push_back(x.shape[size_t(d)]);
    else if (keep) out.push_back(1);
  }
  set_out(node, graph, 0, Shape(out), x.dtype);
  return true;
}

// Split: sizes from the constant `split` input (opset 13+) or attribute, else equal parts.
bool split_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  const int64_t axis = normalized_axis(node, node.attrs.get_int("axis", 0), int64_t(x.shape.rank()));
  const int64_t extent = x.shape[size_t(axis)];
  std::vector<int64_t> sizes;
  if (node.attrs.has("split")) {
    sizes = node.attrs.get_ints("split");
  } else if (node.input(1) != kNoValue) {
    std::optional<std::vector<int64_t>> given = constant_ints(node, graph, 1);
    if (!given) return false;
    sizes = *given;
  } else {
    const int64_t parts = int64_t(node.outputs.size());
    const int64_t each = (extent + parts - 1) / parts;  // the last part may be smaller (opset 18)
    for (int64_t p = 0; p < parts; ++p) sizes.push_back(std::max<int64_t>(0, std::min(each, extent - p * each)));
  }
  VX_CHECK(sizes.size() == node.outputs.size(), InvalidArgument, what(node), ": ", sizes.size(), " sizes for ",
           node.outputs.size(), " outputs");
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  VX_CHECK(total == extent, InvalidArgument, what(node), ": sizes add up to ", total, ", not ", extent);
  for (size_t i = 0; i < sizes.size(); ++i) {
    Shape out = x.shape;
    out[size_t(axis)] = sizes[i];
    set_out(node, graph, i, out, x.dtype);
  }
  return true;
}

bool shape_shape(const Node& node, Graph& graph) {
  const int64_t rank = int64_t(in(node, graph, 0).shape.rank());
  int64_t start = node.attrs.get_int("start", 0), end = node.attrs.get_int("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  set_out(node, graph, 0, Shape({std::max<int64_t>(end - start, 0)}), DType::i64);
  return true;
}

// Slice with constant operands (inputs from opset 10, attributes before).
bool slice_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  std::optional<SliceOperands> o = constant_slice_operands(node, graph);
  if (!o) return false;
  std::vector<int64_t> dims;
  for (const SliceAxis& a : slice_geometry(x.shape.dims(), std::move(*o), what(node))) dims.push_back(a.count);
  set_out(node, graph, 0, Shape(dims), x.dtype);
  return true;
}

// Pad with constant pads (and axes, opset 18), or the pads attribute before opset 11.
bool pad_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  const int64_t rank = int64_t(x.shape.rank());
  std::optional<std::vector<int64_t>> pads = node.input(1) != kNoValue ? constant_ints(node, graph, 1)
                                                                         : node.attrs.get_ints("pads");
  if (!pads) return false;
  std::vector<int64_t> axes;
  if (node.input(3) != kNoValue) {
    const auto given = constant_ints(node, graph, 3);
    if (!given) return false;
    for (int64_t a : *given) axes.push_back(normalized_axis(node, a, rank));
  } else {
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  VX_CHECK(pads->size() == 2 * axes.size(), InvalidArgument, what(node), ": ", pads->size(), " pads for ", axes.size(),
           " axes");
  std::vector<int64_t> dims = x.shape.dims();
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t& d = dims[size_t(axes[i])];
    d += (*pads)[i] + (*pads)[i + axes.size()];
    VX_CHECK(d >= 0, InvalidArgument, what(node), ": pads make axis ", axes[i], " negative");
  }
  set_out(node, graph, 0, Shape(dims), x.dtype);
  return true;
}

bool expand_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  const auto target = constant_ints(node, graph, 1);
  if (!target) return false;
  set_out(node, graph, 0, broadcast(node, x.shape, Shape(*target)), x.dtype);
  return true;
}

bool tile_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  const auto repeats = constant_ints(node, graph, 1);
  if (!repeats) return false;
  VX_CHECK(repeats->size() == x.shape.rank(), InvalidArgument, what(node), ": ", repeats->size(), " repeats for rank ",
           x.shape.rank());
  std::vector<int64_t> dims = x.shape.dims();
  for (size_t i = 0; i < dims.size(); ++i) {
    VX_CHECK((*repeats)[i] >= 0, InvalidArgument, what(node), ": negative repeat ", (*repeats)[i]);
    dims[i] *= (*repeats)[i];
  }
  set_out(node, graph, 0, Shape(dims), x.dtype);
  return true;
}

}  // namespace

std::optional<std::vector<int64_t>> axes_of(const Node& node, const Graph& graph, size_t input) {
  if (node.attrs.has("axes")) return node.attrs.get_ints("axes");
  if (node.input(input) == kNoValue) return std::vector<int64_t>{};
  return constant_ints(node, graph, input);
}

std::optional<std::vector<int64_t>> constant_ints(const Node& node, const Graph& graph, size_t i) {
  if (node.input(i) == kNoValue || !graph.value(node.input(i)).is_constant()) return std::nullopt;
  const Tensor& t = graph.value(node.input(i)).constant;
  std::vector<int64_t> v(size_t(t.numel()));
  for (int64_t k = 0; k < t.numel(); ++k)
    v[size_t(k)] = t.dtype() == DType::i64 ? static_cast<const int64_t*>(t.raw())[k] : int64_t(t.get(k));
  return v;
}

// QuantizeLinear: x's shape, the zero point's type (uint8 without one).
bool quantize_shape(const Node& node, Graph& graph) {
  const DType to = node.input(2) != kNoValue ? in(node, graph, 2).dtype : DType::u8;
  set_out(node, graph, 0, in(node, graph, 0).shape, to);
  return true;
}

// DequantizeLinear: x's shape, the scale's type.
bool dequantize_shape(const Node& node, Graph& graph) {
  set_out(node, graph, 0, in(node, graph, 0).shape, in(node, graph, 1).dtype);
  return true;
}

// CastLike: the input's shape, the target's type.
bool cast_like_shape(const Node& node, Graph& graph) {
  set_out(node, graph, 0, in(node, graph, 0).shape, in(node, graph, 1).dtype);
  return true;
}

// IsInf, IsNaN: the input's shape, bool.
bool same_shape_bool(const Node& node, Graph& graph) {
  set_out(node, graph, 0, in(node, graph, 0).shape, DType::boolean);
  return true;
}

// GatherElements: the indices' shape, the data's type.
bool gather_elements_shape(const Node& node, Graph& graph) {
  set_out(node, graph, 0, in(node, graph, 1).shape, in(node, graph, 0).dtype);
  return true;
}

// ArgMax, ArgMin: the axis reduced to 1 or dropped, int64.
bool arg_reduce_shape(const Node& node, Graph& graph) {
  const Shape& x = in(node, graph, 0).shape;
  const int64_t axis = normalized_axis(node, node.attrs.get_int("axis", 0), int64_t(x.rank()));
  std::vector<int64_t> out;
  for (int64_t d = 0; d < int64_t(x.rank()); ++d) {
    if (d != axis) out.push_back(x[size_t(d)]);
    else if (node.attrs.get_int("keepdims", 1) != 0) out.push_back(1);
  }
  set_out(node, graph, 0, Shape(out), DType::i64);
  return true;
}

// DepthToSpace / SpaceToDepth of NCHW: channels traded for blocksize x blocksize pixels. Extents
// that do not divide are left to the kernel to report.
bool depth_to_space_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  const int64_t b = node.attrs.get_int("blocksize", 0);
  if (x.shape.rank() != 4 || b <= 0 || x.shape[1] % (b * b) != 0) return false;
  set_out(node, graph, 0, Shape{x.shape[0], x.shape[1] / (b * b), x.shape[2] * b, x.shape[3] * b}, x.dtype);
  return true;
}
bool space_to_depth_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  const int64_t b = node.attrs.get_int("blocksize", 0);
  if (x.shape.rank() != 4 || b <= 0 || x.shape[2] % b != 0 || x.shape[3] % b != 0) return false;
  set_out(node, graph, 0, Shape{x.shape[0], x.shape[1] * b * b, x.shape[2] / b, x.shape[3] / b}, x.dtype);
  return true;
}

// MatMulInteger: MatMul's shape, int32.
bool matmul_integer_shape(const Node& node, Graph& graph) {
  set_out(node, graph, 0, matmul_shape(in(node, graph, 0).shape, in(node, graph, 1).shape, what(node)).out, DType::i32);
  return true;
}

// QLinearMatMul (a, a_scale, a_zero, b, b_scale, b_zero, y_scale, y_zero): MatMul's shape, y_zero's type.
bool qlinear_matmul_shape(const Node& node, Graph& graph) {
  set_out(node, graph, 0, matmul_shape(in(node, graph, 0).shape, in(node, graph, 3).shape, what(node)).out,
          in(node, graph, 7).dtype);
  return true;
}

// ConvInteger (x, w, ...): Conv's shape, int32. QLinearConv (x, x_scale, x_zero, w, w_scale, w_zero,
// y_scale, y_zero, B): Conv's shape, y_zero's type.
bool conv_integer_shape(const Node& node, Graph& graph) {
  const Shape& x = in(node, graph, 0).shape;
  set_out(node, graph, 0, conv_output(node, x, in(node, graph, 1).shape, x.rank() > 1 ? x[1] : -1), DType::i32);
  return true;
}
bool qlinear_conv_shape(const Node& node, Graph& graph) {
  const Shape& x = in(node, graph, 0).shape;
  set_out(node, graph, 0, conv_output(node, x, in(node, graph, 3).shape, x.rank() > 1 ? x[1] : -1),
          in(node, graph, 7).dtype);
  return true;
}

// LSTM / GRU / RNN (X [seq, batch, input], or [batch, seq, input] with layout 1): Y [seq, directions,
// batch, hidden] (layout 1: [batch, seq, directions, hidden]), Y_h and Y_c [directions, batch,
// hidden] (layout 1: [batch, directions, hidden]).
bool recurrent_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  const int64_t hidden = node.attrs.get_int("hidden_size", 0);
  if (x.shape.rank() != 3 || hidden <= 0) return false;
  const int64_t directions = node.attrs.get_string("direction", "forward") == "bidirectional" ? 2 : 1;
  const bool batch_first = node.attrs.get_int("layout", 0) != 0;
  const int64_t seq = batch_first ? x.shape[1] : x.shape[0], batch = batch_first ? x.shape[0] : x.shape[1];
  set_out(node, graph, 0, batch_first ? Shape{batch, seq, directions, hidden} : Shape{seq, directions, batch, hidden},
          x.dtype);
  for (size_t i = 1; i < 3; ++i)
    set_out(node, graph, i, batch_first ? Shape{batch, directions, hidden} : Shape{directions, batch, hidden}, x.dtype);
  return true;
}

// GatherND (data rank r, indices rank q, batch_dims b): indices' shape without its last axis, then
// data's axes after the b batch axes and the indexed ones.
bool gather_nd_shape(const Node& node, Graph& graph) {
  const Value& data = in(node, graph, 0);
  const Shape& indices = in(node, graph, 1).shape;
  const int64_t b = node.attrs.get_int("batch_dims", 0);
  if (indices.rank() < 1) return false;
  const int64_t k = indices[indices.rank() - 1];
  if (b < 0 || k < 1 || b + k > int64_t(data.shape.rank())) return false;  // the kernel reports it
  std::vector<int64_t> out(indices.begin(), indices.end() - 1);
  out.insert(out.end(), data.shape.begin() + b + k, data.shape.end());
  set_out(node, graph, 0, Shape(out), data.dtype);
  return true;
}

// OneHot with a constant depth: the indices' shape with the depth inserted at `axis`, the values' type.
bool one_hot_shape(const Node& node, Graph& graph) {
  const Shape& indices = in(node, graph, 0).shape;
  const std::optional<std::vector<int64_t>> depth = constant_ints(node, graph, 1);
  if (!depth || depth->size() != 1 || (*depth)[0] < 1) return false;
  const int64_t axis = normalized_axis(node, node.attrs.get_int("axis", -1), int64_t(indices.rank()) + 1);
  std::vector<int64_t> out = indices.dims();
  out.insert(out.begin() + axis, (*depth)[0]);
  set_out(node, graph, 0, Shape(out), in(node, graph, 2).dtype);
  return true;
}

// Size: an int64 scalar.
bool size_shape(const Node& node, Graph& graph) {
  set_out(node, graph, 0, Shape(std::vector<int64_t>{}), DType::i64);
  return true;
}

// Einsum: the equation resolved against the operands' shapes (ops/einsum_equation.h).
bool einsum_shape(const Node& node, Graph& graph) {
  std::vector<Shape> operands;
  for (size_t i = 0; i < node.inputs.size(); ++i) operands.push_back(in(node, graph, i).shape);
  const EinsumEquation e = parse_einsum_equation(node.attrs.get_string("equation", ""), operands, what(node));
  set_out(node, graph, 0, e.output_shape(), in(node, graph, 0).dtype);
  return true;
}

// TopK with a constant K: values and int64 indices, the axis cut to K (K beyond the extent is left
// to the kernel to report).
bool top_k_shape(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  const std::optional<std::vector<int64_t>> k = constant_ints(node, graph, 1);
  if (!k || k->size() != 1) return false;
  const int64_t axis = normalized_axis(node, node.attrs.get_int("axis", -1), int64_t(x.shape.rank()));
  if ((*k)[0] < 0 || (*k)[0] > x.shape[size_t(axis)]) return false;
  std::vector<int64_t> out = x.shape.dims();
  out[size_t(axis)] = (*k)[0];
  set_out(node, graph, 0, Shape(out), x.dtype);
  set_out(node, graph, 1, Shape(out), DType::i64);
  return true;
}

// Only output 0 (BatchNormalization's and Dropout's other outputs are training-mode extras).
bool same_shape_as_first_input(const Node& node, Graph& graph) {
  const Value& x = in(node, graph, 0);
  set_out(node, graph, 0, x.shape, x.dtype);
  return true;
}

// Unary ops whose output has the input's shape and dtype.
#define VX_SAME_SHAPE(tag, op) VX_REGISTER_SHAPE_FN(tag, op, same_shape_as_first_input)
VX_SAME_SHAPE(relu, "Relu");
VX_SAME_SHAPE(sigmoid, "Sigmoid");
VX_SAME_SHAPE(tanh, "Tanh");
VX_SAME_SHAPE(exp, "Exp");
VX_SAME_SHAPE(log, "Log");
VX_SAME_SHAPE(sqrt, "Sqrt");
VX_SAME_SHAPE(abs, "Abs");
VX_SAME_SHAPE(neg, "Neg");
VX_SAME_SHAPE(erf, "Erf");
VX_SAME_SHAPE(reciprocal, "Reciprocal");
VX_SAME_SHAPE(floor, "Floor");
VX_SAME_SHAPE(ceil, "Ceil");
VX_SAME_SHAPE(leaky_relu, "LeakyRelu");
VX_SAME_SHAPE(elu, "Elu");
VX_SAME_SHAPE(selu, "Selu");
VX_SAME_SHAPE(hard_sigmoid, "HardSigmoid");
VX_SAME_SHAPE(hard_swish, "HardSwish");
VX_SAME_SHAPE(softplus, "Softplus");
VX_SAME_SHAPE(clip, "Clip");
VX_SAME_SHAPE(identity, "Identity");
VX_SAME_SHAPE(dropout, "Dropout");
VX_SAME_SHAPE(softmax, "Softmax");
VX_SAME_SHAPE(log_softmax, "LogSoftmax");
VX_SAME_SHAPE(batch_norm, "BatchNormalization");
VX_SAME_SHAPE(instance_norm, "InstanceNormalization");
VX_SAME_SHAPE(layer_norm, "LayerNormalization");
VX_SAME_SHAPE(lrn, "LRN");
VX_SAME_SHAPE(round, "Round");
VX_SAME_SHAPE(sign, "Sign");
VX_SAME_SHAPE(sin, "Sin");
VX_SAME_SHAPE(cos, "Cos");
VX_SAME_SHAPE(tan, "Tan");
VX_SAME_SHAPE(asin, "Asin");
VX_SAME_SHAPE(acos, "Acos");
VX_SAME_SHAPE(atan, "Atan");
VX_SAME_SHAPE(sinh, "Sinh");
VX_SAME_SHAPE(cosh, "Cosh");
VX_SAME_SHAPE(asinh, "Asinh");
VX_SAME_SHAPE(acosh, "Acosh");
VX_SAME_SHAPE(atanh, "Atanh");
VX_SAME_SHAPE(softsign, "Softsign");
VX_SAME_SHAPE(celu, "Celu");
VX_SAME_SHAPE(shrink, "Shrink");
VX_SAME_SHAPE(thresholded_relu, "ThresholdedRelu");
VX_SAME_SHAPE(gelu, "Gelu");
VX_SAME_SHAPE(not_op, "Not");
VX_SAME_SHAPE(hardmax, "Hardmax");
VX_SAME_SHAPE(cumsum, "CumSum");
VX_SAME_SHAPE(trilu, "Trilu");
VX_SAME_SHAPE(lp_normalization, "LpNormalization");
VX_SAME_SHAPE(reverse_sequence, "ReverseSequence");
#undef VX_SAME_SHAPE

VX_REGISTER_SHAPE_FN(add, "Add", arithmetic_shape);
VX_REGISTER_SHAPE_FN(sub, "Sub", arithmetic_shape);
VX_REGISTER_SHAPE_FN(mul, "Mul", arithmetic_shape);
VX_REGISTER_SHAPE_FN(div, "Div", arithmetic_shape);
VX_REGISTER_SHAPE_FN(pow, "Pow", arithmetic_shape);
VX_REGISTER_SHAPE_FN(max, "Max", arithmetic_shape);
VX_REGISTER_SHAPE_FN(min, "Min", arithmetic_shape);
VX_REGISTER_SHAPE_FN(sum, "Sum", arithmetic_shape);
VX_REGISTER_SHAPE_FN(mean, "Mean", arithmetic_shape);
VX_REGISTER_SHAPE_FN(prelu, "PRelu", same_shape_as_first_input);  // slope broadcasts to X (or legacy axis)
VX_REGISTER_SHAPE_FN(equal, "Equal", comparison_shape);
VX_REGISTER_SHAPE_FN(less, "Less", comparison_shape);
VX_REGISTER_SHAPE_FN(greater, "Greater", comparison_shape);
VX_REGISTER_SHAPE_FN(less_or_equal, "LessOrEqual", comparison_shape);
VX_REGISTER_SHAPE_FN(greater_or_equal, "GreaterOrEqual", comparison_shape);
VX_REGISTER_SHAPE_FN(and_op, "And", comparison_shape);
VX_REGISTER_SHAPE_FN(or_op, "Or", comparison_shape);
VX_REGISTER_SHAPE_FN(xor_op, "Xor", comparison_shape);
VX_REGISTER_SHAPE_FN(where, "Where", where_shape);
VX_REGISTER_SHAPE_FN(cast, "Cast", cast_shape);
VX_REGISTER_SHAPE_FN(matmul, "MatMul", matmul_op_shape);
VX_REGISTER_SHAPE_FN(gemm, "Gemm", gemm_op_shape);
VX_REGISTER_SHAPE_FN(transpose, "Transpose", transpose_shape);
VX_REGISTER_SHAPE_FN(reshape, "Reshape", reshape_shape);
VX_REGISTER_SHAPE_FN(flatten, "Flatten", flatten_shape);
VX_REGISTER_SHAPE_FN(unsqueeze, "Unsqueeze", unsqueeze_shape);
VX_REGISTER_SHAPE_FN(squeeze, "Squeeze", squeeze_shape);
VX_REGISTER_SHAPE_FN(conv, "Conv", conv_shape);
VX_REGISTER_SHAPE_FN(fused_conv, kFusedConv, fused_conv_shape);
VX_REGISTER_SHAPE_FN(max_pool, "MaxPool", max_pool_shape);
VX_REGISTER_SHAPE_FN(average_pool, "AveragePool", average_pool_shape);
VX_REGISTER_SHAPE_FN(global_average_pool, "GlobalAveragePool", global_pool_shape);
VX_REGISTER_SHAPE_FN(global_max_pool, "GlobalMaxPool", global_pool_shape);
VX_REGISTER_SHAPE_FN(resize, "Resize", resize_shape);
VX_REGISTER_SHAPE_FN(upsample, "Upsample", resize_shape);
VX_REGISTER_SHAPE_FN(concat, "Concat", concat_shape);
VX_REGISTER_SHAPE_FN(gather, "Gather", gather_shape);
VX_REGISTER_SHAPE_FN(reduce_mean, "ReduceMean", reduce_shape);
VX_REGISTER_SHAPE_FN(reduce_sum, "ReduceSum", reduce_shape);
VX_REGISTER_SHAPE_FN(reduce_max, "ReduceMax", reduce_shape);
VX_REGISTER_SHAPE_FN(reduce_min, "ReduceMin", reduce_shape);
VX_REGISTER_SHAPE_FN(shape, "Shape", shape_shape);
VX_REGISTER_SHAPE_FN(split, "Split", split_shape);
VX_REGISTER_SHAPE_FN(slice, "Slice", slice_shape);
VX_REGISTER_SHAPE_FN(pad, "Pad", pad_shape);
VX_REGISTER_SHAPE_FN(expand, "Expand", expand_shape);
VX_REGISTER_SHAPE_FN(tile, "Tile", tile_shape);
VX_REGISTER_SHAPE_FN(mod, "Mod", arithmetic_shape);
VX_REGISTER_SHAPE_FN(bitshift, "BitShift", arithmetic_shape);
VX_REGISTER_SHAPE_FN(is_inf, "IsInf", same_shape_bool);
VX_REGISTER_SHAPE_FN(is_nan, "IsNaN", same_shape_bool);
VX_REGISTER_SHAPE_FN(cast_like, "CastLike", cast_like_shape);
VX_REGISTER_SHAPE_FN(quantize_linear, "QuantizeLinear", quantize_shape);
VX_REGISTER_SHAPE_FN(dequantize_linear, "DequantizeLinear", dequantize_shape);
VX_REGISTER_SHAPE_FN(matmul_integer, "MatMulInteger", matmul_integer_shape);
VX_REGISTER_SHAPE_FN(qlinear_matmul, "QLinearMatMul", qlinear_matmul_shape);
VX_REGISTER_SHAPE_FN(conv_integer, "ConvInteger", conv_integer_shape);
VX_REGISTER_SHAPE_FN(qlinear_conv, "QLinearConv", qlinear_conv_shape);
VX_REGISTER_SHAPE_FN(gather_elements, "GatherElements", gather_elements_shape);
VX_REGISTER_SHAPE_FN(arg_max, "ArgMax", arg_reduce_shape);
VX_REGISTER_SHAPE_FN(arg_min, "ArgMin", arg_reduce_shape);
VX_REGISTER_SHAPE_FN(depth_to_space, "DepthToSpace", depth_to_space_shape);
VX_REGISTER_SHAPE_FN(space_to_depth, "SpaceToDepth", space_to_depth_shape);
VX_REGISTER_SHAPE_FN(reduce_prod, "ReduceProd", reduce_shape);
VX_REGISTER_SHAPE_FN(reduce_sum_square, "ReduceSumSquare", reduce_shape);
VX_REGISTER_SHAPE_FN(reduce_log_sum, "ReduceLogSum", reduce_shape);
VX_REGISTER_SHAPE_FN(reduce_log_sum_exp, "ReduceLogSumExp", reduce_shape);
VX_REGISTER_SHAPE_FN(lstm, "LSTM", recurrent_shape);
VX_REGISTER_SHAPE_FN(gru, "GRU", recurrent_shape);
VX_REGISTER_SHAPE_FN(rnn, "RNN", recurrent_shape);
VX_REGISTER_SHAPE_FN(top_k, "TopK", top_k_shape);
VX_REGISTER_SHAPE_FN(einsum, "Einsum", einsum_shape);
VX_REGISTER_SHAPE_FN(gather_nd, "GatherND", gather_nd_shape);
VX_REGISTER_SHAPE_FN(one_hot, "OneHot", one_hot_shape);
VX_REGISTER_SHAPE_FN(size, "Size", size_shape);
VX_REGISTER_SHAPE_FN(scatter, "Scatter", same_shape_as_first_input);
VX_REGISTER_SHAPE_FN(scatter_elements, "ScatterElements", same_shape_as_first_input);
VX_REGISTER_SHAPE_FN(scatter_nd, "ScatterND", same_shape_as_first_input);

}  // namespace vx

// Reference kernels for ONNX's data-movement ops: Transpose, Reshape, Squeeze, Unsqueeze, Flatten,
// Split, Slice, Expand, DepthToSpace, SpaceToDepth (Gather*, Scatter*, Pad and Tile have their own
// files). They move bytes, so they work for every dtype; each follows the ONNX spec across opsets
// (attributes that became inputs, negative axes).
#include <algorithm>
#include <cstring>
#include <numeric>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/kernel_util.h"
#include "ops/slice_geometry.h"

namespace vx::cpu::ref {
namespace {

// An optional integer-list operand: the input when present (newer opsets), else the attribute.
std::vector<int64_t> ints_from_input_or_attr(KernelContext& ctx, size_t input, const std::string& attr) {
  if (ctx.has_input(input)) return read_ints(ctx.input(input));
  return ctx.node().attrs.get_ints(attr);
}

// Copies the input as is into an output of a new shape with the same element count.
void copy_reshaped(KernelContext& ctx, const std::vector<int64_t>& dims) {
  const Tensor& x = ctx.input(0);
  Shape shape(dims);
  VX_CHECK(shape.numel() == x.numel(), InvalidArgument, node_label(ctx), ": cannot reshape ", x.shape().str(),
           " to ", shape.str());
  Tensor& y = ctx.output(0, x.dtype(), shape);
  if (x.nbytes() && y.raw() != x.raw()) std::memmove(y.raw(), x.raw(), x.nbytes());
}

void transpose_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  int64_t rank = int64_t(x.rank());
  const std::vector<int64_t> perm = transpose_perm(ctx.node().attrs.get_ints("perm"), size_t(rank));
  VX_CHECK(int64_t(perm.size()) == rank, InvalidArgument, node_label(ctx), ": perm has ", perm.size(),
           " entries for rank ", rank);
  std::vector<bool> seen(size_t(rank), false);
  std::vector<int64_t> in_strides = strides_of(x.shape()), dims(perm.size()), strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    int64_t p = normalize_axis(perm[i], rank, ctx);
    VX_CHECK(!seen[size_t(p)], InvalidArgument, node_label(ctx), ": perm repeats axis ", p);
    seen[size_t(p)] = true;
    dims[i] = x.dim(size_t(p));
    strides[i] = in_strides[size_t(p)];
  }
  Tensor& y = ctx.output(0, x.dtype(), Shape(dims));
  strided_copy(x.raw(), 0, strides, y.raw(), dims, dtype_size(x.dtype()));
}

void reshape_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  std::vector<int64_t> target = ints_from_input_or_attr(ctx, 1, "shape");
  bool allow_zero = ctx.node().attrs.get_int("allowzero", 0) != 0;
  int64_t inferred = -1, known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && !allow_zero) {
      VX_CHECK(i < x.rank(), InvalidArgument, node_label(ctx), ": shape entry ", i,
               " is 0 (copy) but the input has rank ", x.rank());
      target[i] = x.dim(i);
    }
    if (target[i] == -1) {
      VX_CHECK(inferred < 0, InvalidArgument, node_label(ctx), ": more than one -1 in the target shape");
      inferred = int64_t(i);
    } else {
      VX_CHECK(target[i] >= 0, InvalidArgument, node_label(ctx), ": negative extent ", target[i], " in the shape");
      known *= target[i];
    }
  }
  if (inferred >= 0) {
    VX_CHECK(known != 0 && x.numel() % known == 0, InvalidArgument, node_label(ctx), ": cannot infer -1 reshaping ",
             x.shape().str(), " to ", Shape(target).str());
    target[size_t(inferred)] = x.numel() / known;
  }
  copy_reshaped(ctx, target);
}

void squeeze_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  int64_t rank = int64_t(x.rank());
  std::vector<int64_t> axes = ints_from_input_or_attr(ctx, 1, "axes");
  std::vector<bool> drop(size_t(rank), false);
  if (axes.empty()) {
    for (int64_t i = 0; i < rank; ++i) drop[size_t(i)] = x.dim(size_t(i)) == 1;
  }
  for (int64_t a : axes) {
    int64_t n = normalize_axis(a, rank, ctx);
    VX_CHECK(x.dim(size_t(n)) == 1, InvalidArgument, node_label(ctx), ": cannot squeeze axis ", a, " of extent ",
             x.dim(size_t(n)));
    drop[size_t(n)] = true;
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop[size_t(i)]) dims.push_back(x.dim(size_t(i)));
  copy_reshaped(ctx, dims);
}

void unsqueeze_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  std::vector<int64_t> axes = ints_from_input_or_attr(ctx, 1, "axes");
  int64_t out_rank = int64_t(x.rank() + axes.size());
  std::vector<bool> inserted(size_t(out_rank), false);
  for (int64_t a : axes) {
    int64_t n = normalize_axis(a, out_rank, ctx);
    VX_CHECK(!inserted[size_t(n)], InvalidArgument, node_label(ctx), ": axis ", a, " repeated");
    inserted[size_t(n)] = true;
  }
  std::vector<int64_t> dims;
  size_t next = 0;
  for (int64_t i = 0; i < out_rank; ++i) dims.push_back(inserted[size_t(i)] ? 1 : x.dim(next++));
  copy_reshaped(ctx, dims);
}

void flatten_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  int64_t rank = int64_t(x.rank());
  int64_t axis = ctx.node().attrs.get_int("axis", 1);
  VX_CHECK(axis >= -rank && axis <= rank, InvalidArgument, node_label(ctx), ": axis ", axis,
           " is out of range for rank ", rank);
  if (axis < 0) axis += rank;
  const auto& d = x.shape().dims();
  copy_reshaped(ctx, {product(d, 0, size_t(axis)), product(d, size_t(axis), d.size())});
}

void split_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  int64_t rank = int64_t(x.rank());
  size_t axis = size_t(normalize_axis(ctx.node().attrs.get_int("axis", 0), rank, ctx));
  int64_t extent = x.dim(axis);
  size_t outputs = ctx.num_outputs();
  std::vector<int64_t> sizes = ints_from_input_or_attr(ctx, 1, "split");
  if (sizes.empty()) {
    if (ctx.node().attrs.has("num_outputs")) {  // opset 18: ceil-sized chunks, the last one smaller
      int64_t n = ctx.node().attrs.get_int("num_outputs", 1);
      VX_CHECK(n >= 1 && size_t(n) == outputs, InvalidArgument, node_label(ctx), ": num_outputs ", n,
               " but the node has ", outputs, " outputs");
      int64_t chunk = (extent + n - 1) / n;
      for (int64_t i = 0; i < n; ++i) sizes.push_back(std::max<int64_t>(0, std::min(chunk, extent - i * chunk)));
    } else {
      VX_CHECK(outputs > 0 && extent % int64_t(outputs) == 0, InvalidArgument, node_label(ctx), ": extent ", extent,
               " does not split evenly into ", outputs, " outputs");
      sizes.assign(outputs, extent / int64_t(outputs));
    }
  }
  VX_CHECK(sizes.size() == outputs, InvalidArgument, node_label(ctx), ": ", sizes.size(), " split sizes for ",
           outputs, " outputs");
  int64_t total = 0;
  for (int64_t s : sizes) {
    VX_CHECK(s >= 0, InvalidArgument, node_label(ctx), ": negative split size ", s);
    total += s;
  }
  VX_CHECK(total == extent, InvalidArgument, node_label(ctx), ": split sizes sum to ", total, ", the axis has ",
           extent);
  std::vector<int64_t> strides = strides_of(x.shape());
  int64_t offset = 0;
  for (size_t i = 0; i < outputs; ++i) {
    std::vector<int64_t> dims = x.shape().dims();
    dims[axis] = sizes[i];
    Tensor& y = ctx.output(i, x.dtype(), Shape(dims));
    strided_copy(x.raw(), offset * strides[axis], strides, y.raw(), dims, dtype_size(x.dtype()));
    offset += sizes[i];
  }
}

void slice_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  SliceOperands o;
  if (ctx.has_input(1)) {  // opset 10+: operands are inputs
    VX_CHECK(ctx.has_input(2), InvalidArgument, node_label(ctx), ": ends input missing");
    o.starts = read_ints(ctx.input(1));
    o.ends = read_ints(ctx.input(2));
    if (ctx.has_input(3)) o.axes = read_ints(ctx.input(3));
    if (ctx.has_input(4)) o.steps = read_ints(ctx.input(4));
  } else {  // opset 1: attributes
    o.starts = ctx.node().attrs.get_ints("starts");
    o.ends = ctx.node().attrs.get_ints("ends");
    o.axes = ctx.node().attrs.get_ints("axes");
  }
  const std::vector<SliceAxis> geometry = slice_geometry(x.shape().dims(), std::move(o), node_label(ctx));
  const std::vector<int64_t> in_strides = strides_of(x.shape());
  std::vector<int64_t> dims(geometry.size()), strides(geometry.size());
  int64_t base = 0;
  for (size_t a = 0; a < geometry.size(); ++a) {
    dims[a] = geometry[a].count;
    strides[a] = geometry[a].count > 1 ? in_strides[a] * geometry[a].step : 0;  // |step| < extent here
    base += geometry[a].start * in_strides[a];
  }
  Tensor& y = ctx.output(0, x.dtype(), Shape(dims));
  strided_copy(x.raw(), base, strides, y.raw(), dims, dtype_size(x.dtype()));
}

void expand_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Shape shape;
  VX_WITH_CONTEXT(node_label(ctx), shape = broadcast_shapes(x.shape(), Shape(read_ints(ctx.input(1)))));
  Tensor& y = ctx.output(0, x.dtype(), shape);
  strided_copy(x.raw(), 0, broadcast_strides(x.shape(), shape), y.raw(), shape.dims(), dtype_size(x.dtype()));
}

void depth_to_space_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.rank() == 4, InvalidArgument, node_label(ctx), ": expects NCHW input, got ", x.shape().str());
  int64_t b = ctx.node().attrs.get_int("blocksize", 0);
  std::string mode = ctx.node().attrs.get_string("mode", "DCR");
  int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  VX_CHECK(b > 0 && c % (b * b) == 0, InvalidArgument, node_label(ctx), ": channels ", c,
           " not divisible by blocksize^2 (blocksize ", b, ")");
  VX_CHECK(mode == "DCR" || mode == "CRD", Unsupported, node_label(ctx), ": unknown mode '", mode, "'");
  int64_t oc = c / (b * b), hw = h * w;
  // Output coordinates (n, oc, h, bh, w, bw); DCR reads channel (bh*b + bw)*oc + oc_i,
  // CRD reads channel oc_i*b*b + bh*b + bw.
  int64_t s_oc = mode == "DCR" ? hw : b * b * hw;
  int64_t s_bh = mode == "DCR" ? b * oc * hw : b * hw;
  int64_t s_bw = mode == "DCR" ? oc * hw : hw;
  std::vector<int64_t> view = {n, oc, h, b, w, b};
  std::vector<int64_t> strides = {c * hw, s_oc, w, s_bh, 1, s_bw};
  Tensor& y = ctx.output(0, x.dtype(), Shape{n, oc, h * b, w * b});
  strided_copy(x.raw(), 0, strides, y.raw(), view, dtype_size(x.dtype()));
}

void space_to_depth_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.rank() == 4, InvalidArgument, node_label(ctx), ": expects NCHW input, got ", x.shape().str());
  int64_t b = ctx.node().attrs.get_int("blocksize", 0);
  int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  VX_CHECK(b > 0 && h % b == 0 && w % b == 0, InvalidArgument, node_label(ctx), ": spatial extents ",
           x.shape().str(), " not divisible by blocksize ", b);
  // Output coordinates (n, bh, bw, c, oh, ow) read input (n, c, oh*b + bh, ow*b + bw).
  std::vector<int64_t> view = {n, b, b, c, h / b, w / b};
  std::vector<int64_t> strides = {c * h * w, w, 1, h * w, b * w, b};
  Tensor& y = ctx.output(0, x.dtype(), Shape{n, c * b * b, h / b, w / b});
  strided_copy(x.raw(), 0, strides, y.raw(), view, dtype_size(x.dtype()));
}

}  // namespace

VX_REGISTER_CPU_KERNEL(transpose, {"Transpose", "reference", 0, nullptr, transpose_kernel});
VX_REGISTER_CPU_KERNEL(reshape, {"Reshape", "reference", 0, nullptr, reshape_kernel});
VX_REGISTER_CPU_KERNEL(squeeze, {"Squeeze", "reference", 0, nullptr, squeeze_kernel});
VX_REGISTER_CPU_KERNEL(unsqueeze, {"Unsqueeze", "reference", 0, nullptr, unsqueeze_kernel});
VX_REGISTER_CPU_KERNEL(flatten, {"Flatten", "reference", 0, nullptr, flatten_kernel});
VX_REGISTER_CPU_KERNEL(split, {"Split", "reference", 0, nullptr, split_kernel});
VX_REGISTER_CPU_KERNEL(slice, {"Slice", "reference", 0, nullptr, slice_kernel});
VX_REGISTER_CPU_KERNEL(expand, {"Expand", "reference", 0, nullptr, expand_kernel});
VX_REGISTER_CPU_KERNEL(depth_to_space, {"DepthToSpace", "reference", 0, nullptr, depth_to_space_kernel});
VX_REGISTER_CPU_KERNEL(space_to_depth, {"SpaceToDepth", "reference", 0, nullptr, space_to_depth_kernel});

}  // namespace vx::cpu::ref

// Reference kernels for ONNX ops that select or place elements by position: Trilu, OneHot,
// Compress and EyeLike. Like the movement ops they move bytes where they can, so they work for
// every dtype.
#include <cstring>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/kernel_util.h"
#include "ops/onnx_dtype.h"

namespace vx::cpu::ref {
namespace {

void trilu_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.rank() >= 2, InvalidArgument, node_label(ctx), ": input must have rank >= 2, got ", x.shape().str());
  int64_t k = 0;
  if (ctx.has_input(1)) {
    std::vector<int64_t> kv = read_ints(ctx.input(1));
    VX_CHECK(kv.size() == 1, InvalidArgument, node_label(ctx), ": k must hold one value");
    k = kv[0];
  }
  bool upper = ctx.node().attrs.get_int("upper", 1) != 0;
  int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1), mats = rows * cols != 0 ? x.numel() / (rows * cols) : 0;
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  size_t elem = dtype_size(x.dtype());
  if (x.nbytes() && y.raw() != x.raw()) std::memmove(y.raw(), x.raw(), x.nbytes());
  char* p = static_cast<char*>(y.raw());
  for (int64_t m = 0; m < mats; ++m)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        bool keep = upper ? j - i >= k : j - i <= k;
        if (!keep) std::memset(p + ((m * rows + i) * cols + j) * int64_t(elem), 0, elem);
      }
}

void one_hot_kernel(KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  const Tensor& values = ctx.input(2);
  VX_CHECK(ctx.input(1).numel() == 1, InvalidArgument, node_label(ctx), ": depth must hold one value");
  int64_t depth = int64_t(ctx.input(1).get(0));
  VX_CHECK(depth >= 1, InvalidArgument, node_label(ctx), ": depth must be >= 1, got ", depth);
  VX_CHECK(values.numel() == 2, InvalidArgument, node_label(ctx), ": values must hold [off, on]");
  int64_t rank = int64_t(indices.rank());
  int64_t axis = ctx.node().attrs.get_int("axis", -1);
  VX_CHECK(axis >= -rank - 1 && axis <= rank, InvalidArgument, node_label(ctx), ": axis ", axis,
           " is out of range for output rank ", rank + 1);
  if (axis < 0) axis += rank + 1;
  std::vector<int64_t> dims = indices.shape().dims();
  dims.insert(dims.begin() + axis, depth);
  Tensor& y = ctx.output(0, values.dtype(), Shape(dims));
  int64_t outer = product(indices.shape().dims(), 0, size_t(axis));
  int64_t inner = product(indices.shape().dims(), size_t(axis), size_t(rank));
  size_t elem = dtype_size(values.dtype());
  const char* off = static_cast<const char*>(values.raw());
  const char* on = off + elem;
  char* dst = static_cast<char*>(y.raw());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t d = 0; d < depth; ++d)
      for (int64_t i = 0; i < inner; ++i) {
        // Indices may be float; negative ones count from the end; out-of-range ones select nothing.
        int64_t index = int64_t(indices.get(o * inner + i));
        if (index < 0) index += depth;
        std::memcpy(dst + ((o * depth + d) * inner + i) * int64_t(elem), index == d ? on : off, elem);
      }
}

void compress_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& condition = ctx.input(1);
  VX_CHECK(condition.rank() == 1, InvalidArgument, node_label(ctx), ": condition must be 1-D");
  const Attributes& attrs = ctx.node().attrs;
  // Without an axis the input is flattened first.
  std::vector<int64_t> dims = attrs.has("axis") ? x.shape().dims() : std::vector<int64_t>{x.numel()};
  size_t axis = attrs.has("axis") ? size_t(normalize_axis(attrs.get_int("axis", 0), int64_t(x.rank()), ctx)) : 0;
  int64_t extent = dims[axis];
  VX_CHECK(condition.numel() <= extent, InvalidArgument, node_label(ctx), ": condition has ", condition.numel(),
           " entries for an axis of ", extent);
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < condition.numel(); ++i)
    if (condition.get(i) != 0) kept.push_back(i);
  std::vector<int64_t> out_dims = dims;
  out_dims[axis] = int64_t(kept.size());
  Tensor& y = ctx.output(0, x.dtype(), Shape(out_dims));
  size_t block = size_t(product(dims, axis + 1, dims.size())) * dtype_size(x.dtype());
  int64_t outer = product(dims, 0, axis);
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(y.raw());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : kept) {
      std::memcpy(dst, src + (o * extent + i) * int64_t(block), block);
      dst += block;
    }
}

void eye_like_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.rank() == 2, InvalidArgument, node_label(ctx), ": input must be 2-D, got ", x.shape().str());
  const Attributes& attrs = ctx.node().attrs;
  DType dtype = x.dtype();
  if (attrs.has("dtype")) {
    std::optional<DType> t = dtype_from_onnx(attrs.get_int("dtype", 1));
    VX_CHECK(t.has_value(), Unsupported, node_label(ctx), ": unsupported dtype ", attrs.get_int("dtype", 1));
    dtype = *t;
  }
  int64_t k = attrs.get_int("k", 0);
  Tensor& y = ctx.output(0, dtype, x.shape());
  for (int64_t i = 0; i < x.dim(0); ++i)
    for (int64_t j = 0; j < x.dim(1); ++j) y.set(i * x.dim(1) + j, j - i == k ? 1.0 : 0.0);
}

}  // namespace

VX_REGISTER_CPU_KERNEL(trilu, {"Trilu", "reference", 0, nullptr, trilu_kernel});
VX_REGISTER_CPU_KERNEL(one_hot, {"OneHot", "reference", 0, nullptr, one_hot_kernel});
VX_REGISTER_CPU_KERNEL(compress, {"Compress", "reference", 0, nullptr, compress_kernel});
VX_REGISTER_CPU_KERNEL(eye_like, {"EyeLike", "reference", 0, nullptr, eye_like_kernel});

}  // namespace vx::cpu::ref

// Slice, Split and Expand of any element type of 1, 2, 4 or 8 bytes: the views of their input that
// the reference copies one row at a time on one thread, on the threaded strided copy
// (strided_copy.h). Slice's operands are read once when constant (exported shape arithmetic is
// folded before binding, so nearly all are), else when it runs; Split takes its
// sizes from the planned output shapes and hands a run whose input shape differs from the plan to
// the reference; Expand reads its int64 target shape when it runs. Exact (copies).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/fast/strided_copy.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/shape_rules.h"
#include "ops/slice_geometry.h"

namespace vx::cpu::fast {
namespace {

bool copyable(const Graph& g, ValueId id) {
  return id != kNoValue && strided_copy_supports(dtype_size(g.value(id).dtype));
}

bool slice_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] { return node.outputs.size() == 1 && copyable(g, node.input(0)); });
}

// An int32 / int64 operand of a Slice computed at run time.
std::vector<int64_t> operand_ints(const Tensor& t, const std::string& what) {
  std::vector<int64_t> v(size_t(t.numel()));
  if (t.dtype() == DType::i64) std::copy_n(t.data<int64_t>(), v.size(), v.begin());
  else if (t.dtype() == DType::i32) std::copy_n(t.data<int32_t>(), v.size(), v.begin());
  else
    fail(ErrorCode::InvalidArgument, cat(what, ": slice operands must be int32 or int64, not ", dtype_name(t.dtype())));
  return v;
}

// A Slice's copy for one input shape: constant operands give the same copy for every run whose
// input keeps its shape (a streaming model's every call), kept so that a run does not work it out
// again (Silero VAD: a call of 0.1 ms, allocations a quarter of it).
struct SliceCopy {
  Shape input;
  StridedCopy copy;
  Shape output;
};

SliceCopy slice_copy(const Shape& input, SliceOperands operands, const std::string& what) {
  const std::vector<SliceAxis> geometry = slice_geometry(input.dims(), std::move(operands), what);
  const std::vector<int64_t> in_strides = row_major_strides(input.dims());
  SliceCopy s{input, {}, {}};
  for (size_t a = 0; a < geometry.size(); ++a) {
    s.copy.dims.push_back(geometry[a].count);
    s.copy.strides.push_back(in_strides[a] * geometry[a].step);
    s.copy.base += geometry[a].start * in_strides[a];
  }
  s.output = Shape(s.copy.dims);
  return s;
}

KernelFn make_slice(const Node& node, const Graph& g) {
  return [constant = constant_slice_operands(node, g), what = cat("Slice '", node.name, "'"),
          last = std::make_shared<std::optional<SliceCopy>>()](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (constant) {
      if (!*last || (*last)->input != x.shape()) *last = slice_copy(x.shape(), *constant, what);
    } else {  // opset 10+ operands computed at run time
      VX_CHECK(ctx.has_input(1) && ctx.has_input(2), InvalidArgument, what, ": starts and ends are required");
      SliceOperands operands;
      operands.starts = operand_ints(ctx.input(1), what);
      operands.ends = operand_ints(ctx.input(2), what);
      if (ctx.has_input(3)) operands.axes = operand_ints(ctx.input(3), what);
      if (ctx.has_input(4)) operands.steps = operand_ints(ctx.input(4), what);
      *last = slice_copy(x.shape(), std::move(operands), what);
    }
    const SliceCopy& s = **last;
    Tensor& y = ctx.output(0, x.dtype(), s.output);
    run_strided_copy(s.copy, x.raw(), y.raw(), dtype_size(x.dtype()), ctx.pool());
  };
}

bool split_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] {
    if (!copyable(g, node.input(0)) || !known_shape(g, node.input(0)) || node.outputs.empty()) return false;
    if (node.input(1) != kNoValue && !g.value(node.input(1)).is_constant()) return false;  // sizes known when planned
    const Shape& in = g.value(node.input(0)).shape;
    const size_t axis = size_t(normalize_axis(node.attrs.get_int("axis", 0), int64_t(in.rank())));
    int64_t total = 0;
    for (ValueId out : node.outputs) {
      if (!known_shape(g, out) || g.value(out).shape.rank() != in.rank()) return false;
      total += g.value(out).shape[axis];
    }
    return total == in[axis];
  });
}

KernelFn make_split(const Node& node, const Graph& g) {
  const Shape in = g.value(node.input(0)).shape;
  const size_t axis = size_t(normalize_axis(node.attrs.get_int("axis", 0), int64_t(in.rank())));
  std::vector<Shape> outs;
  for (ValueId out : node.outputs) outs.push_back(g.value(out).shape);
  return [in, axis, outs, reference = reference_kernel_of(node)](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.shape() != in) return reference(ctx);
    const std::vector<int64_t> strides = row_major_strides(in.dims());
    int64_t offset = 0;
    for (size_t i = 0; i < outs.size(); ++i) {
      Tensor& y = ctx.output(i, x.dtype(), outs[i]);
      run_strided_copy({outs[i].dims(), strides, offset * strides[axis]}, x.raw(), y.raw(), dtype_size(x.dtype()),
                       ctx.pool());
      offset += outs[i][axis];
    }
  };
}

bool expand_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] {
    return node.outputs.size() == 1 && copyable(g, node.input(0)) && node.input(1) != kNoValue &&
           g.value(node.input(1)).dtype == DType::i64;
  });
}

void expand_fast(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& target = ctx.input(1);
  const int64_t* t = target.data<int64_t>();
  Shape shape;
  VX_WITH_CONTEXT(cat("Expand '", ctx.node().name, "'"),
                  shape = broadcast_shapes(x.shape(), Shape(std::vector<int64_t>(t, t + target.numel()))));
  Tensor& y = ctx.output(0, x.dtype(), shape);
  run_strided_copy({shape.dims(), broadcast_strides(x.shape(), shape), 0}, x.raw(), y.raw(), dtype_size(x.dtype()),
                   ctx.pool());
}

}  // namespace

VX_REGISTER_CPU_KERNEL(slice_fast, {"Slice", kFastVariant, 10, slice_supports, nullptr, make_slice});
VX_REGISTER_CPU_KERNEL(split_fast, {"Split", kFastVariant, 10, split_supports, nullptr, make_split});
VX_REGISTER_CPU_KERNEL(expand_fast, {"Expand", kFastVariant, 10, expand_supports, expand_fast});

}  // namespace vx::cpu::fast

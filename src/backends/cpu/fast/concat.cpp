// Concat, any dtype, the shapes the plan knows: each input's rows copied into the output's over the
// thread pool (copy_segments: pieces of at least 64 KiB). The reference copies on one thread; on
// the H200 machine's 16 cores the PP-OCR detector's Concat (4 x 1.6 MB) took 1.19 ms there, and
// SSDLite's head Concat was among its ten slowest nodes. A run whose input shapes differ from the
// planned ones goes to the reference kernel; declines inputs or outputs whose shapes the plan does
// not know (known_shape). The dtype is taken as it comes (a value's planned dtype may be a guess,
// as in the bodies of If).
#include <memory>

#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"

namespace vx::cpu::fast {
namespace {

bool concat_supports_unchecked(const Node& node, const Graph& g) {
  if (node.inputs.empty() || node.outputs.size() != 1 || !known_shape(g, node.outputs[0])) return false;
  const Value& y = g.value(node.outputs[0]);  // its dtype is not relied on: see make_concat
  const int64_t rank = int64_t(y.shape.rank());
  int64_t axis = node.attrs.get_int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return false;
  int64_t total = 0;
  for (ValueId id : node.inputs) {
    if (!known_shape(g, id) || g.value(id).shape.rank() != y.shape.rank()) return false;
    for (int64_t a = 0; a < rank; ++a)
      if (a != axis && g.value(id).shape[size_t(a)] != y.shape[size_t(a)]) return false;
    total += g.value(id).shape[size_t(axis)];
  }
  return total == y.shape[size_t(axis)];
}

bool concat_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] { return concat_supports_unchecked(node, g); });
}

KernelFn make_concat(const Node& node, const Graph& g) {
  const Value& y = g.value(node.outputs[0]);
  const int64_t rank = int64_t(y.shape.rank());
  int64_t axis = node.attrs.get_int("axis", 1);
  if (axis < 0) axis += rank;
  std::vector<Shape> inputs;
  for (ValueId id : node.inputs) inputs.push_back(g.value(id).shape);
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= y.shape[size_t(a)];
  for (int64_t a = axis + 1; a < rank; ++a) inner *= y.shape[size_t(a)];
  return [inputs, out = y.shape, outer, inner, axis, reference = reference_kernel_of(node)](KernelContext& ctx) {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (ctx.input(i).shape() != inputs[i]) return reference(ctx);
    const DType dtype = ctx.input(0).dtype();
    const size_t elem = dtype_size(dtype);
    std::vector<CopySegment> segments;
    Tensor& y = ctx.output(0, dtype, out);
    char* to = static_cast<char*>(y.raw());
    const size_t y_row = size_t(out[size_t(axis)] * inner) * elem;
    size_t column = 0;  // this input's byte offset inside an output row
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& x = ctx.input(i);
      VX_CHECK(x.dtype() == dtype, InvalidArgument, "Concat '", ctx.node().name, "': input ", i, " is ",
               dtype_name(x.dtype()), ", input 0 ", dtype_name(dtype));
      const size_t x_row = size_t(inputs[i][size_t(axis)] * inner) * elem;
      const char* from = static_cast<const char*>(x.raw());
      for (int64_t o = 0; o < outer; ++o) segments.push_back({to + size_t(o) * y_row + column, from + size_t(o) * x_row, x_row});
      column += x_row;
    }
    copy_segments(ctx.pool(), segments);
  };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(concat_fast, {"Concat", kFastVariant, 10, concat_supports, nullptr, make_concat});

}  // namespace vx::cpu::fast

// Ops that only move bytes, any dtype, with the shapes the plan knows: Concat, and the reshapes
// (Reshape, Flatten, Squeeze, Unsqueeze, Identity: the input's bytes under the planned output
// shape). The reference kernels copy on one thread; on the H200 machine's 16 cores the PP-OCR
// detector's Concat (4 x 1.6 MB) took 1.19 ms and SSDLite's head Concat / Reshapes 0.36 ms, among
// the ten slowest nodes. These split the copy over the pool in pieces of at least 64 KiB.
//
// The plan's shapes are trusted only where inference derives them from the inputs: a reshape's
// target must be constant (an attribute or a constant input), and a run whose input shapes differ
// from the planned ones (a declared [] in the body of an If stands for any shape) goes to the
// reference kernel. Declines nodes whose shapes are not known at plan time, and scalars (below).
// The dtype is taken as it comes (a value's planned dtype may be a guess too).
#include <algorithm>
#include <cstring>
#include <memory>

#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"

namespace vx::cpu::fast {
namespace {

constexpr size_t kMinPiece = size_t(64) << 10;  // below this a thread's wake-up costs more than the copy

struct CopySegment {
  char* to;
  const char* from;
  size_t bytes;
};

// Copies every segment, long ones cut into pieces so that the pool's threads share them.
void copy_segments(ThreadPool& pool, const std::vector<CopySegment>& segments) {
  size_t total = 0;
  for (const CopySegment& s : segments) total += s.bytes;
  const size_t piece = std::max(kMinPiece, total / size_t(4 * pool.size()) + 1);
  std::vector<CopySegment> pieces;
  for (const CopySegment& s : segments)
    for (size_t at = 0; at < s.bytes; at += piece)
      pieces.push_back({s.to + at, s.from + at, std::min(piece, s.bytes - at)});
  const int64_t grain = std::max<int64_t>(1, int64_t(kMinPiece / std::max<size_t>(1, total / std::max<size_t>(1, pieces.size()))));
  pool.parallel_for(int64_t(pieces.size()), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) std::memcpy(pieces[size_t(i)].to, pieces[size_t(i)].from, pieces[size_t(i)].bytes);
  }, grain);
}

// A shape the plan knows. Not rank 0: planning clears the dims of every computed value, and one
// declared [] (or of unknown rank) then reads as a known scalar even where inference knew nothing.
bool known(const Graph& g, ValueId id) {
  return id != kNoValue && g.value(id).shape.rank() > 0 && g.value(id).shape.is_known();
}

KernelFn reference_run(const Node& node) {
  const KernelEntry* reference = find_reference_kernel(node.op, node.domain);
  VX_CHECK(reference != nullptr && reference->run, Internal, "no reference kernel for ", node.op);
  return reference->run;
}

// ---- Concat ----

bool concat_supports_unchecked(const Node& node, const Graph& g) {
  if (node.inputs.empty() || node.outputs.size() != 1 || !known(g, node.outputs[0])) return false;
  const Value& y = g.value(node.outputs[0]);  // its dtype is not relied on: see make_concat
  const int64_t rank = int64_t(y.shape.rank());
  int64_t axis = node.attrs.get_int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return false;
  int64_t total = 0;
  for (ValueId id : node.inputs) {
    if (!known(g, id) || g.value(id).shape.rank() != y.shape.rank()) return false;
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
  return [inputs, out = y.shape, outer, inner, axis, reference = reference_run(node)](KernelContext& ctx) {
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

// ---- Reshape, Flatten, Squeeze, Unsqueeze, Identity ----

bool reshape_supports_unchecked(const Node& node, const Graph& g) {
  if (node.inputs.empty() || node.outputs.size() != 1 || !known(g, node.inputs[0]) || !known(g, node.outputs[0]))
    return false;
  // Reshape's shape, Squeeze's and Unsqueeze's axes: constant, so that inference derived the output.
  if (node.input(1) != kNoValue && !g.value(node.input(1)).is_constant()) return false;
  return g.value(node.inputs[0]).shape.numel() == g.value(node.outputs[0]).shape.numel();
}

bool reshape_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] { return reshape_supports_unchecked(node, g); });
}

KernelFn make_reshape(const Node& node, const Graph& g) {
  return [in = g.value(node.inputs[0]).shape, out = g.value(node.outputs[0]).shape,
          reference = reference_run(node)](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.shape() != in) return reference(ctx);
    Tensor& y = ctx.output(0, x.dtype(), out);
    if (x.nbytes() == 0 || y.raw() == x.raw()) return;
    copy_segments(ctx.pool(), {{static_cast<char*>(y.raw()), static_cast<const char*>(x.raw()), x.nbytes()}});
  };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(concat_fast, {"Concat", kFastVariant, 10, concat_supports, nullptr, make_concat});
VX_REGISTER_CPU_KERNEL(reshape_fast, {"Reshape", kFastVariant, 10, reshape_supports, nullptr, make_reshape});
VX_REGISTER_CPU_KERNEL(flatten_fast, {"Flatten", kFastVariant, 10, reshape_supports, nullptr, make_reshape});
VX_REGISTER_CPU_KERNEL(squeeze_fast, {"Squeeze", kFastVariant, 10, reshape_supports, nullptr, make_reshape});
VX_REGISTER_CPU_KERNEL(unsqueeze_fast, {"Unsqueeze", kFastVariant, 10, reshape_supports, nullptr, make_reshape});
VX_REGISTER_CPU_KERNEL(identity_fast, {"Identity", kFastVariant, 10, reshape_supports, nullptr, make_reshape});

}  // namespace vx::cpu::fast

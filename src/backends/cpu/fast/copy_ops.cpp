// Ops that only move bytes, any dtype, with the shapes the plan knows: Concat, and the reshapes
// (Reshape, Flatten, Squeeze, Unsqueeze, Identity: the input's bytes under the planned output
// shape). The reference kernels copy on one thread; on the H200 machine's 16 cores the PP-OCR
// detector's Concat (4 x 1.6 MB) took 1.19 ms and SSDLite's head Concat / Reshapes 0.36 ms, among
// the ten slowest nodes. These split the copy over the pool in pieces of at least 64 KiB.
//
// Declines nodes whose input or output shapes are not known at plan time (the reference works
// them out at run time), and a reshape whose planned output has another element count.
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

bool known(const Graph& g, ValueId id) { return id != kNoValue && g.value(id).shape.is_known(); }

// ---- Concat ----

bool concat_supports_unchecked(const Node& node, const Graph& g) {
  if (node.inputs.empty() || node.outputs.size() != 1 || !known(g, node.outputs[0])) return false;
  const Value& y = g.value(node.outputs[0]);
  const int64_t rank = int64_t(y.shape.rank());
  int64_t axis = node.attrs.get_int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return false;
  int64_t total = 0;
  for (ValueId id : node.inputs) {
    if (!known(g, id) || g.value(id).dtype != y.dtype || g.value(id).shape.rank() != y.shape.rank()) return false;
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
  const size_t elem = dtype_size(y.dtype);
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= y.shape[size_t(a)];
  for (int64_t a = axis + 1; a < rank; ++a) inner *= y.shape[size_t(a)];
  return [inputs, out = y.shape, dtype = y.dtype, elem, outer, inner, axis](KernelContext& ctx) {
    std::vector<CopySegment> segments;
    Tensor& y = ctx.output(0, dtype, out);
    char* to = static_cast<char*>(y.raw());
    const size_t y_row = size_t(out[size_t(axis)] * inner) * elem;
    size_t column = 0;  // this input's byte offset inside an output row
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& x = ctx.input(i);
      VX_CHECK(x.shape() == inputs[i] && x.dtype() == dtype, InvalidArgument, "Concat '", ctx.node().name, "': input ",
               i, " ", x.shape().str(), " differs from the planned ", inputs[i].str());
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
  const Value& x = g.value(node.inputs[0]);
  const Value& y = g.value(node.outputs[0]);
  return x.dtype == y.dtype && x.shape.numel() == y.shape.numel();
}

bool reshape_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] { return reshape_supports_unchecked(node, g); });
}

KernelFn make_reshape(const Node& node, const Graph& g) {
  return [in = g.value(node.inputs[0]).shape, out = g.value(node.outputs[0]).shape,
          dtype = g.value(node.outputs[0]).dtype](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    VX_CHECK(x.shape() == in && x.dtype() == dtype, InvalidArgument, ctx.node().op, " '", ctx.node().name, "': input ",
             x.shape().str(), " differs from the planned ", in.str());
    Tensor& y = ctx.output(0, dtype, out);
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

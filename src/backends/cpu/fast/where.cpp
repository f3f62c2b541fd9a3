// Where of any element type of 1, 2, 4 or 8 bytes with ONNX broadcasting (attention masks: a
// [1, 1, 1, L] or [L, L] condition against [B, H, L, L] scores and a scalar), over the thread pool.
// The three operands' broadcast strides are merged over the axes where all of them stay adjacent
// (merged_axes.h); rows of the merged shape are split between the threads, and a row whose operands
// have strides of 0 or 1 is a branch-free loop the compiler vectorises. Exact (a selection of bits).
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "backends/cpu/fast/merged_axes.h"
#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/fast/strided_copy.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/shape_rules.h"

namespace vx::cpu::fast {
namespace {

constexpr int64_t kSelectElementsPerTask = 65536;  // memory-bound: fewer are faster on one thread

// The output's extents and each operand's strides (condition, x, y; elements, 0 where broadcast),
// merged (merged_axes.h); one axis of one element when nothing is left.
MergedAxes selection_axes(const Shape& shape, const std::vector<std::vector<int64_t>>& strides) {
  MergedAxes m = merge_axes(shape.dims(), strides);
  if (m.dims.empty()) return {{1}, {{0}, {0}, {0}}};
  return m;
}

// One row, selecting bits by a mask (no branch to mispredict on a random condition); strides of 0
// or 1 known at compile time (a scalar or broadcast operand, a contiguous one) let the compiler
// vectorise it. T is an unsigned integer of the element's size.
template <class T, int sc, int sx, int sy>
void select_row(const uint8_t* c, const T* x, const T* y, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const T mask = T(0) - T(c[i * sc] != 0);
    out[i] = T((x[i * sx] & mask) | (y[i * sy] & ~mask));
  }
}

template <class T>
using SelectRow = void (*)(const uint8_t*, const T*, const T*, T*, int64_t);

template <class T>
SelectRow<T> select_row_for(int64_t sc, int64_t sx, int64_t sy) {
  const SelectRow<T> rows[8] = {select_row<T, 0, 0, 0>, select_row<T, 0, 0, 1>, select_row<T, 0, 1, 0>,
                                select_row<T, 0, 1, 1>, select_row<T, 1, 0, 0>, select_row<T, 1, 0, 1>,
                                select_row<T, 1, 1, 0>, select_row<T, 1, 1, 1>};
  if ((sc | sx | sy) & ~int64_t(1)) return nullptr;
  return rows[sc * 4 + sx * 2 + sy];
}

template <class T>
void select_rows(const MergedAxes& s, const uint8_t* c, const T* x, const T* y, T* out, ThreadPool& pool) {
  const size_t rank = s.dims.size();
  const int64_t inner = s.dims[rank - 1];
  const int64_t sc = s.strides[0][rank - 1], sx = s.strides[1][rank - 1], sy = s.strides[2][rank - 1];
  const SelectRow<T> row = select_row_for<T>(sc, sx, sy);
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d) rows *= s.dims[d];
  pool.parallel_for(rows, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> coord(rank, 0);
    std::array<int64_t, 3> off{0, 0, 0};
    int64_t rem = begin;
    for (size_t d = rank - 1; d-- > 0;) {
      coord[d] = rem % s.dims[d];
      for (size_t k = 0; k < 3; ++k) off[k] += coord[d] * s.strides[k][d];
      rem /= s.dims[d];
    }
    for (int64_t r = begin; r < end; ++r) {
      const uint8_t* rc = c + off[0];
      const T* rx = x + off[1];
      const T* ry = y + off[2];
      T* ro = out + r * inner;
      if (row) row(rc, rx, ry, ro, inner);
      else
        for (int64_t i = 0; i < inner; ++i) ro[i] = rc[i * sc] ? rx[i * sx] : ry[i * sy];
      for (size_t d = rank - 1; d-- > 0;) {
        for (size_t k = 0; k < 3; ++k) off[k] += s.strides[k][d];
        if (++coord[d] < s.dims[d]) break;
        for (size_t k = 0; k < 3; ++k) off[k] -= coord[d] * s.strides[k][d];
        coord[d] = 0;
      }
    }
  }, std::max<int64_t>(1, kSelectElementsPerTask / std::max<int64_t>(inner, 1)));
}

bool where_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] {
    if (node.inputs.size() != 3 || node.outputs.size() != 1) return false;
    for (ValueId in : node.inputs)
      if (in == kNoValue) return false;
    const DType x = g.value(node.input(1)).dtype;
    if (g.value(node.input(0)).dtype != DType::boolean || g.value(node.input(2)).dtype != x) return false;
    return strided_copy_supports(dtype_size(x));
  });
}

KernelFn make_where(const Node& node, const Graph&) {
  return [reference = reference_kernel_of(node), what = cat("Where '", node.name, "'")](KernelContext& ctx) {
    const Tensor& cond = ctx.input(0);
    const Tensor& x = ctx.input(1);
    const Tensor& y = ctx.input(2);
    if (cond.dtype() != DType::boolean || x.dtype() != y.dtype()) return reference(ctx);  // it reports them
    const Shape shape = broadcast_shapes({cond.shape(), x.shape(), y.shape()}, what);
    Tensor& out = ctx.output(0, x.dtype(), shape);
    if (out.numel() == 0) return;
    const MergedAxes s = selection_axes(shape, {broadcast_strides(cond.shape(), shape),
                                                broadcast_strides(x.shape(), shape), broadcast_strides(y.shape(), shape)});
    const uint8_t* c = static_cast<const uint8_t*>(cond.raw());
    switch (dtype_size(x.dtype())) {
      case 1: return select_rows(s, c, static_cast<const uint8_t*>(x.raw()), static_cast<const uint8_t*>(y.raw()),
                                 static_cast<uint8_t*>(out.raw()), ctx.pool());
      case 2: return select_rows(s, c, static_cast<const uint16_t*>(x.raw()), static_cast<const uint16_t*>(y.raw()),
                                 static_cast<uint16_t*>(out.raw()), ctx.pool());
      case 4: return select_rows(s, c, static_cast<const uint32_t*>(x.raw()), static_cast<const uint32_t*>(y.raw()),
                                 static_cast<uint32_t*>(out.raw()), ctx.pool());
      default: return select_rows(s, c, static_cast<const uint64_t*>(x.raw()), static_cast<const uint64_t*>(y.raw()),
                                  static_cast<uint64_t*>(out.raw()), ctx.pool());
    }
  };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(where_fast, {"Where", kFastVariant, 10, where_supports, nullptr, make_where});

}  // namespace vx::cpu::fast

// Gather of any element type along any axis with int32 or int64 indices: the rows the reference
// copies one by one (an embedding table's rows, a tensor's channels), copied over the thread pool.
// Indices are checked as the reference checks them; a run with one out of range goes to the
// reference kernel, which reports it. Exact (a copy).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/shape_rules.h"

namespace vx::cpu::fast {
namespace {

// Rows are split between threads in pieces of 1 MiB (as strided_copy.cpp's memcpy rows: smaller
// pieces made a 300-row embedding gather twice as slow on 2 cores).
constexpr size_t kGatherBytesPerTask = size_t(1) << 20;

bool gather_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] {
    if (node.inputs.size() != 2 || node.outputs.size() != 1 || node.input(0) == kNoValue || node.input(1) == kNoValue)
      return false;
    const DType indices = g.value(node.input(1)).dtype;
    return indices == DType::i64 || indices == DType::i32;
  });
}

// The indices as int64 in [0, extent), or false when one is outside [-extent, extent).
template <class I>
bool normalized_indices(const Tensor& t, int64_t extent, std::vector<int64_t>& out) {
  const I* p = t.data<I>();
  out.resize(size_t(t.numel()));
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t v = int64_t(p[i]);
    if (v < -extent || v >= extent) return false;
    out[i] = v < 0 ? v + extent : v;
  }
  return true;
}

KernelFn make_gather(const Node& node, const Graph&) {
  return [reference = reference_kernel_of(node), what = cat("Gather '", node.name, "'")](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const auto& xd = x.shape().dims();
    const size_t axis = size_t(normalize_axis(ctx.node().attrs.get_int("axis", 0), int64_t(x.rank()), what));
    const int64_t extent = xd[axis];
    std::vector<int64_t> idx;
    const bool in_range = indices.dtype() == DType::i64 ? normalized_indices<int64_t>(indices, extent, idx)
                                                        : normalized_indices<int32_t>(indices, extent, idx);
    if (!in_range) return reference(ctx);
    std::vector<int64_t> dims(xd.begin(), xd.begin() + ptrdiff_t(axis));
    dims.insert(dims.end(), indices.shape().begin(), indices.shape().end());
    dims.insert(dims.end(), xd.begin() + ptrdiff_t(axis) + 1, xd.end());
    Tensor& y = ctx.output(0, x.dtype(), Shape(dims));
    int64_t outer = 1, inner_elements = 1;
    for (size_t d = 0; d < axis; ++d) outer *= xd[d];
    for (size_t d = axis + 1; d < xd.size(); ++d) inner_elements *= xd[d];
    const size_t row = size_t(inner_elements) * dtype_size(x.dtype());
    const int64_t rows = outer * int64_t(idx.size());
    if (rows == 0 || row == 0) return;
    const char* src = static_cast<const char*>(x.raw());
    char* dst = static_cast<char*>(y.raw());
    const int64_t n = int64_t(idx.size());
    ctx.pool().parallel_for(rows, [&](int64_t begin, int64_t end) {
      int64_t o = begin / n, k = begin % n;  // row r is index k of outer block o
      for (int64_t r = begin; r < end; ++r) {
        std::memcpy(dst + size_t(r) * row, src + size_t(o * extent + idx[size_t(k)]) * row, row);
        if (++k == n) k = 0, ++o;
      }
    }, std::max<int64_t>(1, int64_t(kGatherBytesPerTask / row)));
  };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(gather_fast, {"Gather", kFastVariant, 10, gather_supports, nullptr, make_gather});

}  // namespace vx::cpu::fast

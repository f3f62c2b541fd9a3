// Unique (opset 11): the distinct elements of X (no axis: X flattened) or the distinct slices
// along `axis`, sorted (default, lexicographically for slices) or in order of first occurrence;
// optional outputs indices (first occurrence), inverse_indices and counts, all int64. Values are
// compared as doubles (exact for every dtype but int64 beyond 2^53).
#include <algorithm>
#include <map>
#include <numeric>

#include "backends/cpu/kernel_registry.h"
#include "core/error.h"

namespace vx::cpu::ref {
namespace {

void unique_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  const std::string what = "Unique '" + node.name + "'";
  VX_CHECK(ctx.has_input(0), InvalidArgument, what, ": needs input X");
  const Tensor& x = ctx.input(0);
  const bool has_axis = node.attrs.has("axis");
  const bool sorted = node.attrs.get_int("sorted", 1) != 0;
  const int64_t rank = int64_t(x.rank());
  int64_t axis = 0, outer = 1, n = x.numel(), inner = 1;
  if (has_axis) {
    axis = node.attrs.get_int("axis", 0);
    VX_CHECK(rank > 0 && axis >= -rank && axis < rank, InvalidArgument, what, ": axis ", axis,
             " is out of range for rank ", rank);
    if (axis < 0) axis += rank;
    n = x.dim(size_t(axis));
    for (int64_t d = 0; d < axis; ++d) outer *= x.dim(size_t(d));
    for (int64_t d = axis + 1; d < rank; ++d) inner *= x.dim(size_t(d));
  }
  auto slice = [&](int64_t i) {
    std::vector<double> v;
    v.reserve(size_t(outer * inner));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < inner; ++k) v.push_back(x.get((o * n + i) * inner + k));
    return v;
  };
  std::map<std::vector<double>, int64_t> first_seen;  // slice -> first index
  std::vector<int64_t> firsts;                         // in order of first occurrence
  std::vector<std::vector<double>> slices(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    slices[size_t(i)] = slice(i);
    if (first_seen.emplace(slices[size_t(i)], i).second) firsts.push_back(i);
  }
  std::vector<int64_t> order = firsts;  // the output's slices, as input indices
  if (sorted)
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return slices[size_t(a)] < slices[size_t(b)]; });
  const int64_t k = int64_t(order.size());
  std::map<std::vector<double>, int64_t> position;
  for (int64_t j = 0; j < k; ++j) position[slices[size_t(order[size_t(j)])]] = j;

  std::vector<int64_t> y_dims = has_axis ? x.shape().dims() : std::vector<int64_t>{k};
  if (has_axis) y_dims[size_t(axis)] = k;
  Tensor& y = ctx.output(0, x.dtype(), Shape(y_dims));
  const size_t elem = dtype_size(x.dtype());
  const auto* src = static_cast<const uint8_t*>(x.raw());
  auto* dst = static_cast<uint8_t*>(y.raw());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < k; ++j)
      std::copy_n(src + size_t((o * n + order[size_t(j)]) * inner) * elem, size_t(inner) * elem,
                  dst + size_t((o * k + j) * inner) * elem);
  if (ctx.num_outputs() > 1) {
    Tensor& indices = ctx.output(1, DType::i64, Shape({k}));
    for (int64_t j = 0; j < k; ++j) indices.data<int64_t>()[j] = order[size_t(j)];
  }
  if (ctx.num_outputs() > 2) {
    Tensor& inverse = ctx.output(2, DType::i64, Shape({n}));
    for (int64_t i = 0; i < n; ++i) inverse.data<int64_t>()[i] = position[slices[size_t(i)]];
  }
  if (ctx.num_outputs() > 3) {
    Tensor& counts = ctx.output(3, DType::i64, Shape({k}));
    std::fill_n(counts.data<int64_t>(), k, 0);
    for (int64_t i = 0; i < n; ++i) ++counts.data<int64_t>()[position[slices[size_t(i)]]];
  }
}

}  // namespace

VX_REGISTER_CPU_KERNEL(unique_reference, {"Unique", "reference", 0, nullptr, unique_kernel});

}  // namespace vx::cpu::ref

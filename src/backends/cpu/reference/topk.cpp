// Reference TopK (opsets 1, 10, 11): the k largest (or smallest) values along an axis and their
// indices. Equal values keep the lower index first, and NaN counts as larger than any number, so
// the result is deterministic. With sorted=0 the spec leaves the order open; we still sort.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/kernel_util.h"

namespace vx::cpu::ref {
namespace {

void topk_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Attributes& attrs = ctx.node().attrs;
  VX_CHECK(x.rank() >= 1, InvalidArgument, node_label(ctx), ": input must have rank >= 1");
  size_t axis = size_t(normalize_axis(attrs.get_int("axis", -1), int64_t(x.rank()), ctx));
  int64_t k;
  if (ctx.has_input(1)) {
    std::vector<int64_t> kv = read_ints(ctx.input(1));
    VX_CHECK(kv.size() == 1, InvalidArgument, node_label(ctx), ": K must hold one value, got ", kv.size());
    k = kv[0];
  } else {
    k = attrs.get_int("k", -1);  // opset 1
  }
  const auto& dims = x.shape().dims();
  int64_t extent = dims[axis];
  VX_CHECK(k >= 0 && k <= extent, InvalidArgument, node_label(ctx), ": k = ", k, " but the axis has ", extent,
           " elements");
  bool largest = attrs.get_int("largest", 1) != 0;

  int64_t outer = product(dims, 0, axis), inner = product(dims, axis + 1, dims.size());
  std::vector<int64_t> out_dims = dims;
  out_dims[axis] = k;
  std::vector<double> src = read_doubles(x), values(size_t(outer * k * inner));
  std::vector<int64_t> indices(values.size());
  std::vector<int64_t> order(static_cast<size_t>(extent));
  std::vector<double> line(static_cast<size_t>(extent));
  // "a comes before b": by value (NaN greatest), then by index.
  auto before = [&](int64_t a, int64_t b) {
    double va = line[size_t(a)], vb = line[size_t(b)];
    bool na = std::isnan(va), nb = std::isnan(vb);
    if (na != nb) return largest ? na : nb;
    if (!na && va != vb) return largest ? va > vb : va < vb;
    return a < b;
  };
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      for (int64_t e = 0; e < extent; ++e) line[size_t(e)] = src[size_t((o * extent + e) * inner + i)];
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        size_t at = size_t((o * k + j) * inner + i);
        values[at] = line[size_t(order[size_t(j)])];
        indices[at] = order[size_t(j)];
      }
    }
  write_doubles(ctx.output(0, x.dtype(), Shape(out_dims)), values);
  if (ctx.num_outputs() > 1) {
    Tensor& idx = ctx.output(1, DType::i64, Shape(out_dims));
    std::copy(indices.begin(), indices.end(), idx.data<int64_t>());
  }
}

}  // namespace

VX_REGISTER_CPU_KERNEL(topk, {"TopK", "reference", 0, nullptr, topk_kernel});

}  // namespace vx::cpu::ref

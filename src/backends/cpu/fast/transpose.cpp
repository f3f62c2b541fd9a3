// Transpose of any element type of 1, 2, 4 or 8 bytes: the permuted copy the reference makes, on the
// threaded strided copy (strided_copy.h: attention's K^T and NCHW <-> NHWC go by 32 x 32 tiles).
// Exact (a copy). Declines other element sizes (the reference copies them byte by byte).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/fast/strided_copy.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/shape_rules.h"

namespace vx::cpu::fast {
namespace {

// The input's axes in the output's order, and the output's shape.
struct PermutedCopy {
  StridedCopy copy;
  Shape out;
};

PermutedCopy permuted_copy(const Shape& x, const std::vector<int64_t>& perm_attr, const std::string& what) {
  const int64_t rank = int64_t(x.rank());
  const std::vector<int64_t> perm = transpose_perm(perm_attr, size_t(rank));
  VX_CHECK(int64_t(perm.size()) == rank, InvalidArgument, what, ": perm has ", perm.size(), " entries for rank ", rank);
  const std::vector<int64_t> in_strides = row_major_strides(x.dims());
  std::vector<bool> seen(size_t(rank), false);
  PermutedCopy c;
  std::vector<int64_t> out;
  for (int64_t p : perm) {
    p = normalize_axis(p, rank, what);
    VX_CHECK(!seen[size_t(p)], InvalidArgument, what, ": perm repeats axis ", p);
    seen[size_t(p)] = true;
    out.push_back(x[size_t(p)]);
    c.copy.dims.push_back(x[size_t(p)]);
    c.copy.strides.push_back(in_strides[size_t(p)]);
  }
  c.out = Shape(out);
  return c;
}

bool transpose_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] {
    if (node.inputs.size() != 1 || node.outputs.size() != 1 || node.input(0) == kNoValue) return false;
    return strided_copy_supports(dtype_size(g.value(node.input(0)).dtype));
  });
}

void transpose_fast(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const std::string what = cat("Transpose '", ctx.node().name, "'");
  const PermutedCopy c = permuted_copy(x.shape(), ctx.node().attrs.get_ints("perm"), what);
  Tensor& y = ctx.output(0, x.dtype(), c.out);
  run_strided_copy(c.copy, x.raw(), y.raw(), dtype_size(x.dtype()), ctx.pool());
}

}  // namespace

VX_REGISTER_CPU_KERNEL(transpose_fast, {"Transpose", "fast", 10, transpose_supports, transpose_fast});

}  // namespace vx::cpu::fast

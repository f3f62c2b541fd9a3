// Reference ScatterElements (and the old Scatter) and ScatterND with every reduction (none, add,
// mul, max, min), applying the updates in order as ONNX defines them; any dtype.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/kernel_util.h"

namespace vx::cpu::ref {
namespace {

// Writes update element `u` of `updates` into element `o` of `out`, combined per `reduction`.
void scatter_element(Tensor& out, int64_t o, const Tensor& updates, int64_t u, const std::string& reduction) {
  if (reduction == "none") {
    size_t elem = dtype_size(out.dtype());
    std::memcpy(static_cast<char*>(out.raw()) + o * int64_t(elem),
                static_cast<const char*>(updates.raw()) + u * int64_t(elem), elem);
    return;
  }
  double a = out.get(o), b = updates.get(u);
  double r = reduction == "add" ? a + b : reduction == "mul" ? a * b : reduction == "max" ? std::max(a, b) : std::min(a, b);
  out.set(o, r);
}

std::string scatter_reduction(const KernelContext& ctx) {
  std::string r = ctx.node().attrs.get_string("reduction", "none");
  VX_CHECK(r == "none" || r == "add" || r == "mul" || r == "max" || r == "min", Unsupported, node_label(ctx),
           ": unknown reduction '", r, "'");
  return r;
}

void scatter_elements_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  const Tensor& updates = ctx.input(2);
  int64_t rank = int64_t(x.rank());
  size_t axis = size_t(normalize_axis(ctx.node().attrs.get_int("axis", 0), rank, ctx));
  std::string reduction = scatter_reduction(ctx);
  VX_CHECK(indices.shape() == updates.shape() && int64_t(indices.rank()) == rank && updates.dtype() == x.dtype(),
           InvalidArgument, node_label(ctx), ": indices ", indices.shape().str(), " and updates ",
           updates.shape().str(), " must match in shape, with the data's rank and dtype");
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  if (x.nbytes() && y.raw() != x.raw()) std::memmove(y.raw(), x.raw(), x.nbytes());
  std::vector<int64_t> idx = read_ints(indices);
  std::vector<int64_t> x_strides = strides_of(x.shape()), i_strides = strides_of(indices.shape());
  std::vector<int64_t> coord(static_cast<size_t>(rank));
  for (int64_t i = 0; i < int64_t(idx.size()); ++i) {
    unravel(i, i_strides, coord);
    coord[axis] = checked_index(idx[size_t(i)], x.dim(axis), ctx);
    int64_t dst = 0;
    for (size_t d = 0; d < size_t(rank); ++d) {
      VX_CHECK(coord[d] < x.dim(d), InvalidArgument, node_label(ctx), ": indices exceed the data shape");
      dst += coord[d] * x_strides[d];
    }
    scatter_element(y, dst, updates, i, reduction);
  }
}

void scatter_nd_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  const Tensor& updates = ctx.input(2);
  std::string reduction = scatter_reduction(ctx);
  int64_t q = int64_t(indices.rank());
  VX_CHECK(q >= 1 && updates.dtype() == x.dtype(), InvalidArgument, node_label(ctx), ": bad indices or updates");
  int64_t k = indices.dim(size_t(q - 1));
  VX_CHECK(k >= 1 && k <= int64_t(x.rank()), InvalidArgument, node_label(ctx), ": index tuples of length ", k,
           " for data of rank ", x.rank());
  const auto& xd = x.shape().dims();
  std::vector<int64_t> expected(indices.shape().begin(), indices.shape().end() - 1);
  expected.insert(expected.end(), xd.begin() + ptrdiff_t(k), xd.end());
  VX_CHECK(updates.shape() == Shape(expected), InvalidArgument, node_label(ctx), ": updates shape ",
           updates.shape().str(), ", expected ", Shape(expected).str());
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  if (x.nbytes() && y.raw() != x.raw()) std::memmove(y.raw(), x.raw(), x.nbytes());
  std::vector<int64_t> idx = read_ints(indices), x_strides = strides_of(x.shape());
  int64_t tuples = product(indices.shape().dims(), 0, size_t(q - 1));
  int64_t slice = product(xd, size_t(k), xd.size());
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = 0;
    for (int64_t j = 0; j < k; ++j)
      offset += checked_index(idx[size_t(t * k + j)], xd[size_t(j)], ctx) * x_strides[size_t(j)];
    for (int64_t e = 0; e < slice; ++e) scatter_element(y, offset + e, updates, t * slice + e, reduction);
  }
}

}  // namespace

VX_REGISTER_CPU_KERNEL(scatter_elements, {"ScatterElements", "reference", 0, nullptr, scatter_elements_kernel});
VX_REGISTER_CPU_KERNEL(scatter, {"Scatter", "reference", 0, nullptr, scatter_elements_kernel});
VX_REGISTER_CPU_KERNEL(scatter_nd, {"ScatterND", "reference", 0, nullptr, scatter_nd_kernel});

}  // namespace vx::cpu::ref

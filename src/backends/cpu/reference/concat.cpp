// Reference Concat along any axis, any dtype (byte copies).
#include <cstring>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/reference_ops.h"
#include "core/error.h"

namespace vx::cpu::ref {

void concat(const std::vector<const Tensor*>& xs, int64_t axis, Tensor& y) {
  VX_CHECK(!xs.empty() && axis >= 0 && axis < int64_t(y.rank()), InvalidArgument, "concat: bad axis ", axis);
  const size_t elem = dtype_size(y.dtype());
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= y.dim(size_t(a));
  for (size_t a = size_t(axis) + 1; a < y.rank(); ++a) inner *= y.dim(a);
  int64_t total = 0;
  for (const Tensor* x : xs) {
    VX_CHECK(x->rank() == y.rank() && x->dtype() == y.dtype(), InvalidArgument, "concat: input ", x->shape().str(),
             " does not fit output ", y.shape().str());
    total += x->dim(size_t(axis));
  }
  VX_CHECK(total == y.dim(size_t(axis)), InvalidArgument, "concat: inputs sum to ", total, " along axis ", axis,
           ", output has ", y.dim(size_t(axis)));
  char* yp = static_cast<char*>(y.raw());
  const size_t y_row = size_t(y.dim(size_t(axis)) * inner) * elem;
  size_t column = 0;  // byte offset of this input inside an output row
  for (const Tensor* x : xs) {
    const size_t x_row = size_t(x->dim(size_t(axis)) * inner) * elem;
    const char* xp = static_cast<const char*>(x->raw());
    for (int64_t o = 0; o < outer; ++o) std::memcpy(yp + size_t(o) * y_row + column, xp + size_t(o) * x_row, x_row);
    column += x_row;
  }
}

namespace {

void concat_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  const std::string what = "Concat '" + node.name + "'";
  VX_CHECK(ctx.num_inputs() >= 1 && ctx.has_input(0), InvalidArgument, what, ": no inputs");
  const Tensor& first = ctx.input(0);
  const int64_t rank = int64_t(first.rank());
  int64_t axis = node.attrs.get_int("axis", 1);
  if (axis < 0) axis += rank;
  VX_CHECK(axis >= 0 && axis < rank, InvalidArgument, what, ": axis ", node.attrs.get_int("axis", 1),
           " is out of range for rank ", rank);
  std::vector<const Tensor*> xs;
  std::vector<int64_t> out(first.shape().begin(), first.shape().end());
  out[size_t(axis)] = 0;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    VX_CHECK(ctx.has_input(i), InvalidArgument, what, ": input ", i, " is omitted");
    const Tensor& x = ctx.input(i);
    VX_CHECK(int64_t(x.rank()) == rank && x.dtype() == first.dtype(), InvalidArgument, what, ": input ", i,
             " has shape ", x.shape().str(), " and dtype ", dtype_name(x.dtype()), ", input 0 has ",
             first.shape().str(), " ", dtype_name(first.dtype()));
    for (int64_t a = 0; a < rank; ++a)
      VX_CHECK(a == axis || x.dim(size_t(a)) == first.dim(size_t(a)), InvalidArgument, what, ": input ", i,
               " has shape ", x.shape().str(), ", input 0 has ", first.shape().str());
    out[size_t(axis)] += x.dim(size_t(axis));
    xs.push_back(&x);
  }
  concat(xs, axis, ctx.output(0, first.dtype(), Shape(out)));
}

}  // namespace

VX_REGISTER_CPU_KERNEL(concat_reference, {"Concat", "reference", 0, nullptr, concat_kernel});

}  // namespace vx::cpu::ref

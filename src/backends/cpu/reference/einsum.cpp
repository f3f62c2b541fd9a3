// Reference kernel for Einsum: one generic contraction over the labels of ops/einsum_equation.h
// (NumPy semantics). The labels are iterated as an odometer, output labels outermost, and for each
// output element the product of the inputs is summed over the remaining labels. Accumulates in
// double.
#include <vector>

#include "backends/cpu/reference/math_util.h"
#include "ops/einsum_equation.h"

namespace vx::cpu::ref {
namespace {

void einsum_kernel(KernelContext& ctx) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) shapes.push_back(ctx.input(i).shape());
  const EinsumEquation eq = parse_einsum_equation(ctx.node().attrs.get_string("equation", ""), shapes, node_label(ctx));
  const DType dtype = ctx.input(0).dtype();
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    VX_CHECK(ctx.input(i).dtype() == dtype, InvalidArgument, node_label(ctx), ": operands differ in type");
  const std::vector<int64_t>& dims = eq.extents;
  const std::vector<std::vector<int64_t>>& strides = eq.strides;
  const int64_t summed = eq.summed_count();

  Tensor& y = ctx.output(0, dtype, eq.output_shape());
  const int64_t total = Shape(dims).numel();
  std::vector<double> acc(size_t(y.numel()), 0.0);
  std::vector<const Tensor*> in;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) in.push_back(&ctx.input(i));
  dispatch<kNumeric>(dtype, ctx, [&](auto t) {
    using T = decltype(t);
    std::vector<const T*> p;
    for (const Tensor* x : in) p.push_back(x->data<T>());
    std::vector<int64_t> index(dims.size(), 0), offset(in.size(), 0);
    for (int64_t linear = 0; linear < total; ++linear) {
      double prod = 1;
      for (size_t i = 0; i < p.size(); ++i) prod *= double(p[i][offset[i]]);
      acc[size_t(linear / summed)] += prod;
      for (size_t k = dims.size(); k-- > 0;) {  // odometer
        ++index[k];
        for (size_t i = 0; i < p.size(); ++i) offset[i] += strides[i][k];
        if (index[k] < dims[k]) break;
        for (size_t i = 0; i < p.size(); ++i) offset[i] -= strides[i][k] * index[k];
        index[k] = 0;
      }
    }
    T* out = y.data<T>();
    for (size_t i = 0; i < acc.size(); ++i) out[i] = T(acc[i]);
  });
}

}  // namespace

VX_REGISTER_CPU_KERNEL(einsum, {"Einsum", "reference", 0, nullptr, with_f16_as_f32(einsum_kernel)});

}  // namespace vx::cpu::ref

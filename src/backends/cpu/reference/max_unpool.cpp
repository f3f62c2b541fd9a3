// Reference MaxUnpool: the inverse of MaxPool with indices (any rank, an optional output_shape).
#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/kernel_util.h"

namespace vx::cpu::ref {
namespace {

// The inverse of MaxPool with indices: scatters each value to the flat output index MaxPool
// recorded; every other element is zero.
void max_unpool_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  VX_CHECK(indices.shape() == x.shape(), InvalidArgument, node_label(ctx), ": indices shape ", indices.shape().str(),
           " differs from the input's ", x.shape().str());
  VX_CHECK(x.rank() >= 3, InvalidArgument, node_label(ctx), ": expects N x C x D1..., got ", x.shape().str());
  // The unpooled shape MaxPool's indices refer to, from the attributes.
  const Attributes& attrs = ctx.node().attrs;
  size_t nd = x.rank() - 2;
  std::vector<int64_t> kernel = attrs.get_ints("kernel_shape"), strides = attrs.get_ints("strides"),
                       pads = attrs.get_ints("pads");
  if (strides.empty()) strides.assign(nd, 1);
  if (pads.empty()) pads.assign(2 * nd, 0);
  VX_CHECK(kernel.size() == nd && strides.size() == nd && pads.size() == 2 * nd, InvalidArgument, node_label(ctx),
           ": kernel_shape, strides and pads must cover ", nd, " spatial axes");
  std::vector<int64_t> inferred = {x.dim(0), x.dim(1)};
  for (size_t i = 0; i < nd; ++i)
    inferred.push_back((x.dim(i + 2) - 1) * strides[i] + kernel[i] - pads[i] - pads[i + nd]);
  // An explicit output_shape may be larger: each value keeps its coordinates in the inferred shape.
  Shape shape(ctx.has_input(2) ? read_ints(ctx.input(2)) : inferred);
  VX_CHECK(shape.rank() == x.rank(), InvalidArgument, node_label(ctx), ": output_shape ", shape.str(),
           " has the wrong rank");
  std::vector<double> out(size_t(shape.numel()), 0.0), xv = read_doubles(x);
  std::vector<int64_t> idx = read_ints(indices);
  std::vector<int64_t> from_strides = strides_of(inferred), to_strides = strides_of(shape);
  int64_t inferred_total = Shape(inferred).numel();
  for (size_t i = 0; i < idx.size(); ++i) {
    VX_CHECK(idx[i] >= 0 && idx[i] < inferred_total, InvalidArgument, node_label(ctx), ": index ", idx[i],
             " is outside the unpooled shape ", Shape(inferred).str());
    int64_t target = 0;
    bool inside = true;
    for (size_t d = 0; d < inferred.size(); ++d) {
      int64_t c = idx[i] / from_strides[d] % inferred[d];
      inside = inside && c < shape[d];
      target += c * to_strides[d];
    }
    if (inside) out[size_t(target)] = xv[i];
  }
  write_doubles(ctx.output(0, x.dtype(), shape), out);
}

}  // namespace

VX_REGISTER_CPU_KERNEL(max_unpool, {"MaxUnpool", "reference", 0, nullptr, max_unpool_kernel});

}  // namespace vx::cpu::ref

// Reference vx.Excite (ops/fused_ops.h): the excitation of a squeeze-and-excitation block, as the
// two 1x1 convolutions on the pooled vector, their activations and the scaling of X (plus the
// residual) would compute it, in double. Exact, not fast: the oracle of the Vulkan kernel.
#include <cmath>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/kernel_util.h"
#include "core/error.h"
#include "ops/excite_geometry.h"
#include "ops/fused_ops.h"
#include "ops/post_ops.h"

namespace vx::cpu::ref {
namespace {

void excite_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  const std::string what = node_label(ctx);
  const std::vector<PostOp> post_ops = read_post_ops(node.attrs, what);
  const bool squeeze_relu = node.attrs.get_int("squeeze_relu", 0) != 0, relu = node.attrs.get_int("relu", 0) != 0;
  VX_CHECK(ctx.has_input(0) && ctx.has_input(1) && ctx.has_input(2) && ctx.has_input(4), InvalidArgument, what,
           ": needs X, P, W1 and W2");
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    VX_CHECK(!ctx.has_input(i) || ctx.input(i).dtype() == DType::f32, Unsupported, what, ": only float32 is supported");
  const Tensor& x = ctx.input(0);
  auto shape_of = [&](size_t i) { return ctx.has_input(i) ? &ctx.input(i).shape() : nullptr; };
  const ExciteExtents e = excite_extents(x.shape(), ctx.input(1).shape(), ctx.input(2).shape(), shape_of(3),
                                         ctx.input(4).shape(), shape_of(5), shape_of(6), what);
  const int64_t n_count = e.batch, channels = e.channels, pixels = e.pixels, reduced = e.squeezed;
  const std::vector<double> p = read_doubles(ctx.input(1)), w1 = read_doubles(ctx.input(2)),
                            w2 = read_doubles(ctx.input(4));
  const std::vector<double> b1 = ctx.has_input(3) ? read_doubles(ctx.input(3)) : std::vector<double>(size_t(reduced));
  const std::vector<double> b2 = ctx.has_input(5) ? read_doubles(ctx.input(5)) : std::vector<double>(size_t(channels));
  const float* xs = x.data<float>();
  const float* rs = ctx.has_input(6) ? ctx.input(6).data<float>() : nullptr;
  float* ys = ctx.output(0, DType::f32, x.shape()).data<float>();
  std::vector<double> h(static_cast<size_t>(reduced));
  for (int64_t n = 0; n < n_count; ++n) {
    for (int64_t r = 0; r < reduced; ++r) {
      double acc = b1[size_t(r)];
      for (int64_t c = 0; c < channels; ++c) acc += w1[size_t(r * channels + c)] * p[size_t(n * channels + c)];
      h[size_t(r)] = squeeze_relu ? std::max(acc, 0.0) : acc;
    }
    for (int64_t c = 0; c < channels; ++c) {
      double acc = b2[size_t(c)];
      for (int64_t r = 0; r < reduced; ++r) acc += w2[size_t(c * reduced + r)] * h[size_t(r)];
      float gate = float(relu ? std::max(acc, 0.0) : acc);
      for (const PostOp& op : post_ops) gate = apply_post_op(op, gate);
      const int64_t base = (n * channels + c) * pixels;
      for (int64_t i = base; i < base + pixels; ++i)
        ys[i] = float(double(xs[i]) * double(gate) + (rs ? double(rs[i]) : 0.0));
    }
  }
}

}  // namespace

VX_REGISTER_CPU_KERNEL(excite_reference, {kExcite, "reference", 0, nullptr, excite_kernel});

}  // namespace vx::cpu::ref

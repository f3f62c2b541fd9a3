// Reference vx.ElementwiseChain (ops/fused_ops.h): each post-op step in order, per element, with
// the steps' reference meaning (ops/post_ops.h).
#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/kernel_util.h"
#include "core/error.h"
#include "ops/fused_ops.h"
#include "ops/post_ops.h"

namespace vx::cpu::ref {
namespace {

void elementwise_chain_kernel(KernelContext& ctx) {
  const std::string what = node_label(ctx);
  const std::vector<PostOp> ops = read_post_ops(ctx.node().attrs, what);
  VX_CHECK(ctx.has_input(0) && ctx.input(0).dtype() == DType::f32, Unsupported, what, ": only float32 is supported");
  const Tensor& x = ctx.input(0);
  const float* in = x.data<float>();
  float* out = ctx.output(0, DType::f32, x.shape()).data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    float v = in[i];
    for (const PostOp& op : ops) v = apply_post_op(op, v);
    out[i] = v;
  }
}

}  // namespace

VX_REGISTER_CPU_KERNEL(elementwise_chain_reference, {kElementwiseChain, "reference", 0, nullptr, elementwise_chain_kernel});

}  // namespace vx::cpu::ref

// vx.ElementwiseChain (ops/fused_ops.h; passes/fuse_elementwise_chains.h): a chain of elementwise
// steps as one dispatch (shaders/elementwise_chain.comp) instead of one a step.
#include "backends/vulkan/kernels/gemm_plan.h"  // kMaxPostOps, add_post_op_constants
#include "backends/vulkan/kernels/op_args.h"
#include "ops/fused_ops.h"
#include "ops/post_ops.h"

namespace vx::vk {
namespace {

OpPlan plan_elementwise_chain(const OpInfo& info) {
  require_inputs(info, 1);
  const DeviceType storage = float_storage(info, 0);
  const Shape& xs = info.inputs[0].shape;
  if (info.outputs[0].shape != xs || info.outputs[0].device != storage) decline(info, "output differs from X");
  const std::vector<PostOp> ops = read_post_ops(info.node.attrs, label(info));
  if (ops.size() > kMaxPostOps) decline(info, ops.size(), " steps (the kernel takes ", kMaxPostOps, ")");
  const uint32_t count = checked_count32(info, xs.numel(), "X");
  OpPlan plan;
  if (count == 0) return plan;
  struct {
    uint32_t count;
  } push{count};
  Dispatch d = make_dispatch(shader_variant("elementwise_chain", {storage}), {Binding::in(0), Binding::out(0)}, push, count);
  add_post_op_constants(d.spec_constants, 0, ops);
  plan.dispatches.push_back(std::move(d));
  plan.variant = "chain" + std::to_string(ops.size());
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(vx_elementwise_chain, {kElementwiseChain, "", 0, plan_elementwise_chain});

}  // namespace vx::vk

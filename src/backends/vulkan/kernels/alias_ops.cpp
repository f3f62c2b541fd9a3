// Ops whose output is the input's bytes under another shape: Reshape, Squeeze, Unsqueeze,
// Flatten, Identity and Dropout at inference. No dispatch (but for Dropout's optional mask, filled
// with ones): the executor makes output 0 share input 0's memory (OpPlan::output0_aliases_input0).
// Shape operands (Reshape's shape, Squeeze's axes) need not be constants: the bound output shape
// already says everything.
#include <cstring>

#include "backends/vulkan/kernels/op_args.h"
#include "core/error.h"

namespace vx::vk {
namespace {

OpPlan alias_plan(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const OpTensor& y = info.outputs.at(0);
  VX_CHECK(x.shape.numel() == y.shape.numel(), InvalidArgument, label(info), ": output ", y.shape.str(),
           " does not hold the ", x.shape.numel(), " elements of input ", x.shape.str());
  if (x.device != y.device) decline(info, "the output's storage type differs from the input's");
  OpPlan plan;
  plan.output0_aliases_input0 = true;
  plan.variant = "alias";
  return plan;
}

// Dropout at inference: the output is the input; the optional mask is all ones (true).
OpPlan plan_dropout(const OpInfo& info) {
  if (info.has_input(2)) {  // opset 12+: training_mode
    auto training = constant_ints(info, 2, "training_mode");
    if (!training->empty() && training->front() != 0) decline(info, "training_mode is on");
  }
  OpPlan plan = alias_plan(info);
  if (info.node.outputs.size() > 1 && info.node.outputs[1] != kNoValue) {
    const OpTensor& mask = info.outputs.at(1);
    const int64_t count = mask.shape.numel();
    checked_count32(info, count);
    if (count > 0) {
      uint32_t bits = 1;  // int32 (bool) storage
      if (mask.device != DeviceType::i32) {
        const float one = 1.0f;
        std::memcpy(&bits, &one, 4);
      }
      struct {
        int32_t count;
        uint32_t bits;
      } push{int32_t(count), bits};
      Dispatch d;
      d.shader = move_variant("fill", mask.device);
      d.bindings = {Binding::out(1)};
      d.set_push(push);
      d.groups = linear_groups(uint64_t(count));
      plan.dispatches.push_back(std::move(d));
    }
  }
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(reshape, {"Reshape", "", 0, alias_plan});
VX_REGISTER_VK_OP(squeeze, {"Squeeze", "", 0, alias_plan});
VX_REGISTER_VK_OP(unsqueeze, {"Unsqueeze", "", 0, alias_plan});
VX_REGISTER_VK_OP(flatten, {"Flatten", "", 0, alias_plan});
VX_REGISTER_VK_OP(identity, {"Identity", "", 0, alias_plan});
VX_REGISTER_VK_OP(dropout, {"Dropout", "", 0, plan_dropout});

}  // namespace vx::vk

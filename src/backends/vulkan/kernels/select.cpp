// Ops that place elements by position, on Vulkan: OneHot (one_hot.comp, float or integer
// indices and values) and Trilu (trilu.comp, k read on the device, every storage type).
#include "backends/vulkan/kernels/op_args.h"

namespace vx::vk {
namespace {

struct OneHotPush {
  uint32_t count = 0, depth = 0, inner = 0;
};
struct TriluPush {
  uint32_t count = 0, rows = 0, cols = 0;
  int32_t upper = 1, has_k = 0;
};

OpPlan single(Dispatch d) {
  OpPlan plan;
  plan.dispatches.push_back(std::move(d));
  return plan;
}

OpPlan plan_one_hot(const OpInfo& info) {
  require_inputs(info, 3);
  const OpTensor& indices = info.inputs[0];
  const OpTensor& values = info.inputs[2];
  const OpTensor& y = info.outputs[0];
  VX_CHECK(values.shape.numel() == 2 && values.device == y.device, InvalidArgument, label(info),
           ": values must hold [off, on] of the output's type");
  const int64_t rank = int64_t(indices.shape.rank());
  const int64_t axis = normalize_axis(info, info.node.attrs.get_int("axis", -1), rank + 1);
  VX_CHECK(y.shape.rank() == size_t(rank + 1), InvalidArgument, label(info), ": output shape ", y.shape.str());
  OneHotPush push;
  push.count = checked_count32(info, y.shape.numel());
  push.depth = uint32_t(y.shape[size_t(axis)]);
  push.inner = uint32_t(std::max<int64_t>(product(indices.shape, size_t(axis), size_t(rank)), 1));
  return single(make_dispatch(shader_variant("one_hot", {indices.device, y.device}),
                              {Binding::in(0), Binding::in(2), Binding::out(0)}, push, push.count));
}

OpPlan plan_trilu(const OpInfo& info) {
  require_inputs(info, 1);
  const OpTensor& x = info.inputs[0];
  VX_CHECK(x.shape.rank() >= 2, InvalidArgument, label(info), ": input must have rank >= 2, got ", x.shape.str());
  TriluPush push;
  push.count = checked_count32(info, x.shape.numel());
  push.rows = uint32_t(x.shape[x.shape.rank() - 2]);
  push.cols = uint32_t(x.shape[x.shape.rank() - 1]);
  push.upper = info.node.attrs.get_int("upper", 1) != 0;
  push.has_k = info.has_input(1);
  if (push.has_k)
    VX_CHECK(info.inputs[1].shape.numel() == 1 && info.inputs[1].device == DeviceType::i32, InvalidArgument,
             label(info), ": k must be one integer");
  return single(make_dispatch(shader_variant("trilu", {x.device}),
                              {Binding::in(0), push.has_k ? Binding::in(1) : Binding::in(0), Binding::out(0)}, push,
                              push.count));
}

}  // namespace

VX_REGISTER_VK_OP(one_hot, {"OneHot", "", 0, plan_one_hot});
VX_REGISTER_VK_OP(trilu, {"Trilu", "", 0, plan_trilu});

}  // namespace vx::vk

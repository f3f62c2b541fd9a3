// Generated tensors on Vulkan (generate.comp): ConstantOfShape (float and integer values), Range
// (start and delta read on the device; the output length is known when planning) and the Hann,
// Hamming and Blackman windows (float outputs). Range of int64 host scalars is a shape computation
// and stays on the CPU by the executor's policy.
#include <cmath>

#include "backends/vulkan/kernels/op_args.h"

namespace vx::vk {
namespace {

struct FillPush {  // generate.comp
  uint32_t count = 0;
  int32_t mode = 0;
  float fvalue = 0;
  int32_t ivalue = 0;
};
enum FillMode { kConstant = 0, kRange, kHann, kHamming, kBlackman };

OpPlan fill_plan(const OpInfo& info, const FillPush& push, std::vector<Binding> bindings) {
  OpPlan plan;
  plan.dispatches.push_back(
      make_dispatch(shader_variant("generate", {info.outputs[0].device}), std::move(bindings), push, push.count));
  return plan;
}

OpPlan plan_constant_of_shape(const OpInfo& info) {
  require_inputs(info, 1);
  const OpTensor& y = info.outputs[0];
  Tensor value = info.node.attrs.has("value") ? info.node.attrs.get_tensor("value") : Tensor::from<float>({1}, {0.0f});
  VX_CHECK(value.numel() == 1, InvalidArgument, label(info), ": value must hold one element, not ", value.numel());
  VX_CHECK(value.dtype() == y.dtype, InvalidArgument, label(info), ": output type differs from the value's");
  FillPush push;
  push.count = checked_count32(info, y.shape.numel());
  push.mode = kConstant;
  const double v = value.get(0);
  if (y.device == DeviceType::i32) {
    VX_CHECK(v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max(), Unsupported,
             label(info), ": value ", v, " exceeds int32 storage");
    push.ivalue = int32_t(v);
  } else {
    push.fvalue = float(v);
  }
  return fill_plan(info, push, {Binding::out(0), Binding::out(0), Binding::out(0)});
}

OpPlan plan_range(const OpInfo& info) {
  require_inputs(info, 3);
  const OpTensor& y = info.outputs[0];
  for (int i = 0; i < 3; ++i)
    VX_CHECK(info.inputs[size_t(i)].shape.numel() == 1 && info.inputs[size_t(i)].device == y.device, InvalidArgument,
             label(info), ": input ", i, " must be a scalar of the output's type");
  VX_CHECK(y.shape.rank() == 1, InvalidArgument, label(info), ": output shape ", y.shape.str());
  FillPush push;
  push.count = checked_count32(info, y.shape[0]);
  push.mode = kRange;
  return fill_plan(info, push, {Binding::in(0), Binding::in(2), Binding::out(0)});
}

OpFactory window(FillMode mode) {
  return [mode](const OpInfo& info) {
    require_inputs(info, 1);
    const OpTensor& y = info.outputs[0];
    VX_CHECK(is_float(y.dtype), Unsupported, label(info), ": ", dtype_name(y.dtype), " window (floats only)");
    VX_CHECK(y.shape.rank() == 1, InvalidArgument, label(info), ": output shape ", y.shape.str());
    const bool periodic = info.node.attrs.get_int("periodic", 1) != 0;
    FillPush push;
    push.count = checked_count32(info, y.shape[0]);
    push.mode = mode;
    push.fvalue = float(periodic ? y.shape[0] : y.shape[0] - 1);
    return fill_plan(info, push, {Binding::out(0), Binding::out(0), Binding::out(0)});
  };
}

}  // namespace

VX_REGISTER_VK_OP(constant_of_shape, {"ConstantOfShape", "", 0, plan_constant_of_shape});
VX_REGISTER_VK_OP(range, {"Range", "", 0, plan_range});
VX_REGISTER_VK_OP(hann_window, {"HannWindow", "", 0, window(kHann)});
VX_REGISTER_VK_OP(hamming_window, {"HammingWindow", "", 0, window(kHamming)});
VX_REGISTER_VK_OP(blackman_window, {"BlackmanWindow", "", 0, window(kBlackman)});

}  // namespace vx::vk

// Linear quantization on Vulkan (quantize.comp): QuantizeLinear (to uint8 / int8 / int32, scalar
// or per-axis scale and zero point, round half to even, saturation), DequantizeLinear and
// DynamicQuantizeLinear (one workgroup finds the range, then every element is quantized). Quantized
// values live as int32 on the device (op_kernel.h).
#include <limits>

#include "backends/vulkan/kernels/op_args.h"

namespace vx::vk {
namespace {

struct QuantPush {
  uint32_t count = 0;
  int32_t mode = 0;
  uint32_t params = 1, inner = 1;
  int32_t has_zero = 0, lo = 0, hi = 255;
};
enum QuantMode { kQuantize = 0, kDequantize, kDynamicStats, kDynamicValues };

// Scalar or per-axis parameters (scale, zero point) of a tensor shaped `x`.
void set_params(const OpInfo& info, const Shape& x, QuantPush& push) {
  const OpTensor& scale = info.inputs[1];
  if (info.has_input(2))
    VX_CHECK(info.inputs[2].shape.numel() == scale.shape.numel(), InvalidArgument, label(info),
             ": zero point and scale differ in size");
  if (scale.shape.numel() == 1 && scale.shape.rank() <= 1) return;
  VX_CHECK(scale.shape.rank() == 1, Unsupported, label(info), ": scale of shape ", scale.shape.str(),
           " (scalar or per-axis only; blocked quantization stays on the CPU)");
  VX_CHECK(x.rank() >= 1, InvalidArgument, label(info), ": per-axis scale for a scalar");
  const size_t axis = size_t(normalize_axis(info, info.node.attrs.get_int("axis", 1), int64_t(x.rank())));
  VX_CHECK(scale.shape[0] == x[axis], InvalidArgument, label(info), ": ", scale.shape[0],
           " per-axis parameters for extent ", x[axis]);
  push.params = uint32_t(scale.shape[0]);
  push.inner = uint32_t(std::max<int64_t>(product(x, axis + 1, x.rank()), 1));
}

OpPlan plan_quantize(const OpInfo& info) {
  require_inputs(info, 2);
  const OpTensor& x = info.inputs[0];
  const OpTensor& y = info.outputs[0];
  VX_CHECK(is_float(x.dtype) && info.inputs[1].device == x.device, Unsupported, label(info),
           ": quantizes floats with a float scale");
  VX_CHECK(info.node.attrs.get_int("block_size", 0) == 0, Unsupported, label(info), ": blocked quantization");
  QuantPush push;
  if (y.dtype == DType::u8) push.lo = 0, push.hi = 255;
  else if (y.dtype == DType::i8) push.lo = -128, push.hi = 127;
  else if (y.dtype == DType::i32) push.lo = std::numeric_limits<int32_t>::min(), push.hi = std::numeric_limits<int32_t>::max();
  else VX_CHECK(false, Unsupported, label(info), ": cannot quantize to ", dtype_name(y.dtype));
  push.count = checked_count32(info, x.shape.numel());
  push.mode = kQuantize;
  push.has_zero = info.has_input(2);
  set_params(info, x.shape, push);
  const Binding zero = info.has_input(2) ? Binding::in(2) : Binding::out(0);
  OpPlan plan;
  plan.dispatches.push_back(make_dispatch(
      shader_variant("quantize", {x.device}),
      {Binding::in(0), Binding::out(0), Binding::in(1), zero, Binding::out(0), Binding::out(0), Binding::out(0)}, push,
      push.count));
  return plan;
}

OpPlan plan_dequantize(const OpInfo& info) {
  require_inputs(info, 2);
  const OpTensor& x = info.inputs[0];
  const OpTensor& y = info.outputs[0];
  VX_CHECK(x.device == DeviceType::i32 && is_float(y.dtype) && info.inputs[1].device == y.device, Unsupported,
           label(info), ": dequantizes integers to floats");
  QuantPush push;
  push.count = checked_count32(info, x.shape.numel());
  push.mode = kDequantize;
  push.has_zero = info.has_input(2);
  set_params(info, x.shape, push);
  const Binding zero = info.has_input(2) ? Binding::in(2) : Binding::in(0);
  OpPlan plan;
  plan.dispatches.push_back(make_dispatch(
      shader_variant("quantize", {y.device}),
      {Binding::out(0), Binding::in(0), Binding::in(1), zero, Binding::out(0), Binding::out(0), Binding::out(0)}, push,
      push.count));
  return plan;
}

OpPlan plan_dynamic_quantize(const OpInfo& info) {
  require_inputs(info, 1);
  const OpTensor& x = info.inputs[0];
  VX_CHECK(is_float(x.dtype), Unsupported, label(info), ": floats only");
  VX_CHECK(info.node.outputs.size() == 3 && info.node.outputs[1] != kNoValue && info.node.outputs[2] != kNoValue,
           Unsupported, label(info), ": expects its three outputs");
  QuantPush push;
  push.count = checked_count32(info, x.shape.numel());
  const std::vector<Binding> bindings = {Binding::in(0),  Binding::in(0),  Binding::out(1),        Binding::out(2),
                                         Binding::out(0), Binding::out(0), Binding::scratch_buffer(0)};
  const std::string shader = shader_variant("quantize", {x.device});
  OpPlan plan;
  plan.scratch_bytes.push_back(8);  // f32 scale and zero point
  push.mode = kDynamicStats;
  Dispatch stats = make_dispatch(shader, bindings, push, 1);
  stats.groups = {1, 1, 1};
  plan.dispatches.push_back(stats);
  push.mode = kDynamicValues;
  plan.dispatches.push_back(make_dispatch(shader, bindings, push, push.count));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(quantize_linear, {"QuantizeLinear", "", 0, plan_quantize});
VX_REGISTER_VK_OP(dequantize_linear, {"DequantizeLinear", "", 0, plan_dequantize});
VX_REGISTER_VK_OP(dynamic_quantize_linear, {"DynamicQuantizeLinear", "", 0, plan_dynamic_quantize});

}  // namespace vx::vk

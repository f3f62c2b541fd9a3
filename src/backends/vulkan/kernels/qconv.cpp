// Integer convolutions on Vulkan: ConvInteger (qconv.comp, int32 output) and QLinearConv (the
// same accumulation into a scratch buffer, then requant.comp with the int32 bias and a
// per-tensor or per-output-channel weight scale). 1 to 3 spatial axes, groups, strides,
// dilations, explicit pads or auto_pad (the output shape from shape inference fixes the pads).
#include "backends/vulkan/kernels/op_args.h"
#include "backends/vulkan/kernels/requant_push.h"

namespace vx::vk {
namespace {

struct QConvPush {
  uint32_t count = 0;
  int32_t channels = 0, outputs = 0, group = 1, flags = 0;
  int32_t in_dims[3]{1, 1, 1}, out_dims[3]{1, 1, 1}, kernel[3]{1, 1, 1}, strides[3]{1, 1, 1}, dilations[3]{1, 1, 1},
      pads[3]{0, 0, 0};
};
static_assert(sizeof(QConvPush) <= kOpPushConstantBytes);

// The accumulation of X (input x) and W (input w) with zero points zx, zw into `acc`.
Dispatch conv_dispatch(const OpInfo& info, size_t xi, size_t wi, size_t zxi, size_t zwi, Binding acc) {
  const OpTensor &x = info.inputs[xi], &w = info.inputs[wi];
  const Shape& y = info.outputs[0].shape;
  VX_CHECK(x.device == DeviceType::i32 && w.device == DeviceType::i32, Unsupported, label(info),
           ": integer X and W only");
  const size_t rank = x.shape.rank();
  VX_CHECK(rank >= 3 && rank <= 5 && w.shape.rank() == rank && y.rank() == rank, InvalidArgument, label(info),
           ": X ", x.shape.str(), " and W ", w.shape.str(), " must be N, C plus 1 to 3 spatial axes");
  const Attributes& at = info.node.attrs;
  QConvPush push;
  push.channels = int32_t(x.shape[1]);
  push.outputs = int32_t(w.shape[0]);
  push.group = int32_t(at.get_int("group", 1));
  VX_CHECK(push.group >= 1 && push.channels % push.group == 0 && push.outputs % push.group == 0 &&
               w.shape[1] == push.channels / push.group && y[0] == x.shape[0] && y[1] == w.shape[0],
           InvalidArgument, label(info), ": X ", x.shape.str(), " and W ", w.shape.str(), " do not fit group ",
           push.group);
  const size_t spatial = rank - 2, pad = 3 - spatial;
  const std::vector<int64_t> strides = at.get_ints("strides", std::vector<int64_t>(spatial, 1));
  const std::vector<int64_t> dilations = at.get_ints("dilations", std::vector<int64_t>(spatial, 1));
  const std::vector<int64_t> pads = at.get_ints("pads", std::vector<int64_t>(2 * spatial, 0));
  const std::string auto_pad = at.get_string("auto_pad", "NOTSET");
  VX_CHECK(strides.size() == spatial && dilations.size() == spatial && pads.size() == 2 * spatial, InvalidArgument,
           label(info), ": strides, dilations or pads do not fit ", spatial, " spatial axes");
  for (size_t i = 0; i < spatial; ++i) {
    const size_t d = pad + i;
    push.in_dims[d] = int32_t(x.shape[2 + i]);
    push.out_dims[d] = int32_t(y[2 + i]);
    push.kernel[d] = int32_t(w.shape[2 + i]);
    push.strides[d] = int32_t(strides[i]);
    push.dilations[d] = int32_t(dilations[i]);
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t total =
          std::max<int64_t>((y[2 + i] - 1) * strides[i] + (w.shape[2 + i] - 1) * dilations[i] + 1 - x.shape[2 + i], 0);
      push.pads[d] = int32_t(auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2);
    } else {
      push.pads[d] = auto_pad == "VALID" ? 0 : int32_t(pads[i]);
    }
  }
  if (info.has_input(zxi)) {
    VX_CHECK(info.inputs[zxi].shape.numel() == 1, Unsupported, label(info), ": per-element X zero point");
    push.flags |= 1;
  }
  if (info.has_input(zwi)) {
    const int64_t n = info.inputs[zwi].shape.numel();
    VX_CHECK(n == 1 || n == w.shape[0], InvalidArgument, label(info), ": W's zero point has ", n, " values");
    push.flags |= 2 | (n > 1 ? 4 : 0);
  }
  checked_count32(info, x.shape.numel());
  checked_count32(info, w.shape.numel());
  push.count = checked_count32(info, y.numel());
  return make_dispatch("qconv",
                       {Binding::in(int(xi)), Binding::in(int(wi)),
                        info.has_input(zxi) ? Binding::in(int(zxi)) : Binding::in(int(xi)),
                        info.has_input(zwi) ? Binding::in(int(zwi)) : Binding::in(int(wi)), acc},
                       push, push.count);
}

OpPlan plan_conv_integer(const OpInfo& info) {
  require_inputs(info, 2);
  OpPlan plan;
  plan.dispatches.push_back(conv_dispatch(info, 0, 1, 2, 3, Binding::out(0)));
  return plan;
}

OpPlan plan_qlinear_conv(const OpInfo& info) {
  require_inputs(info, 8);
  const OpTensor& y = info.outputs[0];
  for (size_t s : {size_t(1), size_t(4), size_t(6)})
    VX_CHECK(is_float(info.inputs[s].dtype) && info.inputs[s].device == info.inputs[1].device, Unsupported,
             label(info), ": float scales only");
  VX_CHECK(info.inputs[1].shape.numel() == 1 && info.inputs[6].shape.numel() == 1 && info.inputs[7].shape.numel() == 1,
           Unsupported, label(info), ": per-tensor x_scale, y_scale and y_zero_point only");
  VX_CHECK(y.dtype == DType::u8 || y.dtype == DType::i8, InvalidArgument, label(info),
           ": y must be uint8 or int8");
  const int64_t m = info.inputs[3].shape.rank() > 0 ? info.inputs[3].shape[0] : 0;
  const int64_t w_scales = info.inputs[4].shape.numel();
  VX_CHECK(w_scales == 1 || w_scales == m, InvalidArgument, label(info), ": w_scale has ", w_scales,
           " values for ", m, " output channels");
  const bool has_bias = info.has_input(8);
  if (has_bias)
    VX_CHECK(info.inputs[8].shape.numel() == m && info.inputs[8].device == DeviceType::i32, InvalidArgument,
             label(info), ": B must hold ", m, " int32 values");
  OpPlan plan;
  plan.scratch_bytes.push_back(uint64_t(std::max<int64_t>(y.shape.numel(), 1)) * 4);
  plan.dispatches.push_back(conv_dispatch(info, 0, 3, 2, 5, Binding::scratch_buffer(0)));
  RequantPush r;
  r.count = uint32_t(y.shape.numel());
  r.lo = y.dtype == DType::u8 ? 0 : -128;
  r.hi = y.dtype == DType::u8 ? 255 : 127;
  r.inner = uint32_t(std::max<int64_t>(product(y.shape, 2, y.shape.rank()), 1));
  r.channels = uint32_t(std::max<int64_t>(m, 1));
  r.flags = (w_scales > 1 ? 1 : 0) | (has_bias ? 2 : 0);
  plan.dispatches.push_back(make_dispatch(shader_variant("requant", {info.inputs[1].device}),
                                          {Binding::scratch_buffer(0), Binding::in(1), Binding::in(4), Binding::in(6),
                                           Binding::in(7), has_bias ? Binding::in(8) : Binding::in(7), Binding::out(0)},
                                          r, r.count));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(conv_integer, {"ConvInteger", "", 0, plan_conv_integer});
VX_REGISTER_VK_OP(qlinear_conv, {"QLinearConv", "", 0, plan_qlinear_conv});

}  // namespace vx::vk

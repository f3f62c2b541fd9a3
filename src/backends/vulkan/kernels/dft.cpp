// DFT and STFT (opset 17) on Vulkan (dft.comp), by the definition like the CPU reference:
// DFT along any axis, real or complex input, inverse, onesided, dft_length (a constant);
// STFT with frame_step (and frame_length) read on the device, optional window, onesided.
#include "backends/vulkan/kernels/op_args.h"

namespace vx::vk {
namespace {

struct DftPush {
  uint32_t count = 0;
  int32_t mode = 0, bins = 0, inner = 1, signal = 0, n = 0, comps = 1, flags = 0, frames = 1;
};

OpPlan plan_dft(const OpInfo& info) {
  require_inputs(info, 1);
  const OpTensor& x = info.inputs[0];
  const OpTensor& y = info.outputs[0];
  VX_CHECK(is_float(x.dtype), Unsupported, label(info), ": floats only");
  VX_CHECK(info.opset < 20 || !info.has_input(2), Unsupported, label(info), ": axis as an input (opset 20)");
  const int64_t rank = int64_t(x.shape.rank());
  VX_CHECK(rank >= 2 && (x.shape[size_t(rank - 1)] == 1 || x.shape[size_t(rank - 1)] == 2), InvalidArgument,
           label(info), ": input ", x.shape.str(), " must end in 1 (real) or 2 (complex)");
  int64_t axis = info.node.attrs.get_int("axis", 1);
  if (axis < 0) axis += rank;
  VX_CHECK(axis >= 0 && axis < rank - 1, InvalidArgument, label(info), ": axis out of range");
  const bool inverse = info.node.attrs.get_int("inverse", 0) != 0;
  const bool onesided = info.node.attrs.get_int("onesided", 0) != 0;
  DftPush push;
  push.signal = int32_t(x.shape[size_t(axis)]);
  int64_t n = push.signal;
  if (info.has_input(1)) {
    const std::vector<int64_t> len = required_constant_ints(info, 1, "dft_length");
    if (!len.empty()) n = len[0];
  }
  VX_CHECK(n > 0, InvalidArgument, label(info), ": dft_length ", n, " must be positive");
  push.n = int32_t(n);
  push.bins = int32_t(onesided ? n / 2 + 1 : n);
  push.inner = int32_t(std::max<int64_t>(product(x.shape, size_t(axis) + 1, size_t(rank - 1)), 1));
  push.comps = int32_t(x.shape[size_t(rank - 1)]);
  push.flags = inverse ? 1 : 0;
  const int64_t outer = product(x.shape, 0, size_t(axis));
  VX_CHECK(y.shape.numel() == outer * push.bins * push.inner * 2, InvalidArgument, label(info), ": output shape ",
           y.shape.str());
  checked_count32(info, x.shape.numel());
  push.count = checked_count32(info, outer * push.bins * push.inner);
  OpPlan plan;
  plan.dispatches.push_back(make_dispatch(shader_variant("dft", {x.device}),
                                          {Binding::in(0), Binding::in(0), Binding::out(0), Binding::out(0),
                                           Binding::out(0)},
                                          push, push.count));
  return plan;
}

OpPlan plan_stft(const OpInfo& info) {
  require_inputs(info, 2);
  const OpTensor& x = info.inputs[0];
  const OpTensor& y = info.outputs[0];
  VX_CHECK(is_float(x.dtype), Unsupported, label(info), ": floats only");
  VX_CHECK(x.shape.rank() == 3 && (x.shape[2] == 1 || x.shape[2] == 2), InvalidArgument, label(info),
           ": signal ", x.shape.str(), " must be [batch, length, 1 or 2]");
  VX_CHECK(info.inputs[1].device == DeviceType::i32 && info.inputs[1].shape.numel() == 1, InvalidArgument,
           label(info), ": frame_step must be one integer");
  VX_CHECK(y.shape.rank() == 4 && y.shape[0] == x.shape[0] && y.shape[3] == 2, InvalidArgument, label(info),
           ": output shape ", y.shape.str());
  const bool has_window = info.has_input(2), has_frame = info.has_input(3);
  VX_CHECK(has_window || has_frame, InvalidArgument, label(info), ": needs a window or frame_length");
  DftPush push;
  push.mode = 1;
  push.signal = int32_t(x.shape[1]);
  push.comps = int32_t(x.shape[2]);
  push.frames = int32_t(y.shape[1]);
  push.bins = int32_t(y.shape[2]);
  if (has_window) {
    VX_CHECK(info.inputs[2].device == x.device && info.inputs[2].shape.rank() == 1, InvalidArgument,
             label(info), ": the window must be 1-D of the signal's type");
    push.n = int32_t(info.inputs[2].shape[0]);
    push.flags |= 2;
  }
  if (has_frame) {
    VX_CHECK(info.inputs[3].device == DeviceType::i32 && info.inputs[3].shape.numel() == 1, InvalidArgument,
             label(info), ": frame_length must be one integer");
    if (!has_window) push.flags |= 4;
  }
  checked_count32(info, x.shape.numel());
  push.count = checked_count32(info, y.shape.numel() / 2);
  OpPlan plan;
  plan.dispatches.push_back(make_dispatch(shader_variant("dft", {x.device}),
                                          {Binding::in(0), has_window ? Binding::in(2) : Binding::in(0), Binding::in(1),
                                           has_frame ? Binding::in(3) : Binding::in(1), Binding::out(0)},
                                          push, push.count));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(dft, {"DFT", "", 0, plan_dft});
VX_REGISTER_VK_OP(stft, {"STFT", "", 0, plan_stft});

}  // namespace vx::vk

// RoiAlign (opset 10 / 16) on Vulkan (roi_align.comp): avg and max modes, sampling_ratio
// (adaptive when 0), spatial_scale, coordinate_transformation_mode half_pixel / output_half_pixel,
// the same ONNX Runtime sampling rules as the CPU reference.
#include "backends/vulkan/kernels/op_args.h"

namespace vx::vk {
namespace {

struct RoiAlignPush {
  uint32_t count = 0;
  int32_t batches = 0, channels = 0, height = 0, width = 0, out_height = 1, out_width = 1, sampling_ratio = 0;
  float spatial_scale = 1;
  int32_t half_pixel = 1, max_mode = 0;
};

OpPlan plan_roi_align(const OpInfo& info) {
  require_inputs(info, 3);
  const OpTensor &x = info.inputs[0], &rois = info.inputs[1], &batch = info.inputs[2];
  VX_CHECK(is_float(x.dtype) && rois.device == x.device && batch.device == DeviceType::i32, Unsupported,
           label(info), ": float X and rois, integer batch_indices");
  VX_CHECK(x.shape.rank() == 4 && rois.shape.rank() == 2 && rois.shape[1] == 4 && batch.shape.numel() == rois.shape[0],
           InvalidArgument, label(info), ": X ", x.shape.str(), ", rois ", rois.shape.str(), " and batch_indices ",
           batch.shape.str(), " do not fit");
  const Attributes& at = info.node.attrs;
  RoiAlignPush push;
  push.out_height = int32_t(at.get_int("output_height", 1));
  push.out_width = int32_t(at.get_int("output_width", 1));
  push.sampling_ratio = int32_t(at.get_int("sampling_ratio", 0));
  push.spatial_scale = at.get_float("spatial_scale", 1.0f);
  const std::string mode = at.get_string("mode", "avg");
  VX_CHECK(push.out_height > 0 && push.out_width > 0 && push.sampling_ratio >= 0, InvalidArgument, label(info),
           ": bad output size or sampling_ratio");
  VX_CHECK(mode == "avg" || mode == "max", InvalidArgument, label(info), ": mode '", mode, "'");
  push.max_mode = mode == "max";
  push.half_pixel =
      at.get_string("coordinate_transformation_mode", info.opset >= 16 ? "half_pixel" : "output_half_pixel") ==
      "half_pixel";
  push.batches = int32_t(x.shape[0]);
  push.channels = int32_t(x.shape[1]);
  push.height = int32_t(x.shape[2]);
  push.width = int32_t(x.shape[3]);
  checked_count32(info, x.shape.numel());
  push.count = checked_count32(info, rois.shape[0] * x.shape[1] * push.out_height * push.out_width);
  VX_CHECK(info.outputs[0].shape.numel() == int64_t(push.count), InvalidArgument, label(info), ": output shape ",
           info.outputs[0].shape.str());
  OpPlan plan;
  plan.dispatches.push_back(make_dispatch(shader_variant("roi_align", {x.device}),
                                          {Binding::in(0), Binding::in(1), Binding::in(2), Binding::out(0)}, push,
                                          push.count));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(roi_align, {"RoiAlign", "", 0, plan_roi_align});

}  // namespace vx::vk

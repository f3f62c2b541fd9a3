// GridSample on Vulkan (grid_sample.comp): 2-D, modes bilinear / nearest / bicubic, padding
// zeros / border / reflection, align_corners; the same PyTorch-following definition as the CPU
// reference. N-D grids (opset 20) stay on the CPU.
#include "backends/vulkan/kernels/op_args.h"

namespace vx::vk {
namespace {

struct GridSamplePush {
  uint32_t count = 0;
  int32_t channels = 0, height = 0, width = 0, out_height = 0, out_width = 0, mode = 0, padding = 0, align_corners = 0;
};

OpPlan plan_grid_sample(const OpInfo& info) {
  require_inputs(info, 2);
  const OpTensor &x = info.inputs[0], &grid = info.inputs[1];
  VX_CHECK(is_float(x.dtype) && grid.device == x.device, Unsupported, label(info), ": floats only");
  VX_CHECK(x.shape.rank() == 4 && grid.shape.rank() == 4 && grid.shape[0] == x.shape[0] && grid.shape[3] == 2,
           Unsupported, label(info), ": X ", x.shape.str(), " and grid ", grid.shape.str(),
           " (2-D sampling only)");
  const Attributes& at = info.node.attrs;
  const std::string mode = at.get_string("mode", "bilinear");
  const std::string padding = at.get_string("padding_mode", "zeros");
  GridSamplePush push;
  if (mode == "bilinear" || mode == "linear") push.mode = 0;
  else if (mode == "nearest") push.mode = 1;
  else if (mode == "bicubic" || mode == "cubic") push.mode = 2;
  else VX_CHECK(false, Unsupported, label(info), ": mode '", mode, "'");
  if (padding == "zeros") push.padding = 0;
  else if (padding == "border") push.padding = 1;
  else if (padding == "reflection") push.padding = 2;
  else VX_CHECK(false, Unsupported, label(info), ": padding_mode '", padding, "'");
  push.align_corners = at.get_int("align_corners", 0) != 0;
  push.channels = int32_t(x.shape[1]);
  push.height = int32_t(x.shape[2]);
  push.width = int32_t(x.shape[3]);
  push.out_height = int32_t(grid.shape[1]);
  push.out_width = int32_t(grid.shape[2]);
  checked_count32(info, x.shape.numel());
  checked_count32(info, grid.shape.numel());
  push.count = checked_count32(info, x.shape[0] * x.shape[1] * grid.shape[1] * grid.shape[2]);
  OpPlan plan;
  plan.dispatches.push_back(make_dispatch(shader_variant("grid_sample", {x.device}),
                                          {Binding::in(0), Binding::in(1), Binding::out(0)}, push, push.count));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(grid_sample, {"GridSample", "", 0, plan_grid_sample});

}  // namespace vx::vk

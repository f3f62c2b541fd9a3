// vx.LayerNorm on Vulkan (ops/fused_ops.h): normalisation over the last axis with a [C] scale
// and optional [C] bias, one workgroup per row: shaders/layer_norm.comp (the row in registers,
// subgroup reductions) where the device has subgroup arithmetic, else row_stats.comp (MODE 0, the
// kernel LayerNormalization uses). Both: two-pass mean and variance in fp32.
#include "backends/vulkan/context.h"
#include "backends/vulkan/kernels/layer_norm.h"
#include "backends/vulkan/kernels/op_args.h"
#include "backends/vulkan/kernels/op_kernel.h"
#include "backends/vulkan/kernels/row_stats_push.h"
#include "ops/fused_ops.h"

namespace vx::vk {
namespace {

// Matches layer_norm.comp's push block.
struct LayerNormPush {
  int32_t rows, cols;
  float eps;
  int32_t flags;  // 1: scale, 2: bias
};

}  // namespace

std::string add_layer_norm(OpPlan& plan, const OpInfo& info, DeviceType storage, Binding x, Binding scale, bool has_bias,
                           Binding bias, Binding y, int64_t rows, int64_t cols, float eps) {
  const int32_t flags = 1 | (has_bias ? 2 : 0);
  Dispatch d;
  d.groups = linear_groups(uint64_t(rows), 1);
  std::string variant;
  if (info.device.has_subgroup_arithmetic()) {
    d.shader = shader_variant("layer_norm", {storage});
    d.bindings = {x, scale, bias, y};
    d.set_push(LayerNormPush{int32_t(rows), int32_t(cols), eps, flags});
    variant = "subgroup";
  } else {
    d.shader = shader_variant("row_stats", {storage});
    d.spec_constants = {0, 2, 0};
    d.bindings = {x, scale, bias, y, y, y};
    d.set_push(RowStatsPush{int32_t(rows), int32_t(cols), 0, eps, flags});
    variant = "reduce";
  }
  plan.dispatches.push_back(std::move(d));
  return variant;
}

namespace {

OpPlan plan_vx_layer_norm(const OpInfo& info) {
  if (!info.has_input(0) || !info.has_input(1)) decline(info, "X and Scale are required");
  const DeviceType storage = float_storage(info, 0);
  const Shape& xs = info.inputs[0].shape;
  if (xs.rank() < 1) decline(info, "scalar input");
  const int64_t cols = xs[xs.rank() - 1], rows = cols ? xs.numel() / cols : 0;
  if (rows == 0 || cols == 0) decline(info, "empty input");
  checked_count32(info, xs.numel(), "X");
  int flags = 0;
  Binding param[2] = {Binding::in(0), Binding::in(0)};
  for (size_t i = 1; i < 3; ++i) {
    if (!info.has_input(i)) continue;
    if (float_storage(info, i) != storage) decline(info, "parameter ", i, " of another storage type");
    if (info.inputs[i].shape.numel() != cols)
      decline(info, "parameter ", info.inputs[i].shape.str(), " must have ", cols, " values");
    param[i - 1] = Binding::in(int(i));
    flags |= 1 << (i - 1);
  }
  if (info.outputs[0].device != storage || info.outputs[0].shape != xs) decline(info, "output differs from X");
  OpPlan plan;
  plan.variant = add_layer_norm(plan, info, storage, Binding::in(0), param[0], (flags & 2) != 0, param[1], Binding::out(0), rows,
                                cols, info.node.attrs.get_float("epsilon", 1e-5f));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(vx_layer_norm, {kLayerNorm, "", 0, plan_vx_layer_norm});

}  // namespace vx::vk

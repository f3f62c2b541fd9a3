// CumSum (shader cumsum): exclusive, reverse; float and int tensors, one invocation scanning
// each row. The axis is a constant, or a device tensor read by the shader (axis computed at run
// time; rank <= 6 then).
#include "backends/vulkan/kernels/op_args.h"
#include "backends/vulkan/kernels/reduction_layout.h"
#include "core/error.h"

namespace vx::vk {
namespace {

struct CumSumPush {
  int32_t rows, n, inner, exclusive, reverse, rank;
  int32_t dims[kMaxRank];
};

OpPlan plan_cumsum(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const int64_t rank = int64_t(x.shape.rank());
  VX_CHECK(info.has_input(1), InvalidArgument, label(info), ": axis input missing");
  VX_CHECK(rank >= 1, InvalidArgument, label(info), ": input must have rank >= 1");
  VX_CHECK(info.inputs[1].shape.numel() == 1, InvalidArgument, label(info), ": axis must be a scalar");
  checked_count32(info, x.shape.numel());
  OpPlan plan;
  if (x.shape.numel() == 0) return plan;
  CumSumPush push{};
  push.exclusive = info.node.attrs.get_int("exclusive", 0) != 0 ? 1 : 0;
  push.reverse = info.node.attrs.get_int("reverse", 0) != 0 ? 1 : 0;
  push.rank = int32_t(rank);
  Dispatch d;
  const Tensor* axis_constant = info.inputs[1].constant;
  if (axis_constant != nullptr && axis_constant->defined()) {
    const size_t axis = size_t(normalize_axis(info, tensor_ints(*axis_constant).at(0), rank));
    AxisRows r = rows_at(x.shape, axis);
    push.rows = int32_t(r.outer * r.inner);
    push.n = int32_t(r.n);
    push.inner = int32_t(r.inner);
    d.shader = shader_variant("cumsum", {x.device});
    d.bindings = {Binding::in(0), Binding::out(0)};
    d.groups = linear_groups(uint64_t(push.rows));
  } else {
    if (rank > kMaxRank) decline(info, cat("axis computed at run time on a tensor of rank > ", kMaxRank));
    if (info.inputs[1].dtype == DType::f32 || info.inputs[1].dtype == DType::f16) decline(info, "axis is not an integer");
    push.rows = int32_t(x.shape.numel());  // the shader divides by the axis extent
    for (size_t k = 0; k < size_t(rank); ++k) push.dims[k] = int32_t(x.shape[k]);
    d.shader = shader_variant("cumsum", {x.device}, "axis_input");
    d.bindings = {Binding::in(0), Binding::out(0), Binding::in(1)};
    d.groups = linear_groups(uint64_t(push.rows));
    plan.variant = "axis_input";
  }
  d.set_push(push);
  plan.dispatches.push_back(std::move(d));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(cumsum, {"CumSum", "", 0, plan_cumsum});

}  // namespace vx::vk

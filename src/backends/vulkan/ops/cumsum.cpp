// CumSum (shader red_cumsum): the axis from a constant input (a run-time axis is declined),
// exclusive, reverse; float and int tensors, one invocation scanning each row.
#include "backends/vulkan/ops/op_args.h"
#include "backends/vulkan/ops/reduction_layout.h"
#include "core/error.h"

namespace vx::vk {
namespace {

using namespace opargs;

OpPlan plan_cumsum(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const int64_t rank = int64_t(x.shape.rank());
  VX_CHECK(info.has_input(1), InvalidArgument, label(info), ": axis input missing");
  std::vector<int64_t> axis_v = *constant_ints(info, 1, "axis");
  VX_CHECK(axis_v.size() == 1, InvalidArgument, label(info), ": axis must be a scalar");
  VX_CHECK(rank >= 1, InvalidArgument, label(info), ": input must have rank >= 1");
  const size_t axis = size_t(normalize_axis(info, axis_v[0], rank));
  AxisRows r = rows_at(x.shape, axis);
  require_int32_elements(info, x.shape.numel());
  OpPlan plan;
  const int64_t rows = r.outer * r.inner;
  if (rows == 0 || r.n == 0) return plan;
  struct {
    int32_t rows, n, inner, exclusive, reverse;
  } push{int32_t(rows), int32_t(r.n), int32_t(r.inner), info.node.attrs.get_int("exclusive", 0) != 0 ? 1 : 0,
         info.node.attrs.get_int("reverse", 0) != 0 ? 1 : 0};
  Dispatch d;
  d.shader = typed_shader("red_cumsum", x.device);
  d.bindings = {Binding::in(0), Binding::out(0)};
  d.set_push(push);
  d.groups = linear_groups(uint64_t(rows));
  plan.dispatches.push_back(std::move(d));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(cumsum, {"CumSum", "", 0, plan_cumsum});

}  // namespace vx::vk

// TopK (opsets 1, 10, 11; shader topk): k read from the bound output shape (so a run-time K
// input is fine), any axis, largest or smallest, always sorted (the spec leaves sorted=0's order
// open), ties to the lower index and NaN greatest as in the CPU reference. Ranking costs O(n) per
// element: axes longer than 16384 are declined.
#include "backends/vulkan/kernels/op_args.h"
#include "backends/vulkan/kernels/reduction_layout.h"
#include "core/error.h"

namespace vx::vk {
namespace {

constexpr int64_t kMaxAxis = 16384;

OpPlan plan_topk(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const int64_t rank = int64_t(x.shape.rank());
  VX_CHECK(rank >= 1, InvalidArgument, label(info), ": input must have rank >= 1");
  const size_t axis = size_t(normalize_axis(info, info.node.attrs.get_int("axis", -1), rank));
  VX_CHECK(info.outputs.size() == 2, InvalidArgument, label(info), ": expects 2 outputs");
  const Shape& out = info.outputs[0].shape;
  VX_CHECK(out.rank() == x.shape.rank() && info.outputs[1].shape == out, InvalidArgument, label(info),
           ": outputs ", out.str(), " and ", info.outputs[1].shape.str(), " do not fit input ", x.shape.str());
  const int64_t k = out[axis];
  VX_CHECK(k >= 0 && k <= x.shape[axis], InvalidArgument, label(info), ": k = ", k, " but the axis has ",
           x.shape[axis], " elements");
  for (size_t d = 0; d < out.rank(); ++d)
    VX_CHECK(d == axis || out[d] == x.shape[d], InvalidArgument, label(info), ": output ", out.str(),
             " does not fit input ", x.shape.str());
  if (x.shape[axis] > kMaxAxis) decline(info, cat("axis of ", x.shape[axis], " elements (ranking supports ", kMaxAxis, ")"));
  checked_count32(info, x.shape.numel());
  OpPlan plan;
  const int64_t count = x.shape.numel();
  if (count == 0 || k == 0) return plan;
  AxisRows r = rows_at(x.shape, axis);
  struct {
    int32_t count, n, inner, k, largest;
  } push{int32_t(count), int32_t(r.n), int32_t(r.inner), int32_t(k),
         info.node.attrs.get_int("largest", 1) != 0 ? 1 : 0};
  Dispatch d;
  d.shader = shader_variant("topk", {x.device});
  d.bindings = {Binding::in(0), Binding::out(0), Binding::out(1)};
  d.set_push(push);
  d.groups = linear_groups(uint64_t(count));
  plan.dispatches.push_back(std::move(d));
  plan.variant = "rank";
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(topk, {"TopK", "", 0, plan_topk});

}  // namespace vx::vk

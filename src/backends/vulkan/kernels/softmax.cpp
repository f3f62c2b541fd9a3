// Softmax, LogSoftmax and Hardmax (shader softmax): opset < 13 coerces the input to 2-D at
// `axis` (default 1) and normalises each row of the flattened trailing extent; opset >= 13 works
// along one axis (default -1). Float tensors only (integer inputs are declined).
#include "backends/vulkan/kernels/op_args.h"
#include "backends/vulkan/kernels/reduction_layout.h"
#include "core/error.h"

namespace vx::vk {
namespace {

OpPlan plan_softmax(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  if (x.device == DeviceType::i32) decline(info, "integer input");
  const int64_t rank = int64_t(x.shape.rank());
  VX_CHECK(rank >= 1, InvalidArgument, label(info), ": input must have rank >= 1");
  const bool legacy = info.opset > 0 && info.opset < 13;
  const size_t axis = size_t(normalize_axis(info, info.node.attrs.get_int("axis", legacy ? 1 : -1), rank));
  AxisRows r = rows_at(x.shape, axis);
  if (legacy) {  // coerce to 2-D: [prod(dims before axis), prod(dims from axis)]
    r.n *= r.inner;
    r.inner = 1;
  }
  checked_count32(info, x.shape.numel());
  OpPlan plan;
  const int64_t rows = r.outer * r.inner;
  if (rows == 0 || r.n == 0) return plan;
  const int32_t threads = threads_per_output(r.n);
  struct {
    int32_t rows, n, inner, threads, kind;
  } push{int32_t(rows), int32_t(r.n), int32_t(r.inner), threads,
         info.node.op == "Softmax" ? 0 : info.node.op == "LogSoftmax" ? 1 : 2};
  Dispatch d;
  d.shader = shader_variant("softmax", {x.device});
  d.bindings = {Binding::in(0), Binding::out(0)};
  d.set_push(push);
  d.groups = reduction_groups(rows, threads);
  plan.dispatches.push_back(std::move(d));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(softmax, {"Softmax", "", 0, plan_softmax});
VX_REGISTER_VK_OP(log_softmax, {"LogSoftmax", "", 0, plan_softmax});
VX_REGISTER_VK_OP(hardmax, {"Hardmax", "", 0, plan_softmax});

}  // namespace vx::vk

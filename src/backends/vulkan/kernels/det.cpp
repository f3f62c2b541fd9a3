// Det on Vulkan (det.comp): one invocation per trailing [M, M] matrix, LU with partial
// pivoting in fp32 on a scratch copy (the CPU reference does the same in double).
#include "backends/vulkan/kernels/op_args.h"

namespace vx::vk {
namespace {

struct DetPush {
  uint32_t count = 0;
  int32_t m = 0;
};

OpPlan plan_det(const OpInfo& info) {
  require_inputs(info, 1);
  const OpTensor& x = info.inputs[0];
  VX_CHECK(is_float(x.dtype), Unsupported, label(info), ": floats only");
  const size_t rank = x.shape.rank();
  VX_CHECK(rank >= 2 && x.shape[rank - 1] == x.shape[rank - 2], InvalidArgument, label(info),
           ": the input must be [..., M, M], not ", x.shape.str());
  DetPush push;
  push.m = int32_t(x.shape[rank - 1]);
  push.count = checked_count32(info, product(x.shape, 0, rank - 2));
  checked_count32(info, x.shape.numel());
  OpPlan plan;
  plan.scratch_bytes.push_back(uint64_t(std::max<int64_t>(x.shape.numel(), 1)) * 4);
  plan.dispatches.push_back(make_dispatch(shader_variant("det", {x.device}),
                                          {Binding::in(0), Binding::scratch_buffer(0), Binding::out(0)}, push,
                                          push.count));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(det, {"Det", "", 0, plan_det});

}  // namespace vx::vk

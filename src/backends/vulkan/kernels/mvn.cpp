// MeanVarianceNormalization on Vulkan (mvn.comp): over any set of axes (default 0, 2, 3),
// two passes per group in fp32.
#include "backends/vulkan/kernels/op_args.h"

namespace vx::vk {
namespace {

struct MvnPush {
  uint32_t count = 0, reduced = 1;
  int32_t reduce_mask = 0;
  int32_t dims[6]{}, strides[6]{};
};

OpPlan plan_mvn(const OpInfo& info) {
  require_inputs(info, 1);
  const OpTensor& x = info.inputs[0];
  VX_CHECK(is_float(x.dtype), Unsupported, label(info), ": floats only");
  const int64_t rank = int64_t(x.shape.rank());
  VX_CHECK(rank >= 1 && rank <= 6, Unsupported, label(info), ": rank ", rank, " (1 to 6)");
  const int pad = 6 - int(rank);
  MvnPush push;
  int64_t stride = 1;
  for (int d = 5; d >= 0; --d) {
    const bool real = d >= pad;
    push.dims[d] = real ? int32_t(x.shape[size_t(d - pad)]) : 1;
    push.strides[d] = int32_t(stride);
    stride *= push.dims[d];
  }
  int64_t reduced = 1;
  for (int64_t a : info.node.attrs.get_ints("axes", {0, 2, 3})) {
    const int d = int(normalize_axis(info, a, rank)) + pad;
    if (push.reduce_mask & (1 << d)) continue;
    push.reduce_mask |= 1 << d;
    reduced *= push.dims[d];
  }
  checked_count32(info, x.shape.numel());
  push.reduced = uint32_t(reduced);
  push.count = reduced ? uint32_t(x.shape.numel() / reduced) : 0;
  OpPlan plan;
  plan.dispatches.push_back(
      make_dispatch(shader_variant("mvn", {x.device}), {Binding::in(0), Binding::out(0)}, push, push.count));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(mean_variance_normalization, {"MeanVarianceNormalization", "", 0, plan_mvn});

}  // namespace vx::vk

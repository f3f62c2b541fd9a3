// Local normalizations on Vulkan: LRN (more_lrn.comp, across channels) and
// MeanVarianceNormalization (more_mvn.comp, over any set of axes; default 0, 2, 3). fp32 math.
#include "backends/vulkan/ops/more_ops_util.h"

namespace vx::vk {
namespace {

using namespace more;

struct LrnPush {
  uint32_t count = 0;
  int32_t channels = 0;
  uint32_t spatial = 1;
  int32_t before = 0, after = 0;
  float alpha_over_size = 0, beta = 0, bias = 0;
};
struct MvnPush {
  uint32_t count = 0, reduced = 1;
  int32_t reduce_mask = 0;
  int32_t dims[6]{}, strides[6]{};
};

OpPlan plan_lrn(const OpInfo& info) {
  require_inputs(info, 1);
  const OpTensor& x = info.inputs[0];
  VX_CHECK(is_float(x.dtype), Unsupported, node_label(info), ": floats only");
  VX_CHECK(x.shape.rank() >= 2, InvalidArgument, node_label(info), ": expects N x C x ..., got ", x.shape.str());
  const Attributes& at = info.node.attrs;
  const int64_t size = at.get_int("size", 0);
  VX_CHECK(size >= 1, InvalidArgument, node_label(info), ": size must be >= 1");
  LrnPush push;
  push.count = count32(info, x.shape.numel());
  push.channels = int32_t(x.shape[1]);
  push.spatial = uint32_t(std::max<int64_t>(product(x.shape, 2, x.shape.rank()), 1));
  push.before = int32_t((size - 1) / 2);
  push.after = int32_t(size - 1 - push.before);
  push.alpha_over_size = at.get_float("alpha", 1e-4f) / float(size);
  push.beta = at.get_float("beta", 0.75f);
  push.bias = at.get_float("bias", 1.0f);
  OpPlan plan;
  plan.dispatches.push_back(
      make_dispatch(cat("more_lrn.", letter(x.device)), {Binding::in(0), Binding::out(0)}, push, push.count));
  return plan;
}

OpPlan plan_mvn(const OpInfo& info) {
  require_inputs(info, 1);
  const OpTensor& x = info.inputs[0];
  VX_CHECK(is_float(x.dtype), Unsupported, node_label(info), ": floats only");
  const int64_t rank = int64_t(x.shape.rank());
  VX_CHECK(rank >= 1 && rank <= 6, Unsupported, node_label(info), ": rank ", rank, " (1 to 6)");
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
  count32(info, x.shape.numel());
  push.reduced = uint32_t(reduced);
  push.count = reduced ? uint32_t(x.shape.numel() / reduced) : 0;
  OpPlan plan;
  plan.dispatches.push_back(
      make_dispatch(cat("more_mvn.", letter(x.device)), {Binding::in(0), Binding::out(0)}, push, push.count));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(lrn, {"LRN", "", 0, plan_lrn});
VX_REGISTER_VK_OP(mean_variance_normalization, {"MeanVarianceNormalization", "", 0, plan_mvn});

}  // namespace vx::vk

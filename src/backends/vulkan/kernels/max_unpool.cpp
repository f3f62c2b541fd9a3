// MaxUnpool on Vulkan (max_unpool.comp): the unpooled shape inferred from kernel_shape,
// strides and pads (the one MaxPool's indices refer to), optionally placed in a larger
// output_shape; repeated indices resolve to the last input element, as the sequential definition
// does (an atomicMax picks it, then it writes).
#include "backends/vulkan/kernels/op_args.h"

namespace vx::vk {
namespace {

struct MaxUnpoolPush {
  uint32_t count = 0;
  int32_t phase = 0, rank = 0, inferred_total = 0;
  int32_t inferred[5]{}, out_dims[5]{};
};

OpPlan plan_max_unpool(const OpInfo& info) {
  require_inputs(info, 2);
  const OpTensor &x = info.inputs[0], &idx = info.inputs[1];
  const OpTensor& y = info.outputs[0];
  VX_CHECK(idx.shape == x.shape && idx.device == DeviceType::i32 && y.device == x.device, InvalidArgument,
           label(info), ": indices shape ", idx.shape.str(), " differs from the input's ", x.shape.str());
  const size_t rank = x.shape.rank();
  VX_CHECK(rank >= 3 && rank <= 5 && y.shape.rank() == rank, Unsupported, label(info), ": expects N x C x 1 to 3 "
           "spatial axes, got ", x.shape.str());
  const Attributes& at = info.node.attrs;
  const size_t nd = rank - 2;
  std::vector<int64_t> kernel = at.get_ints("kernel_shape"), strides = at.get_ints("strides"), pads = at.get_ints("pads");
  if (strides.empty()) strides.assign(nd, 1);
  if (pads.empty()) pads.assign(2 * nd, 0);
  VX_CHECK(kernel.size() == nd && strides.size() == nd && pads.size() == 2 * nd, InvalidArgument, label(info),
           ": kernel_shape, strides and pads must cover ", nd, " spatial axes");
  MaxUnpoolPush push;
  push.rank = int32_t(rank);
  std::vector<int64_t> inferred = {x.shape[0], x.shape[1]};
  for (size_t i = 0; i < nd; ++i)
    inferred.push_back((x.shape[i + 2] - 1) * strides[i] + kernel[i] - pads[i] - pads[i + nd]);
  for (size_t d = 0; d < rank; ++d) {
    push.inferred[d] = int32_t(std::max<int64_t>(inferred[d], 1));
    push.out_dims[d] = int32_t(y.shape[d]);
  }
  push.inferred_total = checked_count32(info, Shape(inferred).numel());
  const uint32_t out_count = checked_count32(info, y.shape.numel()), in_count = checked_count32(info, x.shape.numel());
  const std::string shader = shader_variant("max_unpool", {x.device});
  const std::vector<Binding> bindings = {Binding::in(0), Binding::in(1), Binding::scratch_buffer(0), Binding::out(0)};
  OpPlan plan;
  plan.scratch_bytes.push_back(uint64_t(std::max<uint32_t>(out_count, 1)) * 4);
  for (int phase = 0; phase < 3; ++phase) {
    push.phase = phase;
    push.count = phase == 0 ? out_count : in_count;
    plan.dispatches.push_back(make_dispatch(shader, bindings, push, push.count));
  }
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(max_unpool, {"MaxUnpool", "", 0, plan_max_unpool});

}  // namespace vx::vk

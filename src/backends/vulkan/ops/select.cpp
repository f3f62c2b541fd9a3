// Ops that select or place elements by position, on Vulkan: Hardmax (sel_hardmax.comp), OneHot
// (sel_one_hot.comp, float or integer indices and values), Trilu (sel_trilu.comp, k read on the
// device) and ReverseSequence (sel_reverse_sequence.comp). The data-moving ones work for every
// storage type.
#include "backends/vulkan/ops/more_ops_util.h"

namespace vx::vk {
namespace {

using namespace more;

struct HardmaxPush {
  uint32_t count = 0, n = 0, inner = 0;
};
struct OneHotPush {
  uint32_t count = 0, depth = 0, inner = 0;
};
struct TriluPush {
  uint32_t count = 0, rows = 0, cols = 0;
  int32_t upper = 1, has_k = 0;
};
struct ReversePush {
  uint32_t count = 0, dim1 = 0, block = 0;
  int32_t batch_axis = 1, time_extent = 0;
};

OpPlan single(Dispatch d) {
  OpPlan plan;
  plan.dispatches.push_back(std::move(d));
  return plan;
}

OpPlan plan_hardmax(const OpInfo& info) {
  require_inputs(info, 1);
  const OpTensor& x = info.inputs[0];
  VX_CHECK(is_float(x.dtype), Unsupported, node_label(info), ": floats only");
  const int64_t rank = int64_t(x.shape.rank());
  VX_CHECK(rank >= 1, InvalidArgument, node_label(info), ": scalar input");
  const bool legacy = info.opset > 0 && info.opset < 13;  // coerced to 2-D at the axis
  const size_t axis = size_t(normalize_axis(info, info.node.attrs.get_int("axis", legacy ? 1 : -1), rank));
  const int64_t outer = product(x.shape, 0, axis);
  int64_t n = x.shape[axis], inner = product(x.shape, axis + 1, size_t(rank));
  if (legacy) n *= inner, inner = 1;
  HardmaxPush push{count32(info, outer * inner), uint32_t(n), uint32_t(std::max<int64_t>(inner, 1))};
  count32(info, x.shape.numel());
  return single(make_dispatch(cat("sel_hardmax.", letter(x.device)), {Binding::in(0), Binding::out(0)}, push, push.count));
}

OpPlan plan_one_hot(const OpInfo& info) {
  require_inputs(info, 3);
  const OpTensor& indices = info.inputs[0];
  const OpTensor& values = info.inputs[2];
  const OpTensor& y = info.outputs[0];
  VX_CHECK(values.shape.numel() == 2 && values.device == y.device, InvalidArgument, node_label(info),
           ": values must hold [off, on] of the output's type");
  const int64_t rank = int64_t(indices.shape.rank());
  const int64_t axis = normalize_axis(info, info.node.attrs.get_int("axis", -1), rank + 1);
  VX_CHECK(y.shape.rank() == size_t(rank + 1), InvalidArgument, node_label(info), ": output shape ", y.shape.str());
  OneHotPush push;
  push.count = count32(info, y.shape.numel());
  push.depth = uint32_t(y.shape[size_t(axis)]);
  push.inner = uint32_t(std::max<int64_t>(product(indices.shape, size_t(axis), size_t(rank)), 1));
  return single(make_dispatch(cat("sel_one_hot.", letter(indices.device), letter(y.device)),
                              {Binding::in(0), Binding::in(2), Binding::out(0)}, push, push.count));
}

OpPlan plan_trilu(const OpInfo& info) {
  require_inputs(info, 1);
  const OpTensor& x = info.inputs[0];
  VX_CHECK(x.shape.rank() >= 2, InvalidArgument, node_label(info), ": input must have rank >= 2, got ", x.shape.str());
  TriluPush push;
  push.count = count32(info, x.shape.numel());
  push.rows = uint32_t(x.shape[x.shape.rank() - 2]);
  push.cols = uint32_t(x.shape[x.shape.rank() - 1]);
  push.upper = info.node.attrs.get_int("upper", 1) != 0;
  push.has_k = info.has_input(1);
  if (push.has_k)
    VX_CHECK(info.inputs[1].shape.numel() == 1 && info.inputs[1].device == DeviceType::i32, InvalidArgument,
             node_label(info), ": k must be one integer");
  return single(make_dispatch(cat("sel_trilu.", letter(x.device)),
                              {Binding::in(0), push.has_k ? Binding::in(1) : Binding::in(0), Binding::out(0)}, push,
                              push.count));
}

OpPlan plan_reverse_sequence(const OpInfo& info) {
  require_inputs(info, 2);
  const OpTensor& x = info.inputs[0];
  const int64_t rank = int64_t(x.shape.rank());
  VX_CHECK(rank >= 2, InvalidArgument, node_label(info), ": input must have rank >= 2");
  const int64_t batch_axis = normalize_axis(info, info.node.attrs.get_int("batch_axis", 1), rank);
  const int64_t time_axis = normalize_axis(info, info.node.attrs.get_int("time_axis", 0), rank);
  VX_CHECK(batch_axis != time_axis && batch_axis <= 1 && time_axis <= 1, InvalidArgument, node_label(info),
           ": batch_axis and time_axis must be 0 and 1 in some order");
  VX_CHECK(info.inputs[1].shape.numel() == x.shape[size_t(batch_axis)] && info.inputs[1].device == DeviceType::i32,
           InvalidArgument, node_label(info), ": sequence_lens must hold one integer per batch");
  ReversePush push;
  push.count = count32(info, x.shape.numel());
  push.dim1 = uint32_t(x.shape[1]);
  push.block = uint32_t(std::max<int64_t>(product(x.shape, 2, size_t(rank)), 1));
  push.batch_axis = int32_t(batch_axis);
  push.time_extent = int32_t(x.shape[size_t(time_axis)]);
  return single(make_dispatch(cat("sel_reverse_sequence.", letter(x.device)),
                              {Binding::in(0), Binding::in(1), Binding::out(0)}, push, push.count));
}

}  // namespace

VX_REGISTER_VK_OP(hardmax, {"Hardmax", "", 0, plan_hardmax});
VX_REGISTER_VK_OP(one_hot, {"OneHot", "", 0, plan_one_hot});
VX_REGISTER_VK_OP(trilu, {"Trilu", "", 0, plan_trilu});
VX_REGISTER_VK_OP(reverse_sequence, {"ReverseSequence", "", 0, plan_reverse_sequence});

}  // namespace vx::vk

// ONNX reductions over axes (shader red_reduce): ReduceSum, ReduceMean, ReduceMax, ReduceMin,
// ReduceProd, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare; and ArgMax /
// ArgMin (shader red_arg). Axes come from the attribute (ReduceSum < 13, the others < 18) or the
// constant input 1 (later; a run-time axes input is declined); keepdims; noop_with_empty_axes
// (an alias of the input). Int tensors: every reduction except L2, LogSum and LogSumExp.
#include "backends/vulkan/ops/op_args.h"
#include "backends/vulkan/ops/reduction_layout.h"
#include "core/error.h"

namespace vx::vk {
namespace {

using namespace opargs;

int reduce_code(const std::string& op) {
  static const char* names[] = {"ReduceSum", "ReduceMean", "ReduceMax",    "ReduceMin",       "ReduceProd",
                                "ReduceL1",  "ReduceL2",   "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"};
  for (int i = 0; i < 10; ++i)
    if (op == names[i]) return i;
  fail(ErrorCode::Internal, cat("not a reduction: ", op));
}

OpPlan plan_reduce(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const int64_t rank = int64_t(x.shape.rank());
  const int code = reduce_code(info.node.op);
  if (x.device == DeviceType::i32 && (code == 6 || code == 7 || code == 8))
    decline(info, "float-valued reduction of an integer tensor");
  std::vector<int64_t> axes;
  bool given = false;
  if (auto a = constant_ints(info, 1, "axes")) {
    axes = *a;
    given = true;
  } else if (info.node.attrs.has("axes")) {
    axes = info.node.attrs.get_ints("axes");
    given = true;
  }
  std::vector<bool> reduced(size_t(rank), false);
  if (!given || axes.empty()) {
    if (info.node.attrs.get_int("noop_with_empty_axes", 0) != 0) {
      OpPlan plan;
      plan.output0_aliases_input0 = true;
      plan.variant = "alias";
      return plan;
    }
    reduced.assign(size_t(rank), true);
  }
  for (int64_t a : axes) reduced[size_t(normalize_axis(info, a, rank))] = true;
  // The output's element count must be the kept extents' product (keepdims or not).
  int64_t kept = 1;
  for (size_t d = 0; d < size_t(rank); ++d)
    if (!reduced[d]) kept *= x.shape[d];
  VX_CHECK(info.outputs.at(0).shape.numel() == kept, InvalidArgument, label(info), ": output ",
           info.outputs[0].shape.str(), " does not hold the ", kept, " results");
  ReducePush push = reduction_layout(info, x.shape.dims(), reduced);
  OpPlan plan;
  if (push.outputs == 0) return plan;
  push.op = code;
  push.threads = threads_per_output(push.group);
  Dispatch d;
  d.shader = typed_shader("red_reduce", x.device);
  d.bindings = {Binding::in(0), Binding::out(0)};
  d.set_push(push);
  d.groups = reduction_groups(push.outputs, push.threads);
  plan.dispatches.push_back(std::move(d));
  return plan;
}

OpPlan plan_arg(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const int64_t rank = int64_t(x.shape.rank());
  VX_CHECK(rank >= 1, InvalidArgument, label(info), ": input must have rank >= 1");
  const size_t axis = size_t(normalize_axis(info, info.node.attrs.get_int("axis", 0), rank));
  VX_CHECK(x.shape[axis] > 0, InvalidArgument, label(info), ": cannot take the arg of an empty axis");
  std::vector<bool> reduced(size_t(rank), false);
  reduced[axis] = true;
  VX_CHECK(info.outputs.at(0).shape.numel() == x.shape.numel() / x.shape[axis], InvalidArgument, label(info),
           ": output ", info.outputs[0].shape.str(), " does not fit input ", x.shape.str());
  ReducePush push = reduction_layout(info, x.shape.dims(), reduced);
  OpPlan plan;
  if (push.outputs == 0) return plan;
  push.op = info.node.op == "ArgMax" ? 0 : 1;
  push.select_last = info.node.attrs.get_int("select_last_index", 0) != 0 ? 1 : 0;
  push.threads = threads_per_output(push.group);
  Dispatch d;
  d.shader = typed_shader("red_arg", x.device);
  d.bindings = {Binding::in(0), Binding::out(0)};
  d.set_push(push);
  d.groups = reduction_groups(push.outputs, push.threads);
  plan.dispatches.push_back(std::move(d));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(reduce_sum, {"ReduceSum", "", 0, plan_reduce});
VX_REGISTER_VK_OP(reduce_mean, {"ReduceMean", "", 0, plan_reduce});
VX_REGISTER_VK_OP(reduce_max, {"ReduceMax", "", 0, plan_reduce});
VX_REGISTER_VK_OP(reduce_min, {"ReduceMin", "", 0, plan_reduce});
VX_REGISTER_VK_OP(reduce_prod, {"ReduceProd", "", 0, plan_reduce});
VX_REGISTER_VK_OP(reduce_l1, {"ReduceL1", "", 0, plan_reduce});
VX_REGISTER_VK_OP(reduce_l2, {"ReduceL2", "", 0, plan_reduce});
VX_REGISTER_VK_OP(reduce_log_sum, {"ReduceLogSum", "", 0, plan_reduce});
VX_REGISTER_VK_OP(reduce_log_sum_exp, {"ReduceLogSumExp", "", 0, plan_reduce});
VX_REGISTER_VK_OP(reduce_sum_square, {"ReduceSumSquare", "", 0, plan_reduce});
VX_REGISTER_VK_OP(arg_max, {"ArgMax", "", 0, plan_arg});
VX_REGISTER_VK_OP(arg_min, {"ArgMin", "", 0, plan_arg});

}  // namespace vx::vk

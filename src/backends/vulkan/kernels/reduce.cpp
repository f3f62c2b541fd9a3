// ONNX reductions over axes (shader reduce): ReduceSum, ReduceMean, ReduceMax, ReduceMin,
// ReduceProd, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare; and ArgMax /
// ArgMin (shader reduce_arg). Axes come from the attribute (ReduceSum < 13, the others < 18) or the
// input 1 (later): a constant, or computed at run time, when the bound output shape tells which axes
// were reduced (else declined); keepdims; noop_with_empty_axes (an alias of the input). Int tensors:
// every reduction except L2, LogSum and LogSumExp.
#include <algorithm>
#include <optional>

#include "backends/vulkan/kernels/op_args.h"
#include "backends/vulkan/kernels/reduction_layout.h"
#include "core/error.h"

namespace vx::vk {
namespace {

int reduce_code(const std::string& op) {
  static const char* names[] = {"ReduceSum", "ReduceMean", "ReduceMax",    "ReduceMin",       "ReduceProd",
                                "ReduceL1",  "ReduceL2",   "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"};
  for (int i = 0; i < 10; ++i)
    if (op == names[i]) return i;
  fail(ErrorCode::Internal, cat("not a reduction: ", op));
}

OpPlan alias_plan() {
  OpPlan plan;
  plan.output0_aliases_input0 = true;
  plan.variant = "alias";
  return plan;
}

// Axes given as a run-time input: the bound output shape (observed by the executor) says which
// axes were reduced, up to axes of extent 1, which change nothing for the sum-like reductions.
// Returns the reduced axes, or nullopt for "the output is the input" (noop_with_empty_axes);
// declines when the shapes leave the answer open.
std::optional<std::vector<bool>> reduced_axes_from_shapes(const OpInfo& info, int code, bool keepdims, bool noop) {
  const std::vector<int64_t>& in = info.inputs[0].shape.dims();
  const std::vector<int64_t>& out = info.outputs.at(0).shape.dims();
  const size_t rank = in.size();
  // Over a single element these give the element itself (LogSumExp up to rounding).
  const bool sum_like = code <= 4 || code == 8;
  if (rank == 0) {
    if (!sum_like) decline(info, "axes (input 1) of a scalar are computed at run time");
    return std::vector<bool>{};
  }
  if (rank > 12) decline(info, "axes computed at run time on a tensor of rank > 12");
  std::optional<std::vector<bool>> nontrivial;  // the reduced axes of extent != 1, agreed by every candidate
  bool ambiguous = false, any = false;
  for (uint32_t mask = 1; mask < (1u << rank); ++mask) {
    std::vector<int64_t> dims;
    for (size_t d = 0; d < rank; ++d) {
      const bool r = (mask >> d) & 1u;
      if (!r) dims.push_back(in[d]);
      else if (keepdims) dims.push_back(1);
    }
    if (dims != out) continue;
    std::vector<bool> set(rank, false);
    for (size_t d = 0; d < rank; ++d) set[d] = ((mask >> d) & 1u) && in[d] != 1;
    any = true;
    if (nontrivial && *nontrivial != set) ambiguous = true;
    nontrivial = set;
  }
  const bool identity = noop && out == in;
  if (identity && !any) return std::nullopt;
  if (!identity && !any)
    fail(ErrorCode::InvalidArgument, cat(label(info), ": no set of axes reduces ", Shape(in).str(), " to ", Shape(out).str()));
  if (ambiguous) decline(info, "axes (input 1) are computed at run time and the shapes do not tell which");
  if (identity && (!sum_like || std::find(nontrivial->begin(), nontrivial->end(), true) != nontrivial->end()))
    decline(info, "axes (input 1) are computed at run time and the shapes do not tell whether they are empty");
  return nontrivial;
}

OpPlan plan_reduce(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const int64_t rank = int64_t(x.shape.rank());
  const int code = reduce_code(info.node.op);
  if (x.device == DeviceType::i32 && (code == 6 || code == 7 || code == 8))
    decline(info, "float-valued reduction of an integer tensor");
  const bool keepdims = info.node.attrs.get_int("keepdims", 1) != 0;
  const bool noop = info.node.attrs.get_int("noop_with_empty_axes", 0) != 0;
  std::vector<bool> reduced(size_t(rank), false);
  const bool runtime_axes = info.has_input(1) && (info.inputs[1].constant == nullptr || !info.inputs[1].constant->defined());
  if (runtime_axes) {
    auto from_shapes = reduced_axes_from_shapes(info, code, keepdims, noop);
    if (!from_shapes) return alias_plan();
    reduced = *from_shapes;
  } else {
    std::vector<int64_t> axes;
    bool given = false;
    if (auto a = constant_ints(info, 1, "axes")) {
      axes = *a;
      given = true;
    } else if (info.node.attrs.has("axes")) {
      axes = info.node.attrs.get_ints("axes");
      given = true;
    }
    if (!given || axes.empty()) {
      if (noop) return alias_plan();
      reduced.assign(size_t(rank), true);
    }
    for (int64_t a : axes) reduced[size_t(normalize_axis(info, a, rank))] = true;
  }
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
  d.shader = shader_variant("reduce", {x.device});
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
  d.shader = shader_variant("reduce_arg", {x.device});
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

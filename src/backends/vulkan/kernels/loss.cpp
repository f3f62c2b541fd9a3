// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opsets 12, 13; shader nll_loss, and
// softmax for the log-probabilities): class weights, ignore_index, reduction none / sum / mean
// (mean divides by the sum of the counted targets' weights, as ONNX does). Float inputs only.
// Labels outside [0, C) (the CPU throws) are clamped on the GPU.
#include <algorithm>

#include "backends/vulkan/kernels/op_args.h"
#include "backends/vulkan/kernels/reduction_layout.h"
#include "core/error.h"

namespace vx::vk {
namespace {

struct NllPush {
  int32_t count, classes, inner, stage, reduction, has_weight, has_ignore, ignore_index;
};

// The NLL dispatches over log-probabilities bound at `log_prob` (shape of input 0).
void add_nll(const OpInfo& info, OpPlan& plan, Binding log_prob) {
  const OpTensor& x = info.inputs.at(0);
  const OpTensor& target = info.inputs.at(1);
  VX_CHECK(x.shape.rank() >= 2, InvalidArgument, label(info), ": the input must be [N, C, ...], not ", x.shape.str());
  if (x.device == DeviceType::i32) decline(info, "integer input");
  if (target.dtype == DType::f32 || target.dtype == DType::f16) decline(info, "the target is not integers");
  std::vector<int64_t> target_dims = x.shape.dims();
  target_dims.erase(target_dims.begin() + 1);
  VX_CHECK(target.shape == Shape(target_dims), InvalidArgument, label(info), ": the target must have shape ",
           Shape(target_dims).str(), ", not ", target.shape.str());
  const int64_t classes = x.shape[1], count = target.shape.numel();
  const bool has_weight = info.has_input(2);
  if (has_weight)
    VX_CHECK(info.inputs[2].shape.numel() == classes, InvalidArgument, label(info), ": weights must be [", classes, "]");
  const std::string reduction = info.node.attrs.get_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    decline(info, cat("unknown reduction '", reduction, "'"));
  checked_count32(info, x.shape.numel());
  if (count == 0 || classes == 0) decline(info, "empty input");
  NllPush push{};
  push.count = int32_t(count);
  push.classes = int32_t(classes);
  push.inner = int32_t(count / x.shape[0]);
  push.reduction = reduction == "none" ? 0 : reduction == "sum" ? 1 : 2;
  push.has_weight = has_weight ? 1 : 0;
  push.has_ignore = info.node.attrs.has("ignore_index") ? 1 : 0;
  const int64_t ignore = info.node.attrs.get_int("ignore_index", 0);
  push.ignore_index = int32_t(std::clamp<int64_t>(ignore, INT32_MIN, INT32_MAX));
  if (ignore != int64_t(push.ignore_index)) push.has_ignore = 0;  // no int32 label can equal it
  plan.scratch_bytes.push_back(uint64_t(count) * 2 * sizeof(float));
  const Binding scratch = Binding::scratch_buffer(int(plan.scratch_bytes.size() - 1));
  Dispatch d;
  d.shader = shader_variant("nll_loss", {x.device});
  // An absent weight binds the input in its place (never read).
  d.bindings = {log_prob, Binding::in(1), has_weight ? Binding::in(2) : Binding::in(0), Binding::out(0), scratch};
  d.set_push(push);
  d.groups = linear_groups(uint64_t(count));
  plan.dispatches.push_back(d);
  if (push.reduction != 0) {
    push.stage = 1;
    d.set_push(push);
    d.groups = {1, 1, 1};
    plan.dispatches.push_back(std::move(d));
  }
}

OpPlan plan_nll(const OpInfo& info) {
  OpPlan plan;
  add_nll(info, plan, Binding::in(0));
  return plan;
}

OpPlan plan_softmax_cross_entropy(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  VX_CHECK(x.shape.rank() >= 2, InvalidArgument, label(info), ": scores must be [N, C, ...], not ", x.shape.str());
  if (x.device == DeviceType::i32) decline(info, "integer input");
  OpPlan plan;
  // log_softmax over axis 1 into output 1 when requested, else into a scratch buffer.
  const bool wants_log_prob = info.node.outputs.size() > 1 && info.node.outputs[1] != kNoValue;
  Binding log_prob = Binding::out(1);
  if (!wants_log_prob) {
    plan.scratch_bytes.push_back(uint64_t(x.shape.numel()) * device_type_bytes(x.device));
    log_prob = Binding::scratch_buffer(0);
  }
  AxisRows r = rows_at(x.shape, 1);
  const int64_t rows = r.outer * r.inner;
  checked_count32(info, x.shape.numel());
  if (rows == 0 || r.n == 0) decline(info, "empty input");
  const int32_t threads = threads_per_output(r.n);
  struct {
    int32_t rows, n, inner, threads, kind;
  } push{int32_t(rows), int32_t(r.n), int32_t(r.inner), threads, 1};
  Dispatch d;
  d.shader = shader_variant("softmax", {x.device});
  d.bindings = {Binding::in(0), log_prob};
  d.set_push(push);
  d.groups = reduction_groups(rows, threads);
  plan.dispatches.push_back(std::move(d));
  add_nll(info, plan, log_prob);
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(nll_loss, {"NegativeLogLikelihoodLoss", "", 0, plan_nll});
VX_REGISTER_VK_OP(softmax_cross_entropy, {"SoftmaxCrossEntropyLoss", "", 0, plan_softmax_cross_entropy});

}  // namespace vx::vk

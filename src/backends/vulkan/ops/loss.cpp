// The loss family on Vulkan: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opset 12/13)
// with class weights, ignore_index (negative too), reduction none / sum / mean, any rank and SCE's
// optional log_prob output. Targets are int32 on the device. loss_nll.comp computes the loss per
// target position; for sum / mean loss_reduce.comp then sums (loss, weight) pairs in one workgroup
// (mean divides by the total weight of the targets that count, as the ONNX reference does).
#include "backends/vulkan/ops/more_ops_util.h"

namespace vx::vk {
namespace {

using namespace more;

struct LossPush {  // loss_nll.comp
  uint32_t count = 0, classes = 0, inner = 0;
  int32_t flags = 0;
  int32_t ignore_index = 0;
};
struct LossReducePush {  // loss_reduce.comp
  uint32_t count = 0;
  int32_t mean = 0;
};

OpPlan plan_loss(const OpInfo& info, bool softmax) {
  require_inputs(info, 2);
  const OpTensor& x = info.inputs[0];
  const OpTensor& target = info.inputs[1];
  VX_CHECK(is_float(x.dtype), Unsupported, node_label(info), ": ", dtype_name(x.dtype), " scores (floats only)");
  VX_CHECK(x.shape.rank() >= 2, InvalidArgument, node_label(info), ": the input must be [N, C, ...], not ",
           x.shape.str());
  std::vector<int64_t> target_dims = x.shape.dims();
  target_dims.erase(target_dims.begin() + 1);
  VX_CHECK(target.shape == Shape(target_dims), InvalidArgument, node_label(info), ": the target must have shape ",
           Shape(target_dims).str(), ", not ", target.shape.str());
  VX_CHECK(target.device == DeviceType::i32, InvalidArgument, node_label(info), ": the target is not integer");
  const bool weighted = info.has_input(2);
  if (weighted)
    VX_CHECK(info.inputs[2].shape.numel() == x.shape[1] && info.inputs[2].device == x.device, InvalidArgument,
             node_label(info), ": weights must be [", x.shape[1], "] of the input's type");
  const Attributes& at = info.node.attrs;
  const std::string reduction = at.get_string("reduction", "mean");
  VX_CHECK(reduction == "none" || reduction == "sum" || reduction == "mean", InvalidArgument, node_label(info),
           ": unknown reduction '", reduction, "'");
  const bool reduce = reduction != "none";
  const OpTensor& y = info.outputs[0];
  VX_CHECK(y.device == x.device, InvalidArgument, node_label(info), ": the loss is not of the input's type");
  VX_CHECK(reduce ? y.shape.numel() == 1 : y.shape == target.shape, InvalidArgument, node_label(info),
           ": loss shape ", y.shape.str());
  const bool log_prob = softmax && info.node.outputs.size() > 1 && info.node.outputs[1] != kNoValue;
  if (log_prob)
    VX_CHECK(info.outputs[1].shape == x.shape && info.outputs[1].device == x.device, InvalidArgument,
             node_label(info), ": log_prob output differs from the scores");
  const int64_t ignore = at.get_int("ignore_index", 0);
  VX_CHECK(ignore >= std::numeric_limits<int32_t>::min() && ignore <= std::numeric_limits<int32_t>::max(),
           Unsupported, node_label(info), ": ignore_index ", ignore, " exceeds int32");

  LossPush push;
  push.count = count32(info, target.shape.numel());
  push.classes = count32(info, x.shape[1]);
  push.inner = uint32_t(std::max<int64_t>(product(x.shape, 2, x.shape.rank()), 1));
  count32(info, x.shape.numel());
  push.flags = (weighted ? 1 : 0) | (at.has("ignore_index") ? 2 : 0) | (softmax ? 4 : 0) | (reduce ? 8 : 0) |
               (log_prob ? 16 : 0);
  push.ignore_index = int32_t(ignore);
  OpPlan plan;
  if (reduce) plan.scratch_bytes.push_back(std::max<uint64_t>(uint64_t(push.count) * 8, 8));
  const Binding partial = reduce ? Binding::scratch_buffer(0) : Binding::out(0);
  const char v = letter(x.device);
  plan.dispatches.push_back(make_dispatch(cat("loss_nll.", v),
                                          {Binding::in(0), Binding::in(1), weighted ? Binding::in(2) : Binding::in(0),
                                           Binding::out(0), partial, log_prob ? Binding::out(1) : Binding::out(0)},
                                          push, push.count));
  if (reduce) {
    LossReducePush r{push.count, reduction == "mean" ? 1 : 0};
    Dispatch d = make_dispatch(cat("loss_reduce.", v), {Binding::scratch_buffer(0), Binding::out(0)}, r, 1);
    d.groups = {1, 1, 1};
    plan.dispatches.push_back(d);
  }
  plan.variant = reduce ? "per-target+reduce" : "per-target";
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(nll_loss, {"NegativeLogLikelihoodLoss", "", 0, [](const OpInfo& i) { return plan_loss(i, false); }});
VX_REGISTER_VK_OP(softmax_cross_entropy_loss,
                  {"SoftmaxCrossEntropyLoss", "", 0, [](const OpInfo& i) { return plan_loss(i, true); }});

}  // namespace vx::vk

// Reference kernels for ONNX's loss functions: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
// (opset 12/13), with class weights, ignore_index and reduction none / sum / mean (mean divides by
// the sum of the weights of the targets that count, as the ONNX reference does).
#include <cmath>
#include <limits>

#include "backends/cpu/reference/math_util.h"

namespace vx::cpu::ref {
namespace {

// input: [N, C, d1..dk] log-probabilities (float); target: [N, d1..dk] integers.
// Writes the loss (reduced or not) to output 0.
void nll_loss(KernelContext& ctx, const Tensor& log_prob, const Tensor& target, const Tensor* weight) {
  VX_CHECK(log_prob.dtype() == DType::f32, Unsupported, node_label(ctx), ": floats only");
  VX_CHECK(log_prob.rank() >= 2, InvalidArgument, node_label(ctx), ": the input must be [N, C, ...], not ",
           log_prob.shape().str());
  const int64_t n = log_prob.dim(0), c = log_prob.dim(1);
  std::vector<int64_t> target_dims = log_prob.shape().dims();
  target_dims.erase(target_dims.begin() + 1);
  VX_CHECK(target.shape() == Shape(target_dims), InvalidArgument, node_label(ctx), ": the target must have shape ",
           Shape(target_dims).str(), ", not ", target.shape().str());
  if (weight) VX_CHECK(weight->numel() == c && weight->dtype() == DType::f32, InvalidArgument, node_label(ctx),
                       ": weights must be [", c, "] floats");
  std::vector<int64_t> labels = int_values(target, ctx, "target");
  const bool has_ignore = ctx.node().attrs.has("ignore_index");
  const int64_t ignore = ctx.node().attrs.get_int("ignore_index", 0);
  const std::string reduction = ctx.node().attrs.get_string("reduction", "mean");
  VX_CHECK(reduction == "none" || reduction == "sum" || reduction == "mean", InvalidArgument, node_label(ctx),
           ": unknown reduction '", reduction, "'");

  const int64_t inner = n ? target.numel() / n : 0;  // d1 * ... * dk
  const float* in = log_prob.data<float>();
  std::vector<double> loss(size_t(target.numel()), 0.0);
  double weighted_sum = 0, weight_total = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t d = 0; d < inner; ++d) {
      const int64_t k = i * inner + d;
      const int64_t label_k = labels[size_t(k)];
      if (has_ignore && label_k == ignore) continue;
      VX_CHECK(label_k >= 0 && label_k < c, InvalidArgument, node_label(ctx), ": target ", label_k,
               " is outside the ", c, " classes");
      const double w = weight ? double(weight->data<float>()[label_k]) : 1.0;
      loss[size_t(k)] = -double(in[(i * c + label_k) * inner + d]) * w;
      weighted_sum += loss[size_t(k)];
      weight_total += w;
    }
  if (reduction == "none") {
    Tensor& y = ctx.output(0, DType::f32, target.shape());
    for (size_t k = 0; k < loss.size(); ++k) y.data<float>()[k] = float(loss[k]);
    return;
  }
  Tensor& y = ctx.output(0, DType::f32, Shape{});
  y.data<float>()[0] = float(reduction == "sum" ? weighted_sum : weighted_sum / weight_total);
}

void nll_loss_kernel(KernelContext& ctx) {
  nll_loss(ctx, ctx.input(0), ctx.input(1), ctx.has_input(2) ? &ctx.input(2) : nullptr);
}

// log_softmax over axis 1, then the NLL loss; output 1 (optional) is the log-probabilities.
void softmax_cross_entropy_kernel(KernelContext& ctx) {
  const Tensor& scores = ctx.input(0);
  VX_CHECK(scores.dtype() == DType::f32, Unsupported, node_label(ctx), ": floats only");
  VX_CHECK(scores.rank() >= 2, InvalidArgument, node_label(ctx), ": scores must be [N, C, ...], not ",
           scores.shape().str());
  const int64_t n = scores.dim(0), c = scores.dim(1), inner = n * c != 0 ? scores.numel() / (n * c) : 0;
  Tensor log_prob(DType::f32, scores.shape());
  const float* in = scores.data<float>();
  float* out = log_prob.data<float>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t d = 0; d < inner; ++d) {
      const float* p = in + i * c * inner + d;
      float m = -std::numeric_limits<float>::infinity();
      for (int64_t k = 0; k < c; ++k) m = std::max(m, p[k * inner]);
      double sum = 0;
      for (int64_t k = 0; k < c; ++k) sum += std::exp(double(p[k * inner]) - m);
      const double log_sum = std::log(sum);
      for (int64_t k = 0; k < c; ++k) out[i * c * inner + k * inner + d] = float(double(p[k * inner]) - m - log_sum);
    }
  nll_loss(ctx, log_prob, ctx.input(1), ctx.has_input(2) ? &ctx.input(2) : nullptr);
  if (ctx.num_outputs() > 1 && ctx.node().outputs[1] != kNoValue) {
    Tensor& lp = ctx.output(1, DType::f32, scores.shape());
    if (lp.nbytes()) std::memcpy(lp.raw(), log_prob.raw(), lp.nbytes());
  }
}

}  // namespace

VX_REGISTER_CPU_KERNEL(nll_loss, {"NegativeLogLikelihoodLoss", "reference", 0, nullptr, with_f16_as_f32(nll_loss_kernel)});
VX_REGISTER_CPU_KERNEL(softmax_cross_entropy, {"SoftmaxCrossEntropyLoss", "reference", 0, nullptr,
                                               with_f16_as_f32(softmax_cross_entropy_kernel)});

}  // namespace vx::cpu::ref

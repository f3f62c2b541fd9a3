// Reference loss kernels: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opsets 12/13),
// with class weights, ignore_index and the none / sum / mean reductions. Inputs are
// N x C (x D1 x ...), targets N (x D1 x ...); the class axis is 1.
#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/onnx_kernel_util.h"

namespace vx::cpu::ref {
namespace {

// -log_prob[target] * weight[target] per target element, reduced as asked. `log_prob` is laid
// out N x C x inner.
void nll_loss(KernelContext& ctx, const std::vector<double>& log_prob, const Shape& input_shape, const Tensor& target,
              size_t weight_input, DType dtype) {
  VX_CHECK(input_shape.rank() >= 2 && target.rank() == input_shape.rank() - 1, InvalidArgument, node_label(ctx),
           ": input ", input_shape.str(), " and target ", target.shape().str(), " do not fit N x C x ... and N x ...");
  int64_t batch = input_shape[0], classes = input_shape[1];
  int64_t inner = product(input_shape.dims(), 2, input_shape.rank());
  for (size_t d = 0; d < target.rank(); ++d)
    VX_CHECK(target.dim(d) == input_shape[d == 0 ? 0 : d + 1], InvalidArgument, node_label(ctx), ": target ",
             target.shape().str(), " does not match input ", input_shape.str());
  const Attributes& attrs = ctx.node().attrs;
  std::string reduction = attrs.get_string("reduction", "mean");
  VX_CHECK(reduction == "none" || reduction == "sum" || reduction == "mean", Unsupported, node_label(ctx),
           ": unknown reduction '", reduction, "'");
  bool has_ignore = attrs.has("ignore_index");
  int64_t ignore = attrs.get_int("ignore_index", 0);
  std::vector<double> weight;
  if (ctx.has_input(weight_input)) {
    weight = read_doubles(ctx.input(weight_input));
    VX_CHECK(int64_t(weight.size()) == classes, InvalidArgument, node_label(ctx), ": ", weight.size(),
             " weights for ", classes, " classes");
  }
  std::vector<int64_t> t = read_ints(target);
  std::vector<double> loss(t.size());
  double loss_sum = 0, weight_sum = 0;
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t i = 0; i < inner; ++i) {
      size_t at = size_t(n * inner + i);
      int64_t c = t[at];
      if (has_ignore && c == ignore) {
        loss[at] = 0;
        continue;
      }
      VX_CHECK(c >= 0 && c < classes, InvalidArgument, node_label(ctx), ": target ", c, " is not a class index");
      double w = weight.empty() ? 1.0 : weight[size_t(c)];
      loss[at] = -log_prob[size_t((n * classes + c) * inner + i)] * w;
      loss_sum += loss[at];
      weight_sum += w;
    }
  if (reduction == "none") {
    write_doubles(ctx.output(0, dtype, target.shape()), loss);
  } else {
    double v = reduction == "sum" ? loss_sum : loss_sum / weight_sum;  // 0/0 is NaN, as in NumPy
    write_doubles(ctx.output(0, dtype, Shape{}), {v});
  }
}

void nll_loss_kernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  nll_loss(ctx, read_doubles(input), input.shape(), ctx.input(1), 2, input.dtype());
}

void softmax_cross_entropy_kernel(KernelContext& ctx) {
  const Tensor& scores = ctx.input(0);
  VX_CHECK(scores.rank() >= 2, InvalidArgument, node_label(ctx), ": scores must be N x C x ..., got ",
           scores.shape().str());
  int64_t batch = scores.dim(0), classes = scores.dim(1), inner = product(scores.shape().dims(), 2, scores.rank());
  std::vector<double> v = read_doubles(scores);
  // log_softmax over the class axis, shifted by the maximum for stability.
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t c) { return size_t((n * classes + c) * inner + i); };
      double peak = -std::numeric_limits<double>::infinity();
      for (int64_t c = 0; c < classes; ++c) peak = std::max(peak, v[at(c)]);
      double sum = 0;
      for (int64_t c = 0; c < classes; ++c) sum += std::exp(v[at(c)] - peak);
      double log_sum = std::log(sum) + peak;
      for (int64_t c = 0; c < classes; ++c) v[at(c)] -= log_sum;
    }
  nll_loss(ctx, v, scores.shape(), ctx.input(1), 2, scores.dtype());
  if (ctx.num_outputs() > 1) write_doubles(ctx.output(1, scores.dtype(), scores.shape()), v);
}

}  // namespace

VX_REGISTER_CPU_KERNEL(nll_loss, {"NegativeLogLikelihoodLoss", "reference", 0, nullptr, nll_loss_kernel});
VX_REGISTER_CPU_KERNEL(softmax_cross_entropy,
                       {"SoftmaxCrossEntropyLoss", "reference", 0, nullptr, softmax_cross_entropy_kernel});

}  // namespace vx::cpu::ref

// BatchNormalization in inference mode, f32, channel axis 1 of a rank >= 2 input: per channel
// scale = gamma / sqrt(var + epsilon) and shift = beta - mean * scale, computed in double (once when
// the four parameters are constants, else per run), then y = x * scale + shift over each (n, c)
// plane, planes spread over the thread pool. Declines training (training_mode), a node with more
// than one output (statistics outputs; before opset 14 they also mean training), the old
// per-activation statistics (spatial = 0), and non-f32 data or parameters.
#include <algorithm>
#include <cmath>
#include <memory>

#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"

namespace vx::cpu::fast {
namespace {

// Per channel, what y = x * scale + shift needs.
struct ChannelAffine {
  std::vector<float> scale, shift;
};

// gamma, beta, mean, var: C values each.
ChannelAffine channel_affine(const Tensor& gamma, const Tensor& beta, const Tensor& mean, const Tensor& var,
                             int64_t channels, double epsilon, const std::string& what) {
  for (const Tensor* t : {&gamma, &beta, &mean, &var})
    VX_CHECK(t->numel() == channels, InvalidArgument, what, ": a parameter has ", t->numel(), " values for ", channels,
             " channels");
  const float *g = gamma.data<float>(), *b = beta.data<float>(), *m = mean.data<float>(), *v = var.data<float>();
  ChannelAffine a;
  a.scale.resize(size_t(channels));
  a.shift.resize(size_t(channels));
  for (size_t c = 0; c < size_t(channels); ++c) {
    const double k = double(g[c]) / std::sqrt(double(v[c]) + epsilon);
    a.scale[c] = float(k);
    a.shift[c] = float(double(b[c]) - double(m[c]) * k);
  }
  return a;
}

std::string batch_norm_label(const Node& node) { return cat(node.op, " '", node.name, "'"); }

double batch_norm_epsilon(const Node& node) { return node.attrs.get_float("epsilon", 1e-5f); }

bool batch_norm_supports_unchecked(const Node& node, const Graph& g) {
  // One output: more are the running or batch statistics, and before opset 14 they mean training.
  if (node.inputs.size() != 5 || !single_f32_output(node, g)) return false;
  for (ValueId id : node.inputs)
    if (id == kNoValue || g.value(id).dtype != DType::f32) return false;
  if (g.value(node.input(0)).shape.rank() < 2) return false;
  if (node.attrs.get_int("training_mode", 0) != 0 || node.attrs.get_int("spatial", 1) != 1) return false;
  const Shape& x = g.value(node.input(0)).shape;
  if (x[1] >= 0)
    for (size_t i = 1; i < 5; ++i) {
      const Shape& p = g.value(node.input(i)).shape;
      if (p.is_known() && p.numel() != x[1]) return false;
    }
  return true;
}

bool batch_norm_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] { return batch_norm_supports_unchecked(node, g); });
}

void apply_channel_affine(const ChannelAffine& a, KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.rank() >= 2, InvalidArgument, batch_norm_label(ctx.node()), ": input ", x.shape().str(),
           " has no channel axis");
  const int64_t channels = x.dim(1), planes = x.dim(0) * channels, spatial = planes > 0 ? x.numel() / planes : 0;
  VX_CHECK(int64_t(a.scale.size()) == channels, InvalidArgument, batch_norm_label(ctx.node()), ": input ",
           x.shape().str(), " has ", channels, " channels, the parameters ", a.scale.size());
  const float* in = x.data<float>();
  float* out = ctx.output(0, DType::f32, x.shape()).data<float>();
  ctx.pool().parallel_for(planes, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const float k = a.scale[size_t(p % channels)], b = a.shift[size_t(p % channels)];
      const float* src = in + p * spatial;
      float* dst = out + p * spatial;
      for (int64_t i = 0; i < spatial; ++i) dst[i] = src[i] * k + b;
    }
  }, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, spatial)));
}

KernelFn make_batch_norm(const Node& node, const Graph& g) {
  bool constant = true;
  for (size_t i = 1; i < 5; ++i) constant = constant && g.value(node.input(i)).is_constant();
  const double epsilon = batch_norm_epsilon(node);
  if (constant) {
    const Value& gamma = g.value(node.input(1));
    auto folded = std::make_shared<const ChannelAffine>(
        channel_affine(gamma.constant, g.value(node.input(2)).constant, g.value(node.input(3)).constant,
                       g.value(node.input(4)).constant, gamma.constant.numel(), epsilon, batch_norm_label(node)));
    return [folded](KernelContext& ctx) { apply_channel_affine(*folded, ctx); };
  }
  return [epsilon](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    VX_CHECK(x.rank() >= 2, InvalidArgument, batch_norm_label(ctx.node()), ": input ", x.shape().str(),
             " has no channel axis");
    apply_channel_affine(channel_affine(ctx.input(1), ctx.input(2), ctx.input(3), ctx.input(4), x.dim(1), epsilon,
                                        batch_norm_label(ctx.node())),
                         ctx);
  };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(batch_norm_fast,
                       {"BatchNormalization", "fast", 10, batch_norm_supports, nullptr, make_batch_norm});

}  // namespace vx::cpu::fast

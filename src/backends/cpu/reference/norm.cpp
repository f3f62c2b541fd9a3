// Reference normalisations: BatchNormalization, LayerNormalization, InstanceNormalization,
// LpNormalization, LRN and MeanVarianceNormalization. Values are read as double and accumulated in
// double, so these are slow but exact enough to judge every fast path against.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/broadcast.h"
#include "backends/cpu/reference/kernel_util.h"

namespace vx::cpu::ref {
namespace {

// Per-channel parameters of BatchNormalization / InstanceNormalization, checked to have C values.
std::vector<double> channel_param(const KernelContext& ctx, size_t input, int64_t channels, const char* what) {
  std::vector<double> v = read_doubles(ctx.input(input));
  VX_CHECK(int64_t(v.size()) == channels, InvalidArgument, node_label(ctx), ": ", what, " has ", v.size(),
           " values for ", channels, " channels");
  return v;
}

void batch_norm_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.rank() >= 2, InvalidArgument, node_label(ctx), ": input ", x.shape().str(), " has no channel axis");
  const Attributes& attrs = ctx.node().attrs;
  double epsilon = attrs.get_float("epsilon", 1e-5f), momentum = attrs.get_float("momentum", 0.9f);
  int64_t batch = x.dim(0), channels = x.dim(1), spatial = product(x.shape().dims(), 2, x.rank());
  std::vector<double> scale = channel_param(ctx, 1, channels, "scale"), bias = channel_param(ctx, 2, channels, "B");
  std::vector<double> mean = channel_param(ctx, 3, channels, "mean"), var = channel_param(ctx, 4, channels, "var");
  std::vector<double> xv = read_doubles(x), y(xv.size());
  // Training mode (opset 14+ attribute; older opsets signalled it by asking for more outputs)
  // normalises with the batch statistics and reports the updated running ones.
  bool training = attrs.get_int("training_mode", 0) != 0 || (ctx.opset() < 14 && ctx.num_outputs() > 1);
  std::vector<double> batch_mean(static_cast<size_t>(channels)), batch_var(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    double sum = 0, sq = 0, count = double(batch * spatial);
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t i = 0; i < spatial; ++i) sum += xv[size_t((n * channels + c) * spatial + i)];
    double mu = count > 0 ? sum / count : 0;
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t i = 0; i < spatial; ++i) {
        double d = xv[size_t((n * channels + c) * spatial + i)] - mu;
        sq += d * d;
      }
    batch_mean[size_t(c)] = mu;
    batch_var[size_t(c)] = count > 0 ? sq / count : 0;
  }
  const std::vector<double>& use_mean = training ? batch_mean : mean;
  const std::vector<double>& use_var = training ? batch_var : var;
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c) {
      double k = scale[size_t(c)] / std::sqrt(use_var[size_t(c)] + epsilon);
      for (int64_t i = 0; i < spatial; ++i) {
        size_t at = size_t((n * channels + c) * spatial + i);
        y[at] = (xv[at] - use_mean[size_t(c)]) * k + bias[size_t(c)];
      }
    }
  write_doubles(ctx.output(0, x.dtype(), x.shape()), y);
  // Outputs 1, 2: running mean and variance; 3, 4 (opsets 9-13): the batch's mean and variance.
  std::vector<std::vector<double>> extra(4);
  for (int64_t c = 0; c < channels; ++c) {
    extra[0].push_back(mean[size_t(c)] * momentum + batch_mean[size_t(c)] * (1 - momentum));
    extra[1].push_back(var[size_t(c)] * momentum + batch_var[size_t(c)] * (1 - momentum));
  }
  extra[2] = batch_mean;
  extra[3] = batch_var;
  for (size_t i = 1; i < ctx.num_outputs() && i <= 4; ++i)
    write_doubles(ctx.output(i, ctx.input(3).dtype(), Shape{channels}), extra[i - 1]);
}

void layer_norm_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Attributes& attrs = ctx.node().attrs;
  int64_t rank = int64_t(x.rank());
  size_t axis = size_t(normalize_axis(attrs.get_int("axis", -1), rank, ctx));
  double epsilon = attrs.get_float("epsilon", 1e-5f);
  const auto& dims = x.shape().dims();
  int64_t rows = product(dims, 0, axis), cols = product(dims, axis, dims.size());
  Shape normalized(std::vector<int64_t>(dims.begin() + ptrdiff_t(axis), dims.end()));
  // Scale and B broadcast (unidirectionally) onto the normalised axes.
  auto expand = [&](size_t input, double fallback) {
    std::vector<double> v(size_t(cols), fallback);
    if (!ctx.has_input(input)) return v;
    const Tensor& t = ctx.input(input);
    std::vector<int64_t> strides;
    VX_WITH_CONTEXT(node_label(ctx), strides = broadcast_strides(t.shape(), normalized));
    std::vector<double> src = read_doubles(t);
    for_each_broadcast<1>(normalized, {strides}, [&](int64_t i, const std::array<int64_t, 1>& off) {
      v[size_t(i)] = src[size_t(off[0])];
    });
    return v;
  };
  std::vector<double> scale = expand(1, 1.0), bias = expand(2, 0.0);
  std::vector<double> xv = read_doubles(x), y(xv.size()), means(static_cast<size_t>(rows)), inv_std(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = xv.data() + r * cols;
    double sum = 0, sq = 0;
    for (int64_t c = 0; c < cols; ++c) sum += row[c];
    double mu = cols > 0 ? sum / double(cols) : 0;
    for (int64_t c = 0; c < cols; ++c) sq += (row[c] - mu) * (row[c] - mu);
    double inv = 1.0 / std::sqrt((cols > 0 ? sq / double(cols) : 0) + epsilon);
    for (int64_t c = 0; c < cols; ++c) y[size_t(r * cols + c)] = (row[c] - mu) * inv * scale[size_t(c)] + bias[size_t(c)];
    means[size_t(r)] = mu;
    inv_std[size_t(r)] = inv;
  }
  write_doubles(ctx.output(0, x.dtype(), x.shape()), y);
  std::vector<int64_t> stat_dims = dims;
  for (size_t d = axis; d < stat_dims.size(); ++d) stat_dims[d] = 1;
  if (ctx.num_outputs() > 1) write_doubles(ctx.output(1, DType::f32, Shape(stat_dims)), means);
  if (ctx.num_outputs() > 2) write_doubles(ctx.output(2, DType::f32, Shape(stat_dims)), inv_std);
}

void instance_norm_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.rank() >= 3, InvalidArgument, node_label(ctx), ": expects N x C x D1..., got ", x.shape().str());
  double epsilon = ctx.node().attrs.get_float("epsilon", 1e-5f);
  int64_t channels = x.dim(1), planes = x.dim(0) * channels, spatial = product(x.shape().dims(), 2, x.rank());
  std::vector<double> scale = channel_param(ctx, 1, channels, "scale"), bias = channel_param(ctx, 2, channels, "B");
  std::vector<double> xv = read_doubles(x), y(xv.size());
  for (int64_t p = 0; p < planes; ++p) {
    const double* plane = xv.data() + p * spatial;
    double sum = 0, sq = 0;
    for (int64_t i = 0; i < spatial; ++i) sum += plane[i];
    double mu = sum / double(spatial);
    for (int64_t i = 0; i < spatial; ++i) sq += (plane[i] - mu) * (plane[i] - mu);
    double k = scale[size_t(p % channels)] / std::sqrt(sq / double(spatial) + epsilon);
    for (int64_t i = 0; i < spatial; ++i) y[size_t(p * spatial + i)] = (plane[i] - mu) * k + bias[size_t(p % channels)];
  }
  write_doubles(ctx.output(0, x.dtype(), x.shape()), y);
}

void lp_norm_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  size_t axis = size_t(normalize_axis(ctx.node().attrs.get_int("axis", -1), int64_t(x.rank()), ctx));
  int64_t p = ctx.node().attrs.get_int("p", 2);
  VX_CHECK(p == 1 || p == 2, InvalidArgument, node_label(ctx), ": p must be 1 or 2, not ", p);
  const auto& dims = x.shape().dims();
  int64_t outer = product(dims, 0, axis), extent = dims[axis], inner = product(dims, axis + 1, dims.size());
  std::vector<double> v = read_doubles(x);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double norm = 0;
      for (int64_t a = 0; a < extent; ++a) {
        double e = v[size_t((o * extent + a) * inner + i)];
        norm += p == 1 ? std::abs(e) : e * e;
      }
      if (p == 2) norm = std::sqrt(norm);
      for (int64_t a = 0; a < extent; ++a) {
        double& e = v[size_t((o * extent + a) * inner + i)];
        e = norm == 0 ? 0 : e / norm;
      }
    }
  write_doubles(ctx.output(0, x.dtype(), x.shape()), v);
}

// Local response normalisation across channels.
void lrn_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.rank() >= 2, InvalidArgument, node_label(ctx), ": expects N x C x ..., got ", x.shape().str());
  const Attributes& attrs = ctx.node().attrs;
  double alpha = attrs.get_float("alpha", 1e-4f), beta = attrs.get_float("beta", 0.75f);
  double bias = attrs.get_float("bias", 1.0f);
  int64_t size = attrs.get_int("size", 0);
  VX_CHECK(size >= 1, InvalidArgument, node_label(ctx), ": size must be >= 1");
  int64_t batch = x.dim(0), channels = x.dim(1), spatial = product(x.shape().dims(), 2, x.rank());
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  std::vector<double> xv = read_doubles(x), y(xv.size());
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t i = 0; i < spatial; ++i) {
        double sum = 0;
        for (int64_t cc = std::max<int64_t>(0, c - before); cc <= std::min(channels - 1, c + after); ++cc) {
          double v = xv[size_t((n * channels + cc) * spatial + i)];
          sum += v * v;
        }
        size_t at = size_t((n * channels + c) * spatial + i);
        y[at] = xv[at] / std::pow(bias + alpha / double(size) * sum, beta);
      }
  write_doubles(ctx.output(0, x.dtype(), x.shape()), y);
}

// (x - mean) / std over `axes` (default N, H, W), as ONNX's function body computes it.
void mean_variance_norm_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  int64_t rank = int64_t(x.rank());
  std::vector<int64_t> axes = ctx.node().attrs.get_ints("axes", {0, 2, 3});
  std::vector<int64_t> kept = x.shape().dims();
  for (int64_t a : axes) kept[size_t(normalize_axis(a, rank, ctx))] = 1;
  std::vector<int64_t> strides = strides_of(x.shape()), kept_strides = strides_of(kept);
  std::vector<double> xv = read_doubles(x), sum(size_t(Shape(kept).numel()), 0.0), sq(sum.size(), 0.0);
  std::vector<size_t> group(xv.size());
  for (size_t i = 0; i < xv.size(); ++i) {
    int64_t g = 0;
    for (size_t d = 0; d < size_t(rank); ++d)
      if (kept[d] == x.dim(d)) g += int64_t(i) / strides[d] % x.dim(d) * kept_strides[d];
    group[i] = size_t(g);
    sum[group[i]] += xv[i];
    sq[group[i]] += xv[i] * xv[i];
  }
  double count = double(xv.size()) / double(sum.size());
  std::vector<double> y(xv.size());
  for (size_t i = 0; i < xv.size(); ++i) {
    double mean = sum[group[i]] / count, var = sq[group[i]] / count - mean * mean;
    y[i] = (xv[i] - mean) / (std::sqrt(std::max(var, 0.0)) + 1e-9);
  }
  write_doubles(ctx.output(0, x.dtype(), x.shape()), y);
}

}  // namespace

VX_REGISTER_CPU_KERNEL(batch_norm, {"BatchNormalization", "reference", 0, nullptr, batch_norm_kernel});
VX_REGISTER_CPU_KERNEL(layer_norm, {"LayerNormalization", "reference", 0, nullptr, layer_norm_kernel});
VX_REGISTER_CPU_KERNEL(instance_norm, {"InstanceNormalization", "reference", 0, nullptr, instance_norm_kernel});
VX_REGISTER_CPU_KERNEL(lp_norm, {"LpNormalization", "reference", 0, nullptr, lp_norm_kernel});
VX_REGISTER_CPU_KERNEL(lrn, {"LRN", "reference", 0, nullptr, lrn_kernel});
VX_REGISTER_CPU_KERNEL(mean_variance_norm,
                       {"MeanVarianceNormalization", "reference", 0, nullptr, mean_variance_norm_kernel});

}  // namespace vx::cpu::ref

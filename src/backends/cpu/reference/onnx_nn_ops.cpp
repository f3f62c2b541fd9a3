// Reference kernels for ONNX's NN ops other than Conv and pooling: ConvTranspose, MatMul, Gemm,
// BatchNormalization, LayerNormalization, InstanceNormalization, LpNormalization, LRN,
// MeanVarianceNormalization, MatMulInteger, QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear
// and QLinearMatMul. Values are read as double and accumulated
// in double, so these are slow but exact enough to judge every fast path against.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/broadcast.h"
#include "backends/cpu/reference/onnx_kernel_util.h"
#include "ops/matmul_shape.h"

namespace vx::cpu::ref {
namespace {

// ---- matrix products with NumPy matmul batching (ops/matmul_shape.h) ----

// c[m x n] = a[m x k] * b[k x n], all row-major, accumulated in double.
void matmul_rows(const double* a, const double* b, double* c, int64_t m, int64_t k, int64_t n) {
  for (int64_t i = 0; i < m; ++i) {
    double* row = c + i * n;
    std::fill(row, row + n, 0.0);
    for (int64_t j = 0; j < k; ++j) {
      double av = a[i * k + j];
      const double* brow = b + j * n;
      for (int64_t l = 0; l < n; ++l) row[l] += av * brow[l];
    }
  }
}

// The batched product of two double buffers of the shapes `s` was made from.
std::vector<double> batched_matmul(const MatMulShape& s, const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> out(size_t(s.out.numel()));
  const std::vector<std::array<int64_t, 2>> offsets = matmul_batch_offsets(s);
  for (size_t i = 0; i < offsets.size(); ++i)
    matmul_rows(a.data() + offsets[i][0], b.data() + offsets[i][1], out.data() + int64_t(i) * s.m * s.n, s.m, s.k,
                s.n);
  return out;
}

void matmul_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  VX_CHECK(a.dtype() == b.dtype(), InvalidArgument, node_label(ctx), ": operand dtypes differ");
  const MatMulShape s = matmul_shape(a.shape(), b.shape(), node_label(ctx));
  write_doubles(ctx.output(0, a.dtype(), s.out), batched_matmul(s, read_doubles(a), read_doubles(b)));
}

void gemm_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  const Attributes& attrs = ctx.node().attrs;
  bool trans_a = attrs.get_int("transA", 0) != 0, trans_b = attrs.get_int("transB", 0) != 0;
  double alpha = attrs.get_float("alpha", 1.0f), beta = attrs.get_float("beta", 1.0f);
  VX_CHECK(a.rank() == 2 && b.rank() == 2, InvalidArgument, node_label(ctx), ": operands must be matrices, got ",
           a.shape().str(), " and ", b.shape().str());
  int64_t m = trans_a ? a.dim(1) : a.dim(0), k = trans_a ? a.dim(0) : a.dim(1);
  int64_t kb = trans_b ? b.dim(1) : b.dim(0), n = trans_b ? b.dim(0) : b.dim(1);
  VX_CHECK(k == kb, InvalidArgument, node_label(ctx), ": inner extents differ (", k, " vs ", kb, ")");
  std::vector<double> av = read_doubles(a), bv = read_doubles(b);
  std::vector<double> out(size_t(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) {
      double x = av[size_t(trans_a ? j * m + i : i * k + j)];
      for (int64_t l = 0; l < n; ++l) out[size_t(i * n + l)] += x * bv[size_t(trans_b ? l * k + j : j * n + l)];
    }
  for (double& v : out) v *= alpha;
  if (ctx.has_input(2) && beta != 0.0) {
    const Tensor& c = ctx.input(2);
    Shape mn{m, n};
    std::vector<int64_t> strides;
    VX_WITH_CONTEXT(node_label(ctx), strides = broadcast_strides(c.shape(), mn));
    std::vector<double> cv = read_doubles(c);
    for_each_broadcast<1>(mn, {strides}, [&](int64_t i, const std::array<int64_t, 1>& off) {
      out[size_t(i)] += beta * cv[size_t(off[0])];
    });
  }
  write_doubles(ctx.output(0, a.dtype(), Shape{m, n}), out);
}

// ---- ConvTranspose ----

void conv_transpose_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const Attributes& attrs = ctx.node().attrs;
  VX_CHECK(x.rank() >= 3 && w.rank() == x.rank(), InvalidArgument, node_label(ctx), ": input ", x.shape().str(),
           " and weight ", w.shape().str(), " must be N-D images of equal rank");
  size_t nd = x.rank() - 2;
  int64_t batch = x.dim(0), channels = x.dim(1), group = attrs.get_int("group", 1);
  VX_CHECK(group >= 1 && channels % group == 0 && w.dim(0) == channels, InvalidArgument, node_label(ctx),
           ": weight ", w.shape().str(), " does not fit ", channels, " input channels in ", group, " groups");
  int64_t per_group_in = channels / group, per_group_out = w.dim(1), out_channels = per_group_out * group;

  auto per_axis = [&](const char* name, int64_t fallback) {
    std::vector<int64_t> v = attrs.get_ints(name);
    if (v.empty()) v.assign(nd, fallback);
    VX_CHECK(v.size() == nd, InvalidArgument, node_label(ctx), ": ", name, " has ", v.size(), " entries for ", nd,
             " spatial axes");
    return v;
  };
  std::vector<int64_t> strides = per_axis("strides", 1), dilations = per_axis("dilations", 1);
  std::vector<int64_t> output_padding = per_axis("output_padding", 0);
  std::vector<int64_t> kernel(w.shape().begin() + 2, w.shape().end());
  std::vector<int64_t> kernel_attr = attrs.get_ints("kernel_shape");
  VX_CHECK(kernel_attr.empty() || kernel_attr == kernel, InvalidArgument, node_label(ctx), ": kernel_shape ",
           Shape(kernel_attr).str(), " differs from the weight's ", Shape(kernel).str());
  std::vector<int64_t> pads = attrs.get_ints("pads");
  if (pads.empty()) pads.assign(2 * nd, 0);
  VX_CHECK(pads.size() == 2 * nd, InvalidArgument, node_label(ctx), ": pads has ", pads.size(), " entries");
  std::string auto_pad = attrs.get_string("auto_pad", "NOTSET");
  std::vector<int64_t> output_shape = attrs.get_ints("output_shape");
  if (output_shape.size() == nd + 2) output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  VX_CHECK(output_shape.empty() || output_shape.size() == nd, InvalidArgument, node_label(ctx),
           ": output_shape has ", output_shape.size(), " entries");

  std::vector<int64_t> in(x.shape().begin() + 2, x.shape().end()), out(nd), pad_begin(nd);
  for (size_t i = 0; i < nd; ++i) {
    VX_CHECK(strides[i] >= 1 && dilations[i] >= 1 && output_padding[i] >= 0, InvalidArgument, node_label(ctx),
             ": strides and dilations must be >= 1 and output_padding >= 0");
    int64_t full = strides[i] * (in[i] - 1) + output_padding[i] + (kernel[i] - 1) * dilations[i] + 1;
    if (!output_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      // The output extent is given (or in * stride): pad the difference, the odd one at the end
      // for SAME_UPPER and at the start otherwise (as ONNX Runtime does).
      out[i] = !output_shape.empty() ? output_shape[i] : in[i] * strides[i];
      int64_t total = std::max<int64_t>(0, full - out[i]);
      pad_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else if (auto_pad == "VALID") {
      out[i] = full;
      pad_begin[i] = 0;
    } else {
      VX_CHECK(auto_pad == "NOTSET", Unsupported, node_label(ctx), ": unknown auto_pad '", auto_pad, "'");
      out[i] = full - pads[i] - pads[i + nd];
      pad_begin[i] = pads[i];
    }
    VX_CHECK(out[i] >= 0, InvalidArgument, node_label(ctx), ": negative output extent on spatial axis ", i);
  }

  std::vector<int64_t> out_dims = {batch, out_channels};
  out_dims.insert(out_dims.end(), out.begin(), out.end());
  int64_t in_size = product(in, 0, nd), out_size = product(out, 0, nd), k_size = product(kernel, 0, nd);
  std::vector<double> xv = read_doubles(x), wv = read_doubles(w);
  std::vector<double> y(size_t(batch * out_channels * out_size), 0.0);
  if (ctx.has_input(2)) {
    std::vector<double> bias = read_doubles(ctx.input(2));
    VX_CHECK(int64_t(bias.size()) == out_channels, InvalidArgument, node_label(ctx), ": bias has ", bias.size(),
             " values for ", out_channels, " output channels");
    for (int64_t nb = 0; nb < batch; ++nb)
      for (int64_t c = 0; c < out_channels; ++c)
        std::fill_n(y.begin() + (nb * out_channels + c) * out_size, out_size, bias[size_t(c)]);
  }

  // For each (input position, kernel position) pair, the output position it adds to (or -1).
  std::vector<int64_t> in_strides = strides_of(in), k_strides = strides_of(kernel), out_strides = strides_of(out);
  std::vector<int64_t> target(size_t(in_size * k_size), -1);
  for (int64_t p = 0; p < in_size; ++p)
    for (int64_t q = 0; q < k_size; ++q) {
      int64_t offset = 0;
      bool inside = true;
      for (size_t d = 0; d < nd && inside; ++d) {
        int64_t ip = p / in_strides[d] % in[d], kq = q / k_strides[d] % kernel[d];
        int64_t o = ip * strides[d] + kq * dilations[d] - pad_begin[d];
        inside = o >= 0 && o < out[d];
        offset += o * out_strides[d];
      }
      if (inside) target[size_t(p * k_size + q)] = offset;
    }

  for (int64_t nb = 0; nb < batch; ++nb)
    for (int64_t g = 0; g < group; ++g)
      for (int64_t ci = g * per_group_in; ci < (g + 1) * per_group_in; ++ci) {
        const double* xp = xv.data() + (nb * channels + ci) * in_size;
        for (int64_t m = 0; m < per_group_out; ++m) {
          const double* wp = wv.data() + (ci * per_group_out + m) * k_size;
          double* yp = y.data() + (nb * out_channels + g * per_group_out + m) * out_size;
          for (int64_t p = 0; p < in_size; ++p) {
            double xval = xp[p];
            const int64_t* t = target.data() + p * k_size;
            for (int64_t q = 0; q < k_size; ++q)
              if (t[q] >= 0) yp[t[q]] += xval * wp[q];
          }
        }
      }
  write_doubles(ctx.output(0, x.dtype(), Shape(out_dims)), y);
}

// ---- normalisations ----

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

// ---- quantisation ----

// Broadcasts a per-tensor (one value) or per-axis (1-D, extent of `axis`) parameter over `shape`:
// the parameter index of each element.
std::vector<size_t> per_axis_index(const Shape& shape, const Tensor& param, int64_t axis_attr,
                                   const KernelContext& ctx) {
  std::vector<size_t> idx(size_t(shape.numel()), 0);
  if (param.numel() == 1 && param.rank() <= 1) return idx;
  VX_CHECK(param.rank() == 1, InvalidArgument, node_label(ctx), ": scale / zero point must be a scalar or 1-D, got ",
           param.shape().str());
  size_t axis = size_t(normalize_axis(axis_attr, int64_t(shape.rank()), ctx));
  VX_CHECK(param.numel() == shape[axis], InvalidArgument, node_label(ctx), ": ", param.numel(),
           " per-axis parameters for extent ", shape[axis]);
  int64_t inner = product(shape.dims(), axis + 1, shape.rank());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = size_t(int64_t(i) / inner % shape[axis]);
  return idx;
}

void quantize_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& scale = ctx.input(1);
  int64_t axis = ctx.node().attrs.get_int("axis", 1);
  DType out_type = ctx.has_input(2) ? ctx.input(2).dtype() : DType::u8;
  VX_CHECK(out_type == DType::u8 || out_type == DType::i8 || out_type == DType::i32, Unsupported, node_label(ctx),
           ": cannot quantize to ", dtype_name(out_type));
  double lo = out_type == DType::u8 ? 0 : out_type == DType::i8 ? -128 : -2147483648.0;
  double hi = out_type == DType::u8 ? 255 : out_type == DType::i8 ? 127 : 2147483647.0;
  std::vector<size_t> scale_at = per_axis_index(x.shape(), scale, axis, ctx);
  std::vector<size_t> zero_at = ctx.has_input(2) ? per_axis_index(x.shape(), ctx.input(2), axis, ctx) : scale_at;
  std::vector<double> sv = read_doubles(scale), zv = ctx.has_input(2) ? read_doubles(ctx.input(2)) : std::vector<double>(sv.size(), 0.0);
  Tensor& y = ctx.output(0, out_type, x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    // Divide in float as the spec's runtimes do, then round half to even.
    float q = float(x.get(i)) / float(sv[scale_at[size_t(i)]]);
    double v = std::nearbyint(double(q)) + zv[zero_at[size_t(i)]];
    y.set(i, std::clamp(v, lo, hi));
  }
}

void dequantize_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& scale = ctx.input(1);
  int64_t axis = ctx.node().attrs.get_int("axis", 1);
  std::vector<size_t> scale_at = per_axis_index(x.shape(), scale, axis, ctx);
  std::vector<size_t> zero_at = ctx.has_input(2) ? per_axis_index(x.shape(), ctx.input(2), axis, ctx) : scale_at;
  std::vector<double> sv = read_doubles(scale), zv = ctx.has_input(2) ? read_doubles(ctx.input(2)) : std::vector<double>(sv.size(), 0.0);
  Tensor& y = ctx.output(0, scale.dtype(), x.shape());
  for (int64_t i = 0; i < x.numel(); ++i)
    y.set(i, double(float(x.get(i) - zv[zero_at[size_t(i)]]) * float(sv[scale_at[size_t(i)]])));
}

// Subtracts a zero point (scalar, or one per row of A / per column of B) from a batched operand.
void subtract_zero_point(std::vector<double>& v, const Shape& shape, const KernelContext& ctx, size_t input,
                         bool per_row) {
  if (!ctx.has_input(input)) return;
  std::vector<double> zp = read_doubles(ctx.input(input));
  if (zp.size() == 1) {
    for (double& e : v) e -= zp[0];
    return;
  }
  int64_t rows = shape.rank() >= 2 ? shape[shape.rank() - 2] : 1, cols = shape[shape.rank() - 1];
  VX_CHECK(int64_t(zp.size()) == (per_row ? rows : cols) || int64_t(zp.size()) == int64_t(v.size()),
           InvalidArgument, node_label(ctx), ": zero point of ", zp.size(), " values does not fit ", shape.str());
  for (size_t i = 0; i < v.size(); ++i) {
    size_t at = zp.size() == v.size() ? i : per_row ? size_t(int64_t(i) / cols % rows) : size_t(int64_t(i) % cols);
    v[i] -= zp[at];
  }
}

void matmul_integer_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  const MatMulShape s = matmul_shape(a.shape(), b.shape(), node_label(ctx));
  std::vector<double> av = read_doubles(a), bv = read_doubles(b);
  subtract_zero_point(av, a.shape(), ctx, 2, true);
  subtract_zero_point(bv, b.shape(), ctx, 3, false);
  write_doubles(ctx.output(0, DType::i32, s.out), batched_matmul(s, av, bv));
}

void qlinear_matmul_kernel(KernelContext& ctx) {
  // Inputs: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point.
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(3);
  const MatMulShape s = matmul_shape(a.shape(), b.shape(), node_label(ctx));
  std::vector<double> av = read_doubles(a), bv = read_doubles(b);
  subtract_zero_point(av, a.shape(), ctx, 2, true);
  subtract_zero_point(bv, b.shape(), ctx, 5, false);
  std::vector<double> a_scale = read_doubles(ctx.input(1)), b_scale = read_doubles(ctx.input(4));
  VX_CHECK(a_scale.size() == 1 && b_scale.size() == 1, Unsupported, node_label(ctx),
           ": only per-tensor scales are supported");
  std::vector<double> acc = batched_matmul(s, av, bv);
  double y_scale = ctx.input(6).get(0), y_zero = ctx.input(7).get(0);
  DType out_type = ctx.input(7).dtype();
  double lo = out_type == DType::u8 ? 0 : -128, hi = out_type == DType::u8 ? 255 : 127;
  float multiplier = float(a_scale[0]) * float(b_scale[0]) / float(y_scale);
  Tensor& y = ctx.output(0, out_type, s.out);
  for (size_t i = 0; i < acc.size(); ++i)
    y.set(int64_t(i), std::clamp(std::nearbyint(double(float(acc[i]) * multiplier)) + y_zero, lo, hi));
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

// u8 quantisation with a scale and zero point chosen from the data's range (which includes 0).
void dynamic_quantize_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  std::vector<float> v = read_floats(x);
  float lo = 0, hi = 0;
  for (float e : v) {
    lo = std::min(lo, e);
    hi = std::max(hi, e);
  }
  float scale = (hi - lo) / 255.0f;
  float zero = scale == 0 ? 0.0f : std::clamp(std::nearbyint(0.0f - lo / scale), 0.0f, 255.0f);
  Tensor& y = ctx.output(0, DType::u8, x.shape());
  for (size_t i = 0; i < v.size(); ++i)
    y.set(int64_t(i), scale == 0 ? zero : std::clamp(std::nearbyint(v[i] / scale) + zero, 0.0f, 255.0f));
  ctx.output(1, DType::f32, Shape{}).set(0, scale);
  ctx.output(2, DType::u8, Shape{}).set(0, zero);
}

}  // namespace

VX_REGISTER_CPU_KERNEL(matmul, {"MatMul", "reference", 0, nullptr, matmul_kernel});
VX_REGISTER_CPU_KERNEL(gemm, {"Gemm", "reference", 0, nullptr, gemm_kernel});
VX_REGISTER_CPU_KERNEL(conv_transpose, {"ConvTranspose", "reference", 0, nullptr, conv_transpose_kernel});
VX_REGISTER_CPU_KERNEL(batch_norm, {"BatchNormalization", "reference", 0, nullptr, batch_norm_kernel});
VX_REGISTER_CPU_KERNEL(layer_norm, {"LayerNormalization", "reference", 0, nullptr, layer_norm_kernel});
VX_REGISTER_CPU_KERNEL(instance_norm, {"InstanceNormalization", "reference", 0, nullptr, instance_norm_kernel});
VX_REGISTER_CPU_KERNEL(lp_norm, {"LpNormalization", "reference", 0, nullptr, lp_norm_kernel});
VX_REGISTER_CPU_KERNEL(quantize_linear, {"QuantizeLinear", "reference", 0, nullptr, quantize_kernel});
VX_REGISTER_CPU_KERNEL(dequantize_linear, {"DequantizeLinear", "reference", 0, nullptr, dequantize_kernel});
VX_REGISTER_CPU_KERNEL(matmul_integer, {"MatMulInteger", "reference", 0, nullptr, matmul_integer_kernel});
VX_REGISTER_CPU_KERNEL(qlinear_matmul, {"QLinearMatMul", "reference", 0, nullptr, qlinear_matmul_kernel});

VX_REGISTER_CPU_KERNEL(lrn, {"LRN", "reference", 0, nullptr, lrn_kernel});
VX_REGISTER_CPU_KERNEL(mean_variance_norm,
                       {"MeanVarianceNormalization", "reference", 0, nullptr, mean_variance_norm_kernel});
VX_REGISTER_CPU_KERNEL(dynamic_quantize_linear,
                       {"DynamicQuantizeLinear", "reference", 0, nullptr, dynamic_quantize_kernel});

}  // namespace vx::cpu::ref

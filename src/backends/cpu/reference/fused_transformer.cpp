// Reference kernels of the fused ops the ONNX fusion passes create (ops/fused_ops.h):
// vx.FusedMatMul, vx.MatMulInt8W, vx.Attention, vx.LayerNorm and vx.Gelu. Each is literally the
// unfused computation in double precision, so that the passes and the fast kernels can be judged
// against it.
#include <array>
#include <cmath>
#include <limits>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/broadcast.h"
#include "backends/cpu/reference/kernel_util.h"
#include "ops/fused_ops.h"
#include "ops/matmul_shape.h"

namespace vx::cpu::ref {
namespace {

struct Matrix {
  std::vector<double> v;
  Shape shape;
};

// numpy.matmul in double.
Matrix matmul(const Matrix& a_in, const Matrix& b_in, const KernelContext& ctx) {
  const MatMulShape s = matmul_shape(a_in.shape, b_in.shape, node_label(ctx));
  Matrix y;
  y.shape = s.out;
  y.v.assign(size_t(s.batch.numel() * s.m * s.n), 0.0);
  const std::vector<std::array<int64_t, 2>> offsets = matmul_batch_offsets(s);
  for (size_t i = 0; i < offsets.size(); ++i) {
    const double* pa = a_in.v.data() + offsets[i][0];
    const double* pb = b_in.v.data() + offsets[i][1];
    double* py = y.v.data() + int64_t(i) * s.m * s.n;
    for (int64_t r = 0; r < s.m; ++r)
      for (int64_t j = 0; j < s.k; ++j) {
        const double x = pa[r * s.k + j];
        for (int64_t c = 0; c < s.n; ++c) py[r * s.n + c] += x * pb[j * s.n + c];
      }
  }
  return y;
}

Matrix read(const Tensor& t) { return {read_doubles(t), t.shape()}; }

// Swaps the two innermost axes.
Matrix transpose_last(const Matrix& x) {
  const size_t r = x.shape.rank();
  VX_CHECK(r >= 2, InvalidArgument, "transpose of rank ", r);
  const int64_t rows = x.shape[r - 2], cols = x.shape[r - 1], batches = x.shape.numel() / std::max<int64_t>(1, rows * cols);
  Matrix y;
  std::vector<int64_t> d = x.shape.dims();
  std::swap(d[r - 2], d[r - 1]);
  y.shape = Shape(d);
  y.v.resize(x.v.size());
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) y.v[size_t(b * rows * cols + j * rows + i)] = x.v[size_t(b * rows * cols + i * cols + j)];
  return y;
}

// Swaps the two axes before the innermost ([..., A, B, C] -> [..., B, A, C]): vx.Attention's
// "bshd" layouts to and from [..., H, S, D].
Matrix swap_middle(const Matrix& x, const KernelContext& ctx) {
  const size_t r = x.shape.rank();
  VX_CHECK(r >= 3, InvalidArgument, node_label(ctx), ": layout \"bshd\" needs rank >= 3, got ", x.shape.str());
  const int64_t a = x.shape[r - 3], b = x.shape[r - 2], c = x.shape[r - 1];
  const int64_t outer = x.shape.numel() / std::max<int64_t>(1, a * b * c);
  Matrix y;
  std::vector<int64_t> d = x.shape.dims();
  std::swap(d[r - 3], d[r - 2]);
  y.shape = Shape(d);
  y.v.resize(x.v.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < a; ++i)
      for (int64_t j = 0; j < b; ++j)
        for (int64_t k = 0; k < c; ++k)
          y.v[size_t(((o * b + j) * a + i) * c + k)] = x.v[size_t(((o * a + i) * b + j) * c + k)];
  return y;
}

// Whether a layout attribute says "bshd" ("bhsd" is the default; anything else is an error).
bool bshd_layout(const KernelContext& ctx, const char* attr) { return attention_bshd_layout(ctx.node(), attr); }

double gelu_erf(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

void apply_activation(std::vector<double>& v, const std::string& act, const KernelContext& ctx) {
  if (act == "none" || act.empty()) return;
  if (act == "relu") {
    for (double& x : v) x = x > 0 ? x : 0;
  } else if (act == "gelu_erf") {
    for (double& x : v) x = gelu_erf(x);
  } else if (act == "gelu_tanh") {
    for (double& x : v) x = gelu_tanh(x);
  } else {
    VX_CHECK(false, Unsupported, node_label(ctx), ": unknown activation '", act, "'");
  }
}

// Each row of c values of v normalised: (x - mean) / sqrt(var + eps) * scale + bias (vx.LayerNorm,
// and vx.FusedMatMul's LnScale / LnBias); scale and bias must have c values.
void normalize_rows(std::vector<double>& v, int64_t c, double eps, const std::vector<double>& scale,
                    const std::vector<double>& bias, const KernelContext& ctx) {
  VX_CHECK(int64_t(scale.size()) == c && int64_t(bias.size()) == c, InvalidArgument, node_label(ctx),
           ": scale and bias must have ", c, " values");
  const int64_t rows = c ? int64_t(v.size()) / c : 0;
  for (int64_t r = 0; r < rows; ++r) {
    double* row = v.data() + r * c;
    double mean = 0, var = 0;
    for (int64_t i = 0; i < c; ++i) mean += row[i];
    mean /= double(c);
    for (int64_t i = 0; i < c; ++i) var += (row[i] - mean) * (row[i] - mean);
    const double inv = 1.0 / std::sqrt(var / double(c) + eps);
    for (int64_t i = 0; i < c; ++i) row[i] = (row[i] - mean) * inv * scale[size_t(i)] + bias[size_t(i)];
  }
}

// act(y + bias + residual) with bias [N] on the last axis and the residual (input bias_input + 1,
// vx.FusedMatMul only) broadcast onto y, then (vx.FusedMatMul's inputs 4 and 5) each row
// normalised; written to output 0.
void finish_product(KernelContext& ctx, Matrix& y, size_t bias_input, bool residual = false) {
  if (ctx.has_input(bias_input)) {
    const std::vector<double> bias = read_doubles(ctx.input(bias_input));
    const int64_t n = y.shape.rank() ? y.shape[y.shape.rank() - 1] : 1;
    VX_CHECK(int64_t(bias.size()) == n, InvalidArgument, node_label(ctx), ": bias of ", bias.size(),
             " values for ", n, " columns");
    for (size_t i = 0; i < y.v.size(); ++i) y.v[i] += bias[i % size_t(n)];
  }
  if (residual && ctx.has_input(bias_input + 1)) {
    const Tensor& r = ctx.input(bias_input + 1);
    VX_CHECK(r.rank() <= y.shape.rank(), InvalidArgument, node_label(ctx), ": residual ", r.shape().str(),
             " has more axes than the product ", y.shape.str());
    std::vector<int64_t> strides;
    VX_WITH_CONTEXT(node_label(ctx) + ": residual " + r.shape().str() + " onto " + y.shape.str(),
                    strides = broadcast_strides(r.shape(), y.shape));
    const std::vector<double> rv = read_doubles(r);
    for_each_broadcast<1>(y.shape, {strides}, [&](int64_t i, const std::array<int64_t, 1>& off) {
      y.v[size_t(i)] += rv[size_t(off[0])];
    });
  }
  apply_activation(y.v, ctx.node().attrs.get_string("activation", "none"), ctx);
  if (residual && ctx.has_input(4)) {
    const int64_t n = y.shape.rank() ? y.shape[y.shape.rank() - 1] : 1;
    normalize_rows(y.v, n, ctx.node().attrs.get_float("layer_norm_epsilon", 1e-5f), read_doubles(ctx.input(4)),
                   ctx.has_input(5) ? read_doubles(ctx.input(5)) : std::vector<double>(size_t(n), 0.0), ctx);
  }
  write_doubles(ctx.output(0, DType::f32, y.shape), y.v);
}

void fused_matmul_kernel(KernelContext& ctx) {
  Matrix y = matmul(read(ctx.input(0)), read(ctx.input(1)), ctx);
  finish_product(ctx, y, 2, true);
}

void matmul_int8w_kernel(KernelContext& ctx) {
  const Tensor& wq = ctx.input(1);
  const Tensor& scales = ctx.input(2);
  VX_CHECK(wq.dtype() == DType::i8 && wq.rank() == 2, InvalidArgument, node_label(ctx),
           ": weights must be an int8 matrix, got ", dtype_name(wq.dtype()), " ", wq.shape().str());
  VX_CHECK(scales.numel() == wq.dim(1), InvalidArgument, node_label(ctx), ": ", scales.numel(), " scales for ",
           wq.dim(1), " columns");
  Matrix w = read(wq);
  const std::vector<double> s = read_doubles(scales);
  for (size_t i = 0; i < w.v.size(); ++i) w.v[i] *= s[i % s.size()];
  Matrix y = matmul(read(ctx.input(0)), w, ctx);
  finish_product(ctx, y, 3);
}

void attention_kernel(KernelContext& ctx) {
  const Attributes& attrs = ctx.node().attrs;
  const double scale = attrs.get_float("scale", 1.0f);
  const bool bshd_in = bshd_layout(ctx, "qkv_layout"), bshd_out = bshd_layout(ctx, "out_layout");
  const bool k_transposed = attrs.get_int("k_transposed", 0) != 0;
  VX_CHECK(!(bshd_in && k_transposed), InvalidArgument, node_label(ctx), ": qkv_layout \"bshd\" with k_transposed = 1");
  auto operand = [&](size_t i) { return bshd_in ? swap_middle(read(ctx.input(i)), ctx) : read(ctx.input(i)); };
  Matrix k = operand(1);
  if (!k_transposed) k = transpose_last(k);
  Matrix s = matmul(operand(0), k, ctx);
  for (double& x : s.v) x *= scale;
  if (ctx.has_input(3)) {
    const Tensor& mask = ctx.input(3);
    std::vector<int64_t> strides;
    VX_WITH_CONTEXT(node_label(ctx) + ": mask", strides = broadcast_strides(mask.shape(), s.shape));
    const std::vector<double> m = read_doubles(mask);
    for_each_broadcast<1>(s.shape, {strides}, [&](int64_t i, const std::array<int64_t, 1>& off) {
      s.v[size_t(i)] += m[size_t(off[0])];
    });
  }
  const int64_t cols = s.shape[s.shape.rank() - 1];
  for (size_t r = 0; r < s.v.size(); r += size_t(cols)) {
    double* row = s.v.data() + r;
    double peak = -std::numeric_limits<double>::infinity();
    for (int64_t c = 0; c < cols; ++c) peak = std::max(peak, row[c]);
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += row[c] = std::exp(row[c] - peak);
    for (int64_t c = 0; c < cols; ++c) row[c] /= sum;
  }
  Matrix y = matmul(s, operand(2), ctx);
  if (bshd_out) y = swap_middle(y, ctx);
  write_doubles(ctx.output(0, DType::f32, y.shape), y.v);
}

void fused_layer_norm_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.rank() >= 1, InvalidArgument, node_label(ctx), ": scalar input");
  const int64_t c = x.dim(x.rank() - 1);
  std::vector<double> v = read_doubles(x);
  normalize_rows(v, c, ctx.node().attrs.get_float("epsilon", 1e-5f), read_doubles(ctx.input(1)),
                 ctx.has_input(2) ? read_doubles(ctx.input(2)) : std::vector<double>(size_t(c), 0.0), ctx);
  write_doubles(ctx.output(0, DType::f32, x.shape()), v);
}

void gelu_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  std::vector<double> v = read_doubles(x);
  const std::string approx = ctx.node().attrs.get_string("approximate", "none");
  VX_CHECK(approx == "none" || approx == "tanh", InvalidArgument, node_label(ctx), ": approximate '", approx, "'");
  for (double& e : v) e = approx == "tanh" ? gelu_tanh(e) : gelu_erf(e);
  write_doubles(ctx.output(0, x.dtype(), x.shape()), v);
}

}  // namespace

VX_REGISTER_CPU_KERNEL(vx_fused_matmul, {kFusedMatMul, "reference", 0, nullptr, fused_matmul_kernel});
VX_REGISTER_CPU_KERNEL(vx_matmul_int8w, {kMatMulInt8W, "reference", 0, nullptr, matmul_int8w_kernel});
VX_REGISTER_CPU_KERNEL(vx_attention, {kAttention, "reference", 0, nullptr, attention_kernel});
VX_REGISTER_CPU_KERNEL(vx_layer_norm, {kLayerNorm, "reference", 0, nullptr, fused_layer_norm_kernel});
VX_REGISTER_CPU_KERNEL(vx_gelu, {kGelu, "reference", 0, nullptr, gelu_kernel});

}  // namespace vx::cpu::ref

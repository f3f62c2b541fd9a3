// Reference MatMul (NumPy matmul batching, ops/matmul_shape.h) and Gemm. Values are read as double
// and accumulated in double, so these are slow but exact enough to judge every fast path against.
#include <algorithm>
#include <array>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/broadcast.h"
#include "backends/cpu/reference/kernel_util.h"
#include "backends/cpu/reference/reference_ops.h"
#include "ops/matmul_shape.h"

namespace vx::cpu::ref {
namespace {

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

}  // namespace

std::vector<double> batched_matmul(const MatMulShape& s, const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> out(size_t(s.out.numel()));
  const std::vector<std::array<int64_t, 2>> offsets = matmul_batch_offsets(s);
  for (size_t i = 0; i < offsets.size(); ++i)
    matmul_rows(a.data() + offsets[i][0], b.data() + offsets[i][1], out.data() + int64_t(i) * s.m * s.n, s.m, s.k,
                s.n);
  return out;
}

namespace {

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
  double alpha = attrs.get_float("alpha", 1.0f), beta = attrs.get_float("beta", 1.0f);
  const GemmShape s = gemm_shape(a.shape(), b.shape(), attrs, node_label(ctx));
  const bool trans_a = s.trans_a, trans_b = s.trans_b;
  const int64_t m = s.m, k = s.k, n = s.n;
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

}  // namespace

VX_REGISTER_CPU_KERNEL(matmul, {"MatMul", "reference", 0, nullptr, matmul_kernel});
VX_REGISTER_CPU_KERNEL(gemm, {"Gemm", "reference", 0, nullptr, gemm_kernel});

}  // namespace vx::cpu::ref

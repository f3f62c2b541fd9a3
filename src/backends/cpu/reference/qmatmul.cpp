// Reference integer matrix products: MatMulInteger (int32 output) and QLinearMatMul (requantised to
// 8 bits), with NumPy matmul batching. Zero-point-shifted values are multiplied in double (exact
// for every sum an int32 can hold).
#include <algorithm>
#include <cmath>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/kernel_util.h"
#include "backends/cpu/reference/reference_ops.h"
#include "ops/matmul_shape.h"

namespace vx::cpu::ref {
namespace {

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

}  // namespace

VX_REGISTER_CPU_KERNEL(matmul_integer, {"MatMulInteger", "reference", 0, nullptr, matmul_integer_kernel});
VX_REGISTER_CPU_KERNEL(qlinear_matmul, {"QLinearMatMul", "reference", 0, nullptr, qlinear_matmul_kernel});

}  // namespace vx::cpu::ref

// Reference kernel for Det: the determinant of each trailing [M, M] matrix, by LU decomposition
// with partial pivoting in double precision.
#include <cmath>
#include <utility>

#include "backends/cpu/reference/math_util.h"

namespace vx::cpu::ref {
namespace {

void det_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.dtype() == DType::f32, Unsupported, node_label(ctx), ": floats only");
  VX_CHECK(x.rank() >= 2 && x.dim(x.rank() - 1) == x.dim(x.rank() - 2), InvalidArgument, node_label(ctx),
           ": the input must be [..., M, M], not ", x.shape().str());
  const int64_t m = x.dim(x.rank() - 1);
  std::vector<int64_t> batch_dims(x.shape().dims().begin(), x.shape().dims().end() - 2);
  Tensor& y = ctx.output(0, DType::f32, Shape(batch_dims));
  const float* in = x.data<float>();
  std::vector<double> a(size_t(m * m));
  for (int64_t b = 0; b < y.numel(); ++b) {
    for (int64_t i = 0; i < m * m; ++i) a[size_t(i)] = in[b * m * m + i];
    double det = 1.0;
    for (int64_t col = 0; col < m && det != 0.0; ++col) {
      int64_t pivot = col;
      for (int64_t r = col + 1; r < m; ++r)
        if (std::fabs(a[size_t(r * m + col)]) > std::fabs(a[size_t(pivot * m + col)])) pivot = r;
      if (a[size_t(pivot * m + col)] == 0.0) {
        det = 0.0;
        break;
      }
      if (pivot != col) {
        for (int64_t k = 0; k < m; ++k) std::swap(a[size_t(pivot * m + k)], a[size_t(col * m + k)]);
        det = -det;
      }
      const double p = a[size_t(col * m + col)];
      det *= p;
      for (int64_t r = col + 1; r < m; ++r) {
        const double f = a[size_t(r * m + col)] / p;
        for (int64_t k = col; k < m; ++k) a[size_t(r * m + k)] -= f * a[size_t(col * m + k)];
      }
    }
    y.data<float>()[b] = float(det);
  }
}

}  // namespace

VX_REGISTER_CPU_KERNEL(det, {"Det", "reference", 0, nullptr, with_f16_as_f32(det_kernel)});

}  // namespace vx::cpu::ref

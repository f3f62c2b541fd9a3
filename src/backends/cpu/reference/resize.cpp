// Reference Resize: nearest neighbour of any rank with ONNX's coordinate transformation modes
// (half_pixel, pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn) and nearest
// modes (round_prefer_floor, round_prefer_ceil, floor, ceil). Other modes are Unsupported (for now).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/reference_ops.h"
#include "core/error.h"

namespace vx::cpu::ref {

namespace {

double source_coordinate(const std::string& mode, int64_t out_index, double scale, int64_t out_len, int64_t in_len) {
  const double x = double(out_index);
  if (mode == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (mode == "pytorch_half_pixel") return out_len > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (mode == "align_corners") return out_len == 1 ? 0.0 : x * double(in_len - 1) / double(out_len - 1);
  if (mode == "asymmetric") return x / scale;
  if (mode == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  fail(ErrorCode::Unsupported, cat("Resize: coordinate_transformation_mode '", mode, "' is not supported"));
}

int64_t nearest_index(const std::string& mode, double v) {
  if (mode == "floor") return int64_t(std::floor(v));
  if (mode == "ceil") return int64_t(std::ceil(v));
  const double f = std::floor(v);
  if (v - f == 0.5) return int64_t(mode == "round_prefer_ceil" ? f + 1 : f);
  if (mode == "round_prefer_floor" || mode == "round_prefer_ceil") return int64_t(std::round(v));
  fail(ErrorCode::Unsupported, cat("Resize: nearest_mode '", mode, "' is not supported"));
}

}  // namespace

void resize_nearest(const Tensor& x, const std::vector<double>& scales, const std::string& coordinate_mode,
                    const std::string& nearest_mode, Tensor& y) {
  const size_t rank = x.rank();
  VX_CHECK(y.rank() == rank && scales.size() == rank && y.dtype() == x.dtype(), InvalidArgument, "resize: X ",
           x.shape().str(), ", Y ", y.shape().str(), " and ", scales.size(), " scales do not agree");
  // Per axis, the source index of each output index.
  std::vector<std::vector<int64_t>> source(rank);
  for (size_t a = 0; a < rank; ++a) {
    source[a].resize(size_t(y.dim(a)));
    for (int64_t o = 0; o < y.dim(a); ++o) {
      int64_t i = nearest_index(nearest_mode, source_coordinate(coordinate_mode, o, scales[a], y.dim(a), x.dim(a)));
      source[a][size_t(o)] = std::clamp<int64_t>(i, 0, x.dim(a) - 1);
    }
  }
  std::vector<int64_t> in_stride(rank, 1);
  for (size_t a = rank; a-- > 1;) in_stride[a - 1] = in_stride[a] * x.dim(a);
  const size_t elem = dtype_size(x.dtype());
  const char* xp = static_cast<const char*>(x.raw());
  char* yp = static_cast<char*>(y.raw());
  std::vector<int64_t> index(rank, 0);
  for (int64_t o = 0; o < y.numel(); ++o) {
    int64_t at = 0;
    for (size_t a = 0; a < rank; ++a) at += source[a][size_t(index[a])] * in_stride[a];
    std::memcpy(yp + size_t(o) * elem, xp + size_t(at) * elem, elem);
    for (size_t a = rank; a-- > 0;) {  // odometer increment
      if (++index[a] < y.dim(a)) break;
      index[a] = 0;
    }
  }
}


}  // namespace vx::cpu::ref

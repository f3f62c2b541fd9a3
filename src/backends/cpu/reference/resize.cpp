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

namespace {

void resize_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  const std::string what = "Resize '" + node.name + "'";
  const Tensor& x = ctx.input(0);
  const std::string mode = node.attrs.get_string("mode", "nearest");
  VX_CHECK(mode == "nearest", Unsupported, what, ": mode '", mode, "' is not supported by the CPU reference");
  const bool opset10 = ctx.num_inputs() == 2;
  const size_t scales_at = opset10 ? 1 : 2, sizes_at = 3;
  std::vector<double> scales(x.rank(), 1.0);
  std::vector<int64_t> out(x.shape().begin(), x.shape().end());
  if (!opset10 && ctx.has_input(sizes_at) && ctx.input(sizes_at).numel() > 0) {
    const Tensor& sizes = ctx.input(sizes_at);
    VX_CHECK(size_t(sizes.numel()) == x.rank(), InvalidArgument, what, ": ", sizes.numel(), " sizes for rank ",
             x.rank());
    for (size_t a = 0; a < x.rank(); ++a) {
      out[a] = int64_t(sizes.get(int64_t(a)));
      VX_CHECK(out[a] >= 0, InvalidArgument, what, ": negative size");
      scales[a] = x.dim(a) ? double(out[a]) / double(x.dim(a)) : 1.0;
    }
  } else {
    VX_CHECK(ctx.has_input(scales_at), InvalidArgument, what, ": needs scales or sizes");
    const Tensor& s = ctx.input(scales_at);
    VX_CHECK(size_t(s.numel()) == x.rank(), InvalidArgument, what, ": ", s.numel(), " scales for rank ", x.rank());
    for (size_t a = 0; a < x.rank(); ++a) {
      scales[a] = double(float(s.get(int64_t(a))));
      VX_CHECK(scales[a] > 0, InvalidArgument, what, ": scales must be positive");
      out[a] = int64_t(std::floor(double(x.dim(a)) * scales[a]));
    }
  }
  // Opset 10 had neither attribute; it behaves as asymmetric / floor.
  const std::string ctm = node.attrs.get_string("coordinate_transformation_mode", opset10 ? "asymmetric" : "half_pixel");
  const std::string rounding = node.attrs.get_string("nearest_mode", opset10 ? "floor" : "round_prefer_floor");
  Tensor& y = ctx.output(0, x.dtype(), Shape(out));
  resize_nearest(x, scales, ctm, rounding, y);
}

}  // namespace

VX_REGISTER_CPU_KERNEL(resize_reference, {"Resize", "reference", 0, nullptr, resize_kernel});

}  // namespace vx::cpu::ref

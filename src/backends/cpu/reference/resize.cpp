// Reference Resize (opsets 10, 11, 13, 18, 19) and Upsample (opsets 7-9): nearest (every
// nearest_mode), n-linear and n-cubic (cubic_coeff_a, exclude_outside) interpolation, every
// coordinate_transformation_mode including tf_crop_and_resize with roi and extrapolation_value,
// scales or sizes, keep_aspect_ratio_policy and axes. Antialiasing (opset 18) is not supported.
//
// Each resized axis gets, per output index, a list of taps (input index, weight); an output
// element is the sum over the product of its axes' taps. That is exact for the separable
// filters ONNX defines and keeps tf_crop_and_resize's "outside on any axis" rule simple. The
// geometry (extents, scales, tap tables) is passes/resize_geometry, shared with the Vulkan kernel.
//
// Also resize_nearest (reference_ops.h), the plain nearest-neighbour resize the fused conv composes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/kernel_util.h"
#include "backends/cpu/reference/reference_ops.h"
#include "core/error.h"
#include "ops/resize_geometry.h"

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

// The resize itself, once every axis has an output extent and a scale.
void resize_tensor(KernelContext& ctx, const ResizeAxes& geometry,
                   const ResizeParams& p) {
  const Tensor& x = ctx.input(0);
  size_t rank = x.rank();
  const std::vector<int64_t>& out_dims = geometry.out_dims;
  std::vector<ResizeAxisTaps> axes(rank);
  for (size_t d = 0; d < rank; ++d) {
    VX_CHECK(x.dim(d) > 0 || out_dims[d] == 0, InvalidArgument, node_label(ctx), ": cannot resize an empty axis");
    axes[d] = resize_axis_taps(x.dim(d), out_dims[d], geometry.scales[d], geometry.roi_start[d], geometry.roi_end[d],
                               p, node_label(ctx));
  }
  std::vector<double> src = read_doubles(x), dst(size_t(Shape(out_dims).numel()));
  std::vector<int64_t> in_strides = strides_of(x.shape()), out_strides = strides_of(out_dims);
  std::vector<int64_t> coord(rank);
  for (size_t o = 0; o < dst.size(); ++o) {
    bool outside = false;
    for (size_t d = 0; d < rank; ++d) {
      coord[d] = int64_t(o) / out_strides[d] % out_dims[d];
      outside = outside || axes[d].outside[size_t(coord[d])];
    }
    if (outside) {
      dst[o] = p.extrapolation;
      continue;
    }
    std::function<double(size_t, int64_t)> gather = [&](size_t d, int64_t offset) -> double {
      if (d == rank) return src[size_t(offset)];
      double sum = 0;
      for (const ResizeTap& t : axes[d].taps[size_t(coord[d])]) sum += t.weight * gather(d + 1, offset + t.index * in_strides[d]);
      return sum;
    };
    dst[o] = gather(0, 0);
  }
  Tensor& y = ctx.output(0, x.dtype(), Shape(out_dims));
  if (x.dtype() == DType::f32 || x.dtype() == DType::f16) {
    write_doubles(y, dst);
  } else {  // integer images: round to nearest and saturate (set() would truncate)
    for (double& v : dst) v = std::nearbyint(v);
    write_doubles(y, dst);
  }
}

// Scales and sizes (and roi) are given for `axes` only in opset 18; resize_axes expands them.
void resize_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const bool legacy = resize_is_legacy(ctx.node(), ctx.opset());
  const ResizeParams p = read_resize_params(ctx.node().attrs, legacy, node_label(ctx));
  const ResizeValues v = read_resize_values(ctx.node(), legacy,
                                            [&](size_t i) { return ctx.has_input(i) ? &ctx.input(i) : nullptr; });
  resize_tensor(ctx, resize_axes(x.shape().dims(), ctx.node().attrs, v.scales, v.sizes, v.roi, node_label(ctx)), p);
}

}  // namespace

VX_REGISTER_CPU_KERNEL(resize_onnx, {"Resize", "reference", 0, nullptr, resize_kernel});
VX_REGISTER_CPU_KERNEL(upsample_onnx, {"Upsample", "reference", 0, nullptr, resize_kernel});

}  // namespace vx::cpu::ref

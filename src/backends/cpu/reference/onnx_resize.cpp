// Reference Resize (opsets 10, 11, 13, 18, 19) and Upsample (opsets 7-9): nearest (every
// nearest_mode), n-linear and n-cubic (cubic_coeff_a, exclude_outside) interpolation, every
// coordinate_transformation_mode including tf_crop_and_resize with roi and extrapolation_value,
// scales or sizes, keep_aspect_ratio_policy and axes. Antialiasing (opset 18) is not supported.
//
// Each resized axis gets, per output index, a list of taps (input index, weight); an output
// element is the sum over the product of its axes' taps. That is exact for the separable
// filters ONNX defines and keeps tf_crop_and_resize's "outside on any axis" rule simple.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/onnx_kernel_util.h"

namespace vx::cpu::ref {
namespace {

struct Tap {
  int64_t index;
  double weight;
};

struct AxisTaps {
  std::vector<std::vector<Tap>> taps;  // per output index
  std::vector<bool> outside;           // tf_crop_and_resize: the output is extrapolation_value
};

struct ResizeParams {
  std::string mode = "nearest";
  std::string transform = "half_pixel";
  std::string nearest_mode = "round_prefer_floor";
  bool legacy_nearest = false;  // opset < 11 and Upsample: floor when enlarging, ceil when shrinking
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
};

// Maps an output coordinate onto the input axis (the ONNX coordinate_transformation_mode). As in
// ONNX's reference implementation, the output length is scale * in, not the rounded extent: the
// two differ when scales do not divide evenly (align_corners then stretches by the exact ratio).
double original_coordinate(double x, double scale, int64_t in, double roi_start, double roi_end,
                           const std::string& mode) {
  double out = scale * double(in);
  bool single = std::abs(out - 1) < 1e-9;
  if (mode == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (mode == "half_pixel_symmetric") {
    double adjustment = std::floor(out + 1e-9) / out;  // integer output extent / exact length
    double center = double(in) / 2;
    return center * (1 - adjustment) + (x + 0.5) / scale - 0.5;
  }
  if (mode == "pytorch_half_pixel") return !single ? (x + 0.5) / scale - 0.5 : 0.0;
  if (mode == "align_corners") return single ? 0.0 : x * double(in - 1) / (out - 1);
  if (mode == "asymmetric") return x / scale;
  if (mode == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (mode == "tf_crop_and_resize")
    return !single ? roi_start * double(in - 1) + x * (roi_end - roi_start) * double(in - 1) / (out - 1)
                   : 0.5 * (roi_start + roi_end) * double(in - 1);
  fail(ErrorCode::Unsupported, cat("unknown coordinate_transformation_mode '", mode, "'"));
}

int64_t nearest_index(double x, double scale, const ResizeParams& p) {
  if (p.legacy_nearest) return scale < 1 ? int64_t(std::ceil(x)) : int64_t(std::floor(x));
  const std::string& m = p.nearest_mode;
  if (m == "floor") return int64_t(std::floor(x));
  if (m == "ceil") return int64_t(std::ceil(x));
  double fl = std::floor(x);
  if (x - fl == 0.5) return m == "round_prefer_floor" ? int64_t(fl) : int64_t(fl) + 1;
  if (m == "round_prefer_floor" || m == "round_prefer_ceil") return int64_t(std::round(x));
  fail(ErrorCode::Unsupported, cat("unknown nearest_mode '", m, "'"));
}

// The four cubic convolution weights for offsets -1, 0, 1, 2 from floor(x) at fraction t.
std::array<double, 4> cubic_weights(double t, double a) {
  auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };            // |d| <= 1
  auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };       // 1 < |d| < 2
  return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

AxisTaps axis_taps(int64_t in, int64_t out, double scale, double roi_start, double roi_end, const ResizeParams& p) {
  AxisTaps result;
  result.taps.resize(size_t(out));
  result.outside.assign(size_t(out), false);
  for (int64_t o = 0; o < out; ++o) {
    double x = original_coordinate(double(o), scale, in, roi_start, roi_end, p.transform);
    std::vector<Tap>& taps = result.taps[size_t(o)];
    if (p.transform == "tf_crop_and_resize" && (x < 0 || x > double(in - 1))) {
      result.outside[size_t(o)] = true;
      continue;
    }
    if (p.mode == "nearest") {
      taps.push_back({std::clamp<int64_t>(nearest_index(x, scale, p), 0, in - 1), 1.0});
    } else if (p.mode == "linear") {
      x = std::clamp(x, 0.0, double(in - 1));
      int64_t x0 = int64_t(std::floor(x));
      double t = x - double(x0);
      taps.push_back({x0, 1 - t});
      if (t > 0) taps.push_back({std::min(x0 + 1, in - 1), t});
    } else {  // cubic
      int64_t x0 = int64_t(std::floor(x));
      std::array<double, 4> w = cubic_weights(x - double(x0), p.cubic_a);
      double sum = 0;
      for (int k = 0; k < 4; ++k) {
        int64_t i = x0 - 1 + k;
        bool inside = i >= 0 && i < in;
        if (p.exclude_outside && !inside) continue;
        taps.push_back({std::clamp<int64_t>(i, 0, in - 1), w[size_t(k)]});
        sum += w[size_t(k)];
      }
      if (p.exclude_outside && sum != 0)
        for (Tap& t : taps) t.weight /= sum;
    }
  }
  return result;
}

// The resize itself, once every axis has an output extent and a scale.
void resize_tensor(KernelContext& ctx, const std::vector<int64_t>& out_dims, const std::vector<double>& scales,
                   const std::vector<double>& roi, const ResizeParams& p) {
  const Tensor& x = ctx.input(0);
  size_t rank = x.rank();
  std::vector<AxisTaps> axes(rank);
  for (size_t d = 0; d < rank; ++d) {
    double start = roi.empty() ? 0.0 : roi[d], end = roi.empty() ? 1.0 : roi[d + rank];
    VX_CHECK(x.dim(d) > 0 || out_dims[d] == 0, InvalidArgument, node_label(ctx), ": cannot resize an empty axis");
    axes[d] = axis_taps(x.dim(d), out_dims[d], scales[d], start, end, p);
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
      for (const Tap& t : axes[d].taps[size_t(coord[d])]) sum += t.weight * gather(d + 1, offset + t.index * in_strides[d]);
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

ResizeParams read_params(const KernelContext& ctx, bool legacy) {
  const Attributes& a = ctx.node().attrs;
  ResizeParams p;
  p.mode = a.get_string("mode", "nearest");
  if (p.mode == "bilinear" || p.mode == "trilinear") p.mode = "linear";  // Upsample-7 spellings
  VX_CHECK(p.mode == "nearest" || p.mode == "linear" || p.mode == "cubic", Unsupported, node_label(ctx),
           ": unknown mode '", p.mode, "'");
  if (legacy) {
    p.transform = "asymmetric";
    p.legacy_nearest = true;
    return p;
  }
  p.transform = a.get_string("coordinate_transformation_mode", "half_pixel");
  p.nearest_mode = a.get_string("nearest_mode", "round_prefer_floor");
  p.cubic_a = a.get_float("cubic_coeff_a", -0.75f);
  p.exclude_outside = a.get_int("exclude_outside", 0) != 0;
  p.extrapolation = a.get_float("extrapolation_value", 0.0f);
  VX_CHECK(a.get_int("antialias", 0) == 0, Unsupported, node_label(ctx), ": antialias is not supported");
  return p;
}

// Scales and sizes (and roi) are given for `axes` only in opset 18; expand them to every axis.
void resize_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  size_t rank = x.rank();
  bool upsample = ctx.node().op == "Upsample";
  bool legacy = upsample || (ctx.opset() > 0 && ctx.opset() < 11);
  ResizeParams p = read_params(ctx, legacy);

  std::vector<double> scale_values, roi_values;
  std::vector<int64_t> size_values;
  if (legacy) {
    if (ctx.has_input(1)) {
      scale_values = read_doubles(ctx.input(1));
    } else {
      for (float s : ctx.node().attrs.get_floats("scales")) scale_values.push_back(s);
    }
  } else {
    if (ctx.has_input(1) && ctx.input(1).numel() > 0) roi_values = read_doubles(ctx.input(1));
    if (ctx.has_input(2) && ctx.input(2).numel() > 0) scale_values = read_doubles(ctx.input(2));
    if (ctx.has_input(3) && ctx.input(3).numel() > 0) size_values = read_ints(ctx.input(3));
  }
  VX_CHECK(scale_values.empty() != size_values.empty(), InvalidArgument, node_label(ctx),
           ": exactly one of scales and sizes must be given");

  std::vector<int64_t> axes = ctx.node().attrs.get_ints("axes");
  if (axes.empty()) {
    for (size_t d = 0; d < rank; ++d) axes.push_back(int64_t(d));
  } else {
    for (int64_t& a : axes) a = normalize_axis(a, int64_t(rank), ctx);
  }
  size_t n = axes.size();
  VX_CHECK(scale_values.empty() || scale_values.size() == n, InvalidArgument, node_label(ctx), ": ",
           scale_values.size(), " scales for ", n, " axes");
  VX_CHECK(size_values.empty() || size_values.size() == n, InvalidArgument, node_label(ctx), ": ",
           size_values.size(), " sizes for ", n, " axes");
  VX_CHECK(roi_values.empty() || roi_values.size() == 2 * n, InvalidArgument, node_label(ctx), ": roi has ",
           roi_values.size(), " values for ", n, " axes");

  std::vector<int64_t> out_dims = x.shape().dims();
  std::vector<double> scales(rank, 1.0), roi;
  if (!roi_values.empty()) {
    roi.assign(2 * rank, 0.0);
    for (size_t d = 0; d < rank; ++d) roi[d + rank] = 1.0;
  }
  for (size_t i = 0; i < n; ++i) {
    size_t d = size_t(axes[i]);
    if (!roi.empty()) {
      roi[d] = roi_values[i];
      roi[d + rank] = roi_values[i + n];
    }
    if (!scale_values.empty()) {
      VX_CHECK(scale_values[i] > 0, InvalidArgument, node_label(ctx), ": scale ", scale_values[i], " must be > 0");
      scales[d] = scale_values[i];
      out_dims[d] = int64_t(std::floor(double(x.dim(d)) * scale_values[i]));
    }
  }
  if (!size_values.empty()) {
    std::string policy = ctx.node().attrs.get_string("keep_aspect_ratio_policy", "stretch");
    VX_CHECK(policy == "stretch" || policy == "not_larger" || policy == "not_smaller", Unsupported,
             node_label(ctx), ": unknown keep_aspect_ratio_policy '", policy, "'");
    double common = policy == "not_larger" ? INFINITY : 0.0;
    for (size_t i = 0; i < n; ++i) {
      size_t d = size_t(axes[i]);
      VX_CHECK(size_values[i] >= 0 && x.dim(d) > 0, InvalidArgument, node_label(ctx), ": bad size ", size_values[i],
               " for extent ", x.dim(d));
      double s = double(size_values[i]) / double(x.dim(d));
      common = policy == "not_larger" ? std::min(common, s) : std::max(common, s);
      scales[d] = s;
      out_dims[d] = size_values[i];
    }
    if (policy != "stretch")
      for (size_t i = 0; i < n; ++i) {
        size_t d = size_t(axes[i]);
        scales[d] = common;
        out_dims[d] = int64_t(std::nearbyint(common * double(x.dim(d))));
      }
  }
  resize_tensor(ctx, out_dims, scales, roi, p);
}

}  // namespace

VX_REGISTER_CPU_KERNEL(resize_onnx, {"Resize", "reference", 0, nullptr, resize_kernel});
VX_REGISTER_CPU_KERNEL(upsample_onnx, {"Upsample", "reference", 0, nullptr, resize_kernel});

}  // namespace vx::cpu::ref

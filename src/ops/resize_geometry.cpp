#include "ops/resize_geometry.h"

#include <cstring>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/error.h"

namespace vx {

namespace {

std::vector<double> resize_doubles(const Tensor& t) {
  std::vector<double> v(size_t(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = t.get(int64_t(i));
  return v;
}

std::vector<int64_t> resize_ints(const Tensor& t) {
  VX_CHECK(t.dtype() != DType::f32 && t.dtype() != DType::f16, InvalidArgument, "Resize: sizes must be integers, got ",
           dtype_name(t.dtype()));
  std::vector<int64_t> v(size_t(t.numel()));
  if (t.dtype() == DType::i64) {
    std::memcpy(v.data(), t.raw(), v.size() * sizeof(int64_t));
  } else {
    for (size_t i = 0; i < v.size(); ++i) v[i] = int64_t(t.get(int64_t(i)));
  }
  return v;
}

}  // namespace

bool resize_is_legacy(const Node& node, int64_t opset) { return node.op == "Upsample" || (opset > 0 && opset < 11); }

ResizeValues read_resize_values(const Node& node, bool legacy, const std::function<const Tensor*(size_t)>& input) {
  ResizeValues v;
  auto given = [&](size_t i) -> const Tensor* {
    const Tensor* t = input(i);
    return t && t->numel() > 0 ? t : nullptr;
  };
  if (legacy) {
    if (const Tensor* t = input(1)) {
      v.scales = resize_doubles(*t);
    } else {
      for (float s : node.attrs.get_floats("scales")) v.scales.push_back(s);
    }
    return v;
  }
  if (const Tensor* t = given(1)) v.roi = resize_doubles(*t);
  if (const Tensor* t = given(2)) v.scales = resize_doubles(*t);
  if (const Tensor* t = given(3)) v.sizes = resize_ints(*t);
  return v;
}
namespace {

// Maps an output coordinate onto the input axis (the ONNX coordinate_transformation_mode). As in
// ONNX's reference implementation, the output length is scale * in, not the rounded extent: the
// two differ when scales do not divide evenly (align_corners then stretches by the exact ratio).
double original_coordinate(double x, double scale, int64_t in, double roi_start, double roi_end,
                           const std::string& mode, const std::string& what) {
  const double out = scale * double(in);
  const bool single = std::abs(out - 1) < 1e-9;
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
  fail(ErrorCode::Unsupported, cat(what, ": unknown coordinate_transformation_mode '", mode, "'"));
}

int64_t nearest_index(double x, double scale, const ResizeParams& p, const std::string& what) {
  if (p.legacy_nearest) return scale < 1 ? int64_t(std::ceil(x)) : int64_t(std::floor(x));
  const std::string& m = p.nearest_mode;
  if (m == "floor") return int64_t(std::floor(x));
  if (m == "ceil") return int64_t(std::ceil(x));
  double fl = std::floor(x);
  if (x - fl == 0.5) return m == "round_prefer_floor" ? int64_t(fl) : int64_t(fl) + 1;
  if (m == "round_prefer_floor" || m == "round_prefer_ceil") return int64_t(std::round(x));
  fail(ErrorCode::Unsupported, cat(what, ": unknown nearest_mode '", m, "'"));
}

// The four cubic convolution weights for offsets -1, 0, 1, 2 from floor(x) at fraction t.
std::array<double, 4> cubic_weights(double t, double a) {
  auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };       // |d| <= 1
  auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };  // 1 < |d| < 2
  return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

}  // namespace

ResizeParams read_resize_params(const Attributes& a, bool legacy, const std::string& what) {
  ResizeParams p;
  p.mode = a.get_string("mode", "nearest");
  if (p.mode == "bilinear" || p.mode == "trilinear") p.mode = "linear";  // Upsample-7 spellings
  VX_CHECK(p.mode == "nearest" || p.mode == "linear" || p.mode == "cubic", Unsupported, what, ": unknown mode '",
           p.mode, "'");
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
  VX_CHECK(a.get_int("antialias", 0) == 0, Unsupported, what, ": antialias is not supported");
  return p;
}

ResizeAxes resize_axes(const std::vector<int64_t>& in_dims, const Attributes& attrs,
                       const std::vector<double>& scale_values, const std::vector<int64_t>& size_values,
                       const std::vector<double>& roi_values, const std::string& what) {
  const int64_t rank = int64_t(in_dims.size());
  VX_CHECK(scale_values.empty() != size_values.empty(), InvalidArgument, what,
           ": exactly one of scales and sizes must be given");
  // Opset 18's axes: the values are given for these axes only.
  std::vector<int64_t> axes = attrs.get_ints("axes");
  if (axes.empty()) {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  } else {
    for (int64_t& a : axes) {
      VX_CHECK(a >= -rank && a < rank, InvalidArgument, what, ": axis ", a, " is out of range for rank ", rank);
      if (a < 0) a += rank;
    }
  }
  const size_t n = axes.size();
  VX_CHECK(scale_values.empty() || scale_values.size() == n, InvalidArgument, what, ": ", scale_values.size(),
           " scales for ", n, " axes");
  VX_CHECK(size_values.empty() || size_values.size() == n, InvalidArgument, what, ": ", size_values.size(),
           " sizes for ", n, " axes");
  VX_CHECK(roi_values.empty() || roi_values.size() == 2 * n, InvalidArgument, what, ": roi has ", roi_values.size(),
           " values for ", n, " axes");

  ResizeAxes r;
  r.out_dims = in_dims;
  r.scales.assign(size_t(rank), 1.0);
  r.roi_start.assign(size_t(rank), 0.0);
  r.roi_end.assign(size_t(rank), 1.0);
  for (size_t i = 0; i < n; ++i) {
    const size_t d = size_t(axes[i]);
    if (!roi_values.empty()) {
      r.roi_start[d] = roi_values[i];
      r.roi_end[d] = roi_values[i + n];
    }
    if (!scale_values.empty()) {
      VX_CHECK(scale_values[i] > 0, InvalidArgument, what, ": scale ", scale_values[i], " must be > 0");
      const double extent = std::floor(double(in_dims[d]) * scale_values[i]);
      VX_CHECK(extent < 0x1p40, InvalidArgument, what, ": scale ", scale_values[i], " is too large");
      r.scales[d] = scale_values[i];
      r.out_dims[d] = int64_t(extent);
    }
  }
  if (!size_values.empty()) {
    const std::string policy = attrs.get_string("keep_aspect_ratio_policy", "stretch");
    VX_CHECK(policy == "stretch" || policy == "not_larger" || policy == "not_smaller", Unsupported, what,
             ": unknown keep_aspect_ratio_policy '", policy, "'");
    double common = policy == "not_larger" ? INFINITY : 0.0;
    for (size_t i = 0; i < n; ++i) {
      const size_t d = size_t(axes[i]);
      VX_CHECK(size_values[i] >= 0 && in_dims[d] > 0, InvalidArgument, what, ": bad size ", size_values[i],
               " for extent ", in_dims[d]);
      const double s = double(size_values[i]) / double(in_dims[d]);
      common = policy == "not_larger" ? std::min(common, s) : std::max(common, s);
      r.scales[d] = s;
      r.out_dims[d] = size_values[i];
    }
    if (policy != "stretch")
      for (size_t i = 0; i < n; ++i) {
        const size_t d = size_t(axes[i]);
        VX_CHECK(common * double(in_dims[d]) < 0x1p40, InvalidArgument, what, ": sizes are too large");
        r.scales[d] = common;
        r.out_dims[d] = int64_t(std::nearbyint(common * double(in_dims[d])));
      }
  }
  return r;
}

ResizeAxisTaps resize_axis_taps(int64_t in, int64_t out, double scale, double roi_start, double roi_end,
                                const ResizeParams& p, const std::string& what) {
  ResizeAxisTaps result;
  result.taps.resize(size_t(out));
  result.outside.assign(size_t(out), false);
  for (int64_t o = 0; o < out; ++o) {
    double x = original_coordinate(double(o), scale, in, roi_start, roi_end, p.transform, what);
    VX_CHECK(std::isfinite(x), InvalidArgument, what, ": output index ", o, " maps to ", x);
    std::vector<ResizeTap>& taps = result.taps[size_t(o)];
    if (p.transform == "tf_crop_and_resize" && (x < 0 || x > double(in - 1))) {
      result.outside[size_t(o)] = true;
      continue;
    }
    if (p.mode == "nearest") {
      taps.push_back({std::clamp<int64_t>(nearest_index(x, scale, p, what), 0, in - 1), 1.0});
    } else if (p.mode == "linear") {
      x = std::clamp(x, 0.0, double(in - 1));
      const int64_t x0 = int64_t(std::floor(x));
      const double t = x - double(x0);
      taps.push_back({x0, 1 - t});
      if (t > 0) taps.push_back({std::min(x0 + 1, in - 1), t});
    } else {  // cubic
      const int64_t x0 = int64_t(std::floor(x));
      const std::array<double, 4> w = cubic_weights(x - double(x0), p.cubic_a);
      double sum = 0;
      for (int k = 0; k < 4; ++k) {
        const int64_t i = x0 - 1 + k;
        if (p.exclude_outside && (i < 0 || i >= in)) continue;
        taps.push_back({std::clamp<int64_t>(i, 0, in - 1), w[size_t(k)]});
        sum += w[size_t(k)];
      }
      if (p.exclude_outside && sum != 0)
        for (ResizeTap& t : taps) t.weight /= sum;
    }
  }
  return result;
}

}  // namespace vx

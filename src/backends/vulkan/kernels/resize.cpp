// Resize (opsets 10-19) and Upsample (7-9) as a separable filter (shader mv_resize): the tap table
// of each resized axis (input index and weight per output index) is computed here in double, the
// way the CPU reference does, and uploaded once; so every mode (nearest with each nearest_mode and
// the legacy floor/ceil rule, linear, cubic with cubic_coeff_a and exclude_outside) and every
// coordinate_transformation_mode (half_pixel, half_pixel_symmetric, pytorch_half_pixel,
// align_corners, asymmetric, tf_half_pixel_for_nn, tf_crop_and_resize with extrapolation_value)
// runs on the GPU. Scales and roi must be graph constants; sizes may be computed at run time (with
// keep_aspect_ratio_policy "stretch" they are the bound output extents).
// Declined: antialias, cubic on integer tensors, rank > 6.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "backends/vulkan/kernels/op_args.h"
#include "core/error.h"

namespace vx::vk {
namespace {

using namespace opargs;

constexpr int kMaxRank = 6;

struct Tap {
  int64_t index;
  double weight;
};

struct Params {
  std::string mode = "nearest";
  std::string transform = "half_pixel";
  std::string nearest_mode = "round_prefer_floor";
  bool legacy_nearest = false;  // Upsample and Resize-10: floor when enlarging, ceil when shrinking
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
};

double original_coordinate(const OpInfo& info, double x, double scale, int64_t in, double roi_start, double roi_end,
                           const std::string& mode) {
  const double out = scale * double(in);
  const bool single = std::abs(out - 1) < 1e-9;
  if (mode == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (mode == "half_pixel_symmetric") {
    double adjustment = std::floor(out + 1e-9) / out;
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
  decline(info, cat("unknown coordinate_transformation_mode '", mode, "'"));
}

int64_t nearest_index(const OpInfo& info, double x, double scale, const Params& p) {
  if (p.legacy_nearest) return scale < 1 ? int64_t(std::ceil(x)) : int64_t(std::floor(x));
  const std::string& m = p.nearest_mode;
  if (m == "floor") return int64_t(std::floor(x));
  if (m == "ceil") return int64_t(std::ceil(x));
  double fl = std::floor(x);
  if (x - fl == 0.5) return m == "round_prefer_floor" ? int64_t(fl) : int64_t(fl) + 1;
  if (m == "round_prefer_floor" || m == "round_prefer_ceil") return int64_t(std::round(x));
  decline(info, cat("unknown nearest_mode '", m, "'"));
}

std::array<double, 4> cubic_weights(double t, double a) {
  auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };
  auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };
  return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

// Taps per output index of one axis; an empty list marks tf_crop_and_resize's outside.
std::vector<std::vector<Tap>> axis_taps(const OpInfo& info, int64_t in, int64_t out, double scale, double roi_start,
                                        double roi_end, const Params& p) {
  std::vector<std::vector<Tap>> result(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    double x = original_coordinate(info, double(o), scale, in, roi_start, roi_end, p.transform);
    VX_CHECK(std::isfinite(x), InvalidArgument, label(info), ": output index ", o, " maps to ", x);
    std::vector<Tap>& taps = result[size_t(o)];
    if (p.transform == "tf_crop_and_resize" && (x < 0 || x > double(in - 1))) continue;
    if (p.mode == "nearest") {
      taps.push_back({std::clamp<int64_t>(nearest_index(info, x, scale, p), 0, in - 1), 1.0});
    } else if (p.mode == "linear") {
      x = std::clamp(x, 0.0, double(in - 1));
      int64_t x0 = int64_t(std::floor(x));
      double t = x - double(x0);
      taps.push_back({x0, 1 - t});
      if (t > 0) taps.push_back({std::min(x0 + 1, in - 1), t});
    } else {
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

Params read_params(const OpInfo& info, bool legacy) {
  const Attributes& a = info.node.attrs;
  Params p;
  p.mode = a.get_string("mode", "nearest");
  if (p.mode == "bilinear" || p.mode == "trilinear") p.mode = "linear";  // Upsample-7 spellings
  if (p.mode != "nearest" && p.mode != "linear" && p.mode != "cubic") decline(info, cat("unknown mode '", p.mode, "'"));
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
  if (a.get_int("antialias", 0) != 0) decline(info, "antialias is not supported");
  return p;
}

struct ResizePush {
  int32_t count, rank, taps;
  float extrapolation;
  int32_t out_dims[kMaxRank];
  int32_t in_strides[kMaxRank];
  int32_t table_offset[kMaxRank];
};

OpPlan plan_resize(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const size_t rank = x.shape.rank();
  const bool upsample = info.node.op == "Upsample";
  const bool legacy = upsample || (info.opset > 0 && info.opset < 11);
  Params p = read_params(info, legacy);
  if (x.device == DeviceType::i32 && p.mode == "cubic") decline(info, "cubic interpolation of an integer tensor");
  if (rank > size_t(kMaxRank)) decline(info, cat("rank ", rank, " exceeds ", kMaxRank));

  std::vector<double> scale_values, roi_values;
  std::vector<int64_t> size_values;
  if (legacy) {
    if (info.has_input(1)) {
      scale_values = *constant_doubles(info, 1, "scales");
    } else {
      for (float s : info.node.attrs.get_floats("scales")) scale_values.push_back(s);
    }
  } else {
    // An operand with no elements counts as absent, whether constant or not.
    auto given = [&](size_t i) { return info.has_input(i) && info.inputs[i].shape.numel() > 0; };
    if (p.transform == "tf_crop_and_resize" && given(1)) roi_values = *constant_doubles(info, 1, "roi");
    if (given(2)) scale_values = *constant_doubles(info, 2, "scales");
    if (given(3)) {
      if (info.inputs[3].constant != nullptr && info.inputs[3].constant->defined()) {
        size_values = *constant_ints(info, 3, "sizes");
      } else if (info.node.attrs.get_string("keep_aspect_ratio_policy", "stretch") == "stretch") {
        // Sizes computed at run time: with "stretch" they are the bound output extents.
        std::vector<int64_t> axes = info.node.attrs.get_ints("axes");
        if (axes.empty())
          for (size_t d = 0; d < rank; ++d) axes.push_back(int64_t(d));
        for (int64_t a : axes) size_values.push_back(info.outputs.at(0).shape[size_t(normalize_axis(info, a, int64_t(rank)))]);
      } else {
        decline(info, "sizes (input 3) are computed at run time and keep_aspect_ratio_policy is not stretch");
      }
    }
  }
  VX_CHECK(scale_values.empty() != size_values.empty(), InvalidArgument, label(info),
           ": exactly one of scales and sizes must be given");
  std::vector<int64_t> axes = info.node.attrs.get_ints("axes");
  if (axes.empty()) {
    for (size_t d = 0; d < rank; ++d) axes.push_back(int64_t(d));
  } else {
    for (int64_t& a : axes) a = normalize_axis(info, a, int64_t(rank));
  }
  const size_t n = axes.size();
  VX_CHECK(scale_values.empty() || scale_values.size() == n, InvalidArgument, label(info), ": ", scale_values.size(),
           " scales for ", n, " axes");
  VX_CHECK(size_values.empty() || size_values.size() == n, InvalidArgument, label(info), ": ", size_values.size(),
           " sizes for ", n, " axes");
  VX_CHECK(roi_values.empty() || roi_values.size() == 2 * n, InvalidArgument, label(info), ": roi has ",
           roi_values.size(), " values for ", n, " axes");

  std::vector<int64_t> out_dims = x.shape.dims();
  std::vector<double> scales(rank, 1.0), roi_start(rank, 0.0), roi_end(rank, 1.0);
  for (size_t i = 0; i < n; ++i) {
    const size_t d = size_t(axes[i]);
    if (!roi_values.empty()) {
      roi_start[d] = roi_values[i];
      roi_end[d] = roi_values[i + n];
    }
    if (!scale_values.empty()) {
      VX_CHECK(scale_values[i] > 0, InvalidArgument, label(info), ": scale ", scale_values[i], " must be > 0");
      scales[d] = scale_values[i];
      const double extent = std::floor(double(x.shape[d]) * scale_values[i]);
      VX_CHECK(extent < 0x1p40, InvalidArgument, label(info), ": scale ", scale_values[i], " is too large");
      out_dims[d] = int64_t(extent);
    }
  }
  if (!size_values.empty()) {
    const std::string policy = info.node.attrs.get_string("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
      decline(info, cat("unknown keep_aspect_ratio_policy '", policy, "'"));
    double common = policy == "not_larger" ? INFINITY : 0.0;
    for (size_t i = 0; i < n; ++i) {
      const size_t d = size_t(axes[i]);
      VX_CHECK(size_values[i] >= 0 && x.shape[d] > 0, InvalidArgument, label(info), ": bad size ", size_values[i],
               " for extent ", x.shape[d]);
      double s = double(size_values[i]) / double(x.shape[d]);
      common = policy == "not_larger" ? std::min(common, s) : std::max(common, s);
      scales[d] = s;
      out_dims[d] = size_values[i];
    }
    if (policy != "stretch")
      for (size_t i = 0; i < n; ++i) {
        const size_t d = size_t(axes[i]);
        scales[d] = common;
        VX_CHECK(common * double(x.shape[d]) < 0x1p40, InvalidArgument, label(info), ": sizes are too large");
        out_dims[d] = int64_t(std::nearbyint(common * double(x.shape[d])));
      }
  }
  VX_CHECK(Shape(out_dims) == info.outputs.at(0).shape, InvalidArgument, label(info), ": resize gives ",
           Shape(out_dims).str(), " but the graph says ", info.outputs.at(0).shape.str());
  const int64_t count = Shape(out_dims).numel();
  require_int32_elements(info, std::max(count, x.shape.numel()));
  OpPlan plan;
  if (count == 0) return plan;

  // Tap tables; an axis that maps every output index to itself with weight 1 needs none.
  const int taps = p.mode == "nearest" ? 1 : p.mode == "linear" ? 2 : 4;
  std::vector<int32_t> table;  // (index, weight bits) pairs
  ResizePush push{};
  push.count = int32_t(count);
  push.rank = int32_t(rank);
  push.taps = taps;
  push.extrapolation = float(p.extrapolation);
  std::vector<int64_t> in_strides = dense_strides(x.shape.dims());
  for (size_t d = 0; d < rank; ++d) {
    push.out_dims[d] = int32_t(out_dims[d]);
    push.in_strides[d] = int32_t(in_strides[d]);
    push.table_offset[d] = -1;
    if (out_dims[d] == 0) continue;
    VX_CHECK(x.shape[d] > 0, InvalidArgument, label(info), ": cannot resize an empty axis");
    auto per_output = axis_taps(info, x.shape[d], out_dims[d], scales[d], roi_start[d], roi_end[d], p);
    bool identity = out_dims[d] == x.shape[d];
    for (int64_t o = 0; o < out_dims[d] && identity; ++o) {
      double weight_at_o = 0, other = 0;
      for (const Tap& t : per_output[size_t(o)]) (t.index == o ? weight_at_o : other) += std::abs(t.weight);
      identity = !per_output[size_t(o)].empty() && weight_at_o == 1.0 && other == 0.0;
    }
    if (identity) continue;
    VX_CHECK(table.size() / 2 + size_t(out_dims[d]) * size_t(taps) < size_t(INT32_MAX), InvalidArgument, label(info),
             ": tap table too large");
    push.table_offset[d] = int32_t(table.size() / 2);
    for (const auto& list : per_output) {
      for (int k = 0; k < taps; ++k) {
        // Unused slots repeat a valid index with weight 0; outside is index -1.
        int32_t index = list.empty() ? -1 : int32_t(k < int(list.size()) ? list[size_t(k)].index : list[0].index);
        float weight = k < int(list.size()) ? float(list[size_t(k)].weight) : 0.0f;
        int32_t bits;
        std::memcpy(&bits, &weight, 4);
        table.push_back(index);
        table.push_back(bits);
      }
    }
  }
  if (table.empty()) table = {0, 0};
  std::vector<uint8_t> blob(table.size() * 4);
  std::memcpy(blob.data(), table.data(), blob.size());
  plan.constants.push_back(std::move(blob));
  Dispatch dispatch;
  dispatch.shader = typed_shader("mv_resize", x.device);
  dispatch.bindings = {Binding::in(0), Binding::constant_blob(0), Binding::out(0)};
  dispatch.set_push(push);
  dispatch.groups = linear_groups(uint64_t(count));
  plan.dispatches.push_back(std::move(dispatch));
  plan.variant = p.mode;
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(resize, {"Resize", "", 0, plan_resize});
VX_REGISTER_VK_OP(upsample, {"Upsample", "", 0, plan_resize});

}  // namespace vx::vk

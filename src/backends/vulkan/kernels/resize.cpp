// Resize (opsets 10-19) and Upsample (7-9) as a separable filter (shader resize; resize_2d where
// only the two innermost axes change): the tap table of each resized axis (input index and weight
// per output index) comes from passes/resize_geometry, the same tables the CPU reference uses, and
// is uploaded once; so every mode (nearest with each nearest_mode and the legacy floor/ceil rule,
// linear, cubic with cubic_coeff_a and exclude_outside) and every
// coordinate_transformation_mode (half_pixel, half_pixel_symmetric, pytorch_half_pixel,
// align_corners, asymmetric, tf_half_pixel_for_nn, tf_crop_and_resize with extrapolation_value)
// runs on the GPU. Scales and roi must be graph constants; sizes may be computed at run time (with
// keep_aspect_ratio_policy "stretch" they are the bound output extents).
// Declined: antialias, cubic on integer tensors, rank > 6.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/vulkan/kernels/op_args.h"
#include "core/error.h"
#include "ops/resize_geometry.h"

namespace vx::vk {
namespace {

struct ResizePush {
  int32_t count, rank, taps;
  float extrapolation;
  int32_t out_dims[kMaxRank];
  int32_t in_strides[kMaxRank];
  int32_t table_offset[kMaxRank];
};

// Matches the push block of shaders/resize_2d.comp.
struct Resize2dPush {
  int32_t in_h, in_w, out_h, out_w, taps;
  float extrapolation;
  int32_t y_table, x_table;
};

OpPlan plan_resize(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const size_t rank = x.shape.rank();
  const bool upsample = info.node.op == "Upsample";
  const bool legacy = upsample || (info.opset > 0 && info.opset < 11);
  const ResizeParams p = read_resize_params(info.node.attrs, legacy, label(info));
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
  const ResizeAxes geometry =
      resize_axes(x.shape.dims(), info.node.attrs, scale_values, size_values, roi_values, label(info));
  const std::vector<int64_t>& out_dims = geometry.out_dims;
  VX_CHECK(Shape(out_dims) == info.outputs.at(0).shape, InvalidArgument, label(info), ": resize gives ",
           Shape(out_dims).str(), " but the graph says ", info.outputs.at(0).shape.str());
  const int64_t count = Shape(out_dims).numel();
  checked_count32(info, std::max(count, x.shape.numel()));
  OpPlan plan;
  if (count == 0) return plan;

  // Tap tables; an axis that maps every output index to itself with weight 1 needs none.
  const int taps = p.mode == "nearest" ? 1 : p.mode == "linear" ? 2 : 4;
  std::vector<ResizeAxisTaps> axis_taps(rank);
  std::vector<bool> identity(rank, true);
  for (size_t d = 0; d < rank; ++d) {
    if (out_dims[d] == 0) continue;
    VX_CHECK(x.shape[d] > 0, InvalidArgument, label(info), ": cannot resize an empty axis");
    axis_taps[d] = resize_axis_taps(x.shape[d], out_dims[d], geometry.scales[d], geometry.roi_start[d],
                                    geometry.roi_end[d], p, label(info));
    identity[d] = out_dims[d] == x.shape[d];
    for (int64_t o = 0; o < out_dims[d] && identity[d]; ++o) {
      double weight_at_o = 0, other = 0;
      for (const ResizeTap& t : axis_taps[d].taps[size_t(o)])
        (t.index == o ? weight_at_o : other) += std::abs(t.weight);
      identity[d] = !axis_taps[d].outside[size_t(o)] && weight_at_o == 1.0 && other == 0.0;
    }
  }
  // Only the two innermost axes resized, over at most 65535 planes (the grid's guaranteed z extent):
  // resize_2d.comp.
  const int64_t planes = rank >= 2 ? Shape(std::vector<int64_t>(out_dims.begin(), out_dims.end() - 2)).numel() : 0;
  const bool image = rank >= 2 && planes <= 65535 &&
                     std::all_of(identity.begin(), identity.end() - 2, [](bool i) { return i; });
  std::vector<int32_t> table;  // (index, weight bits) pairs
  std::vector<int32_t> table_offset(rank, -1);
  for (size_t d = 0; d < rank; ++d) {
    if (out_dims[d] == 0 || (identity[d] && !(image && d + 2 >= rank))) continue;
    VX_CHECK(table.size() / 2 + size_t(out_dims[d]) * size_t(taps) < size_t(INT32_MAX), InvalidArgument, label(info),
             ": tap table too large");
    table_offset[d] = int32_t(table.size() / 2);
    for (size_t o = 0; o < axis_taps[d].taps.size(); ++o) {
      const std::vector<ResizeTap>& list = axis_taps[d].taps[o];
      for (int k = 0; k < taps; ++k) {
        // Unused slots repeat a valid index with weight 0; outside is index -1.
        int32_t index =
            axis_taps[d].outside[o] ? -1 : int32_t(k < int(list.size()) ? list[size_t(k)].index : list[0].index);
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
  dispatch.bindings = {Binding::in(0), Binding::constant_blob(0), Binding::out(0)};
  if (image) {
    Resize2dPush push{int32_t(x.shape[rank - 2]), int32_t(x.shape[rank - 1]), int32_t(out_dims[rank - 2]),
                      int32_t(out_dims[rank - 1]), taps, float(p.extrapolation), table_offset[rank - 2],
                      table_offset[rank - 1]};
    dispatch.shader = shader_variant("resize_2d", {x.device});
    dispatch.set_push(push);
    dispatch.groups = {uint32_t((push.out_w + 15) / 16), uint32_t((push.out_h + 15) / 16), uint32_t(planes)};
  } else {
    ResizePush push{};
    push.count = int32_t(count);
    push.rank = int32_t(rank);
    push.taps = taps;
    push.extrapolation = float(p.extrapolation);
    const std::vector<int64_t> in_strides = row_major_strides(x.shape.dims());
    for (size_t d = 0; d < rank; ++d) {
      push.out_dims[d] = int32_t(out_dims[d]);
      push.in_strides[d] = int32_t(in_strides[d]);
      push.table_offset[d] = table_offset[d];
    }
    dispatch.shader = shader_variant("resize", {x.device});
    dispatch.set_push(push);
    dispatch.groups = linear_groups(uint64_t(count));
  }
  plan.dispatches.push_back(std::move(dispatch));
  plan.variant = image ? p.mode + "_2d" : p.mode;
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(resize, {"Resize", "", 0, plan_resize});
VX_REGISTER_VK_OP(upsample, {"Upsample", "", 0, plan_resize});

}  // namespace vx::vk

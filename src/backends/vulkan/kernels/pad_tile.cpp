// Pad (opsets 2-19: pads as attribute or input (constant, or computed at run time and read by the
// shader), constant_value, axes, modes constant / reflect / edge / wrap, negative pads) and Tile
// (a wrap-mode pad of the bound output shape, so `repeats` need not be a constant). Shader pad,
// rank <= 6.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "backends/vulkan/kernels/op_args.h"
#include "core/error.h"

namespace vx::vk {
namespace {

struct PadPush {
  int32_t count, rank, mode;
  uint32_t fill;
  int32_t out_dims[kMaxRank];
  int32_t in_dims[kMaxRank];
  int32_t begin[kMaxRank];
};

// `begin`: per axis the begin pad, or with `pads_input` the slot of the axis' begin pad in the
// run-time pads tensor (-1: none); `value_input`: the fill value is the run-time input 2.
OpPlan pad_plan(const OpInfo& info, const std::vector<int64_t>& begin, int mode, uint32_t fill, bool pads_input = false,
                bool value_input = false) {
  const OpTensor& x = info.inputs.at(0);
  const OpTensor& y = info.outputs.at(0);
  const size_t rank = x.shape.rank();
  if (rank > size_t(kMaxRank)) decline(info, cat("rank ", rank, " exceeds ", kMaxRank));
  VX_CHECK(y.shape.rank() == rank, InvalidArgument, label(info), ": output rank ", y.shape.rank(), " differs from ", rank);
  const int64_t count = y.shape.numel();
  checked_count32(info, std::max(count, x.shape.numel()));
  OpPlan plan;
  if (count == 0) return plan;
  PadPush push{};
  push.count = int32_t(count);
  push.rank = int32_t(rank);
  push.mode = mode | (value_input ? 4 : 0);
  push.fill = fill;
  for (size_t d = 0; d < rank; ++d) {
    VX_CHECK(mode == 0 || x.shape[d] > 0, InvalidArgument, label(info), ": cannot pad or tile an empty axis");
    VX_CHECK(std::abs(begin[d]) <= int64_t(INT32_MAX) / 2, InvalidArgument, label(info), ": pad ", begin[d], " too large");
    push.out_dims[d] = int32_t(y.shape[d]);
    push.in_dims[d] = int32_t(x.shape[d]);
    push.begin[d] = int32_t(begin[d]);
  }
  Dispatch d;
  d.shader = move_variant("pad", x.device);
  d.bindings = {Binding::in(0), Binding::out(0)};
  if (pads_input) {
    d.shader = move_variant("pad", x.device, "pads_input");
    // Without a run-time value, the pads stand in for it (never read).
    d.bindings.push_back(Binding::in(1));
    d.bindings.push_back(Binding::in(value_input ? 2 : 1));
    plan.variant = "pads_input";
  }
  d.set_push(push);
  d.groups = linear_groups(uint64_t(count));
  plan.dispatches.push_back(std::move(d));
  return plan;
}

// The fill value's bits as the shader reads them.
uint32_t fill_bits(DeviceType t, double value) {
  uint32_t bits;
  if (t == DeviceType::i32) {
    int32_t v = int32_t(value);
    std::memcpy(&bits, &v, 4);
  } else {
    float f = float(value);
    std::memcpy(&bits, &f, 4);
  }
  return bits;
}

OpPlan plan_pad(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const Attributes& attrs = info.node.attrs;
  const int64_t rank = int64_t(x.shape.rank());
  const std::string mode = attrs.get_string("mode", "constant");
  int mode_code;
  if (mode == "constant") mode_code = 0;
  else if (mode == "reflect") mode_code = 1;
  else if (mode == "edge") mode_code = 2;
  else if (mode == "wrap") mode_code = 3;
  else decline(info, cat("unknown mode '", mode, "'"));
  std::vector<int64_t> pads;
  double value = 0;
  auto is_constant = [&](size_t i) {
    return info.has_input(i) && info.inputs[i].constant != nullptr && info.inputs[i].constant->defined();
  };
  if ((info.opset >= 11 || info.has_input(1)) && info.has_input(1) &&
      (!is_constant(1) || (info.has_input(2) && !is_constant(2)))) {
    // Pads (or the value) computed at run time: the shader reads them; axes must be constant.
    std::vector<int64_t> axes;
    if (auto a = constant_ints(info, 3, "axes")) {
      for (int64_t v : *a) axes.push_back(normalize_axis(info, v, rank));
    } else {
      for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
    }
    VX_CHECK(info.inputs[1].shape.numel() == int64_t(2 * axes.size()), InvalidArgument, label(info), ": ",
             info.inputs[1].shape.numel(), " pads for ", axes.size(), " axes");
    if (info.inputs[1].dtype == DType::f32 || info.inputs[1].dtype == DType::f16) decline(info, "pads are not integers");
    std::vector<int64_t> slot(size_t(rank), -1);
    for (size_t i = 0; i < axes.size(); ++i) slot[size_t(axes[i])] = int64_t(i);
    const bool value_input = info.has_input(2) && info.inputs[2].shape.numel() > 0 && !is_constant(2);
    if (is_constant(2) && info.inputs[2].constant->numel() > 0) value = info.inputs[2].constant->get(0);
    return pad_plan(info, slot, mode_code, fill_bits(x.device, value), true, value_input);
  }
  if (info.opset >= 11 || info.has_input(1)) {
    VX_CHECK(info.has_input(1), InvalidArgument, label(info), ": pads input missing");
    pads = *constant_ints(info, 1, "pads");
    if (auto v = constant_doubles(info, 2, "constant_value"); v && !v->empty()) value = v->front();
  } else {
    pads = attrs.has("pads") ? attrs.get_ints("pads") : attrs.get_ints("paddings");
    value = attrs.get_float("value", 0.0f);
  }
  std::vector<int64_t> axes;
  if (auto a = constant_ints(info, 3, "axes")) {  // opset 18
    for (int64_t v : *a) axes.push_back(normalize_axis(info, v, rank));
  } else {
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  VX_CHECK(pads.size() == 2 * axes.size(), InvalidArgument, label(info), ": ", pads.size(), " pads for ", axes.size(),
           " axes");
  for (int64_t p : pads)
    VX_CHECK(std::abs(p) <= int64_t(INT32_MAX) / 4, InvalidArgument, label(info), ": pad ", p, " is too large");
  std::vector<int64_t> begin(size_t(rank), 0), dims = x.shape.dims();
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t a = size_t(axes[i]);
    begin[a] = pads[i];
    dims[a] = x.shape[a] + pads[i] + pads[i + axes.size()];
  }
  VX_CHECK(Shape(dims) == info.outputs.at(0).shape, InvalidArgument, label(info), ": pads give ", Shape(dims).str(),
           " but the graph says ", info.outputs.at(0).shape.str());
  return pad_plan(info, begin, mode_code, fill_bits(x.device, value));
}

OpPlan plan_tile(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const Shape& out = info.outputs.at(0).shape;
  VX_CHECK(out.rank() == x.shape.rank(), InvalidArgument, label(info), ": output rank differs from input rank");
  for (size_t d = 0; d < out.rank(); ++d)
    VX_CHECK((x.shape[d] == 0 && out[d] == 0) || (x.shape[d] > 0 && out[d] % x.shape[d] == 0), InvalidArgument,
             label(info), ": output ", out.str(), " is not a tiling of ", x.shape.str());
  OpPlan plan = pad_plan(info, std::vector<int64_t>(out.rank(), 0), out.numel() == 0 ? 0 : 3, 0);
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(pad, {"Pad", "", 0, plan_pad});
VX_REGISTER_VK_OP(tile, {"Tile", "", 0, plan_tile});

}  // namespace vx::vk

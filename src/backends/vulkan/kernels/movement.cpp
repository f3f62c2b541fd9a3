// Data-movement ops that are strided copies (shader strided_copy): Transpose, Slice, Concat, Split,
// Expand, DepthToSpace, SpaceToDepth. Split with up to 7 outputs writes them all in one dispatch
// (split). Any dtype (the copy moves storage elements as they are).
// Shapes come from the shape-bound graph. Slice with constant operands is a strided copy; with
// starts, axes or steps computed at run time a shader reads them (slice_dynamic).
#include <algorithm>
#include <limits>

#include "backends/vulkan/kernels/op_args.h"
#include "backends/vulkan/kernels/strided_copy.h"
#include "core/error.h"
#include "ops/shape_rules.h"
#include "ops/slice_geometry.h"

namespace vx::vk {
namespace {

void add(OpPlan& plan, std::optional<Dispatch> d) {
  if (d) plan.dispatches.push_back(std::move(*d));
}

OpPlan plan_transpose(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const int64_t rank = int64_t(x.shape.rank());
  const std::vector<int64_t> perm = transpose_perm(info.node.attrs.get_ints("perm"), size_t(rank));
  VX_CHECK(int64_t(perm.size()) == rank, InvalidArgument, label(info), ": perm has ", perm.size(),
           " entries for rank ", rank);
  std::vector<int64_t> in_strides = row_major_strides(x.shape.dims()), dims, strides;
  std::vector<bool> seen(size_t(rank), false);
  for (int64_t p : perm) {
    p = normalize_axis(info, p, rank);
    VX_CHECK(!seen[size_t(p)], InvalidArgument, label(info), ": perm repeats axis ", p);
    seen[size_t(p)] = true;
    dims.push_back(x.shape[size_t(p)]);
    strides.push_back(in_strides[size_t(p)]);
  }
  OpPlan plan;
  add(plan, copy_dispatch(info, dense_output_view(dims, strides), Binding::in(0), Binding::out(0), x.device));
  return plan;
}

bool is_constant(const OpInfo& info, size_t i) {
  return info.has_input(i) && info.inputs[i].constant != nullptr && info.inputs[i].constant->defined();
}

// Slice with starts, axes or steps computed at run time (shader slice_dynamic): the bound output
// shape gives the extents; the shader derives each axis' start and step from the operands.
OpPlan plan_dynamic_slice(const OpInfo& info) {
  constexpr int kMaxRank = 6;
  const OpTensor& x = info.inputs.at(0);
  const Shape& out = info.outputs.at(0).shape;
  const size_t rank = x.shape.rank();
  if (rank > size_t(kMaxRank)) decline(info, cat("starts computed at run time on a tensor of rank > ", kMaxRank));
  VX_CHECK(out.rank() == rank, InvalidArgument, label(info), ": output rank differs from the input's");
  const int64_t entries = info.inputs[1].shape.numel();
  VX_CHECK(entries <= int64_t(rank), InvalidArgument, label(info), ": ", entries, " starts for rank ", rank);
  for (size_t i : {size_t(1), size_t(3), size_t(4)})
    if (info.has_input(i) && (info.inputs[i].dtype == DType::f32 || info.inputs[i].dtype == DType::f16))
      decline(info, "slice operands are not integers");
  const int64_t count = out.numel();
  checked_count32(info, std::max(count, x.shape.numel()));
  OpPlan plan;
  if (count == 0) return plan;
  for (size_t d = 0; d < rank; ++d) VX_CHECK(x.shape[d] > 0, InvalidArgument, label(info), ": slicing an empty axis");
  struct {
    int32_t count, rank, entries, has_axes, has_steps;
    int32_t out_dims[kMaxRank];
    int32_t in_dims[kMaxRank];
  } push{};
  push.count = int32_t(count);
  push.rank = int32_t(rank);
  push.entries = int32_t(entries);
  push.has_axes = info.has_input(3) ? 1 : 0;
  push.has_steps = info.has_input(4) ? 1 : 0;
  for (size_t d = 0; d < rank; ++d) {
    push.out_dims[d] = int32_t(out[d]);
    push.in_dims[d] = int32_t(x.shape[d]);
  }
  // Constant operands among them are bound as themselves (the executor uploads them); absent ones
  // bind the starts in their place (never read).
  Dispatch d;
  d.shader = move_variant("slice_dynamic", x.device);
  d.bindings = {Binding::in(0), Binding::in(1), Binding::in(info.has_input(3) ? 3 : 1),
                Binding::in(info.has_input(4) ? 4 : 1), Binding::out(0)};
  d.set_push(push);
  d.groups = linear_groups(uint64_t(count));
  plan.dispatches.push_back(std::move(d));
  plan.variant = "dynamic";
  return plan;
}

OpPlan plan_slice(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  if (info.has_input(1) && (!is_constant(info, 1) || (info.has_input(3) && !is_constant(info, 3)) ||
                            (info.has_input(4) && !is_constant(info, 4))))
    return plan_dynamic_slice(info);
  SliceOperands o;
  if (info.opset >= 10 || info.has_input(1)) {  // operands are inputs
    VX_CHECK(info.has_input(1) && info.has_input(2), InvalidArgument, label(info), ": starts and ends are required");
    o.starts = *constant_ints(info, 1, "starts");
    o.ends = *constant_ints(info, 2, "ends");
    if (auto a = constant_ints(info, 3, "axes")) o.axes = *a;
    if (auto s = constant_ints(info, 4, "steps")) o.steps = *s;
  } else {  // opset 1: attributes
    o.starts = info.node.attrs.get_ints("starts");
    o.ends = info.node.attrs.get_ints("ends");
    o.axes = info.node.attrs.get_ints("axes");
  }
  const std::vector<SliceAxis> geometry = slice_geometry(x.shape.dims(), std::move(o), label(info));
  const std::vector<int64_t> in_strides = row_major_strides(x.shape.dims());
  std::vector<int64_t> dims(geometry.size()), strides(geometry.size());
  int64_t base = 0;
  for (size_t a = 0; a < geometry.size(); ++a) {
    dims[a] = geometry[a].count;
    // A step beyond the extent only ever takes one element: keep the stride small.
    strides[a] = in_strides[a] * (geometry[a].count > 1 ? geometry[a].step : 1);
    base += geometry[a].start * in_strides[a];
  }
  VX_CHECK(Shape(dims) == info.outputs.at(0).shape, InvalidArgument, label(info), ": slice gives ", Shape(dims).str(),
           " but the graph says ", info.outputs.at(0).shape.str());
  OpPlan plan;
  add(plan, copy_dispatch(info, dense_output_view(dims, strides, base), Binding::in(0), Binding::out(0), x.device));
  return plan;
}

OpPlan plan_concat(const OpInfo& info) {
  const OpTensor& y = info.outputs.at(0);
  const int64_t rank = int64_t(y.shape.rank());
  VX_CHECK(rank >= 1, InvalidArgument, label(info), ": cannot concatenate scalars");
  const size_t axis = size_t(normalize_axis(info, info.node.attrs.get_int("axis", 1), rank));
  const std::vector<int64_t> out_strides = row_major_strides(y.shape.dims());
  OpPlan plan;
  int64_t offset = 0;  // along the axis
  for (size_t i = 0; i < info.inputs.size(); ++i) {
    VX_CHECK(info.has_input(i), InvalidArgument, label(info), ": input ", i, " is omitted");
    const OpTensor& x = info.inputs[i];
    VX_CHECK(int64_t(x.shape.rank()) == rank, InvalidArgument, label(info), ": input ", i, " has rank ",
             x.shape.rank(), ", the output ", rank);
    for (size_t a = 0; a < size_t(rank); ++a)
      VX_CHECK(a == axis || x.shape[a] == y.shape[a], InvalidArgument, label(info), ": input ", i, " has shape ",
               x.shape.str(), ", the output ", y.shape.str());
    CopyView v = dense_output_view(x.shape.dims(), row_major_strides(x.shape.dims()));
    v.dst_strides = out_strides;
    v.dst_base = offset * out_strides[axis];
    add(plan, copy_dispatch(info, v, Binding::in(int(i)), Binding::out(0), y.device));
    offset += x.shape[axis];
  }
  VX_CHECK(offset == y.shape[axis], InvalidArgument, label(info), ": inputs sum to ", offset, " along axis ", axis,
           ", the output has ", y.shape[axis]);
  return plan;
}

// Split sizes come from the outputs' bound shapes (however the node gave them: equal parts, the
// `split` attribute or input, or num_outputs).
// Matches split.comp's push block.
struct SplitPush {
  int32_t count, axis, inner, outputs;
  int32_t off[8];
};
constexpr size_t kMaxSplitOutputs = 7;

// Every output of a Split in one split dispatch; nullopt when it does not apply (too many
// outputs, an empty input).
std::optional<Dispatch> one_split_dispatch(const OpInfo& info, size_t axis) {
  const OpTensor& x = info.inputs.at(0);
  if (info.outputs.size() > kMaxSplitOutputs || x.shape.numel() == 0) return std::nullopt;
  for (const OpTensor& y : info.outputs)
    if (y.shape.numel() == 0) return std::nullopt;  // empty outputs get no binding (the per-output copies)
  checked_count32(info, x.shape.numel());
  int64_t outer = 1, inner = 1, extent = x.shape[axis];
  for (size_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (size_t d = axis + 1; d < x.shape.rank(); ++d) inner *= x.shape[d];
  std::vector<int64_t> off = {0};
  for (size_t i = 0; i < info.outputs.size(); ++i) {
    const OpTensor& y = info.outputs[i];
    if (i >= info.node.outputs.size() || info.node.outputs[i] == kNoValue) decline(info, "an output is omitted");
    VX_CHECK(y.shape.rank() == x.shape.rank(), InvalidArgument, label(info), ": output ", i, " has rank ",
             y.shape.rank());
    for (size_t d = 0; d < x.shape.rank(); ++d)
      VX_CHECK(d == axis || y.shape[d] == x.shape[d], InvalidArgument, label(info), ": output ", i, " ",
               y.shape.str(), " does not match the input ", x.shape.str(), " off the split axis");
    off.push_back(off.back() + y.shape[axis]);
  }
  VX_CHECK(off.back() == extent, InvalidArgument, label(info), ": outputs sum to ", off.back(), " along axis ", axis,
           ", the input has ", extent);
  // Groups of 4: along the inner extent, or along the axis when it is the last and every range allows.
  bool vec4 = inner % 4 == 0;
  if (!vec4 && inner == 1) {
    vec4 = true;
    for (int64_t o : off) vec4 = vec4 && o % 4 == 0;
    if (vec4) {
      for (int64_t& o : off) o /= 4;
      extent /= 4;
    }
  } else if (vec4) {
    inner /= 4;
  }
  SplitPush push{};
  push.count = int32_t(outer * extent * inner);
  push.axis = int32_t(extent);
  push.inner = int32_t(inner);
  push.outputs = int32_t(info.outputs.size());
  for (size_t i = 0; i < off.size(); ++i) push.off[i] = int32_t(off[i]);
  Dispatch d;
  d.shader = move_variant("split", x.device, vec4 ? "vec4" : "");
  d.bindings = {Binding::in(0)};
  for (size_t i = 0; i < kMaxSplitOutputs; ++i) d.bindings.push_back(Binding::out(i < info.outputs.size() ? int(i) : 0));
  d.set_push(push);
  d.groups = linear_groups(uint64_t(push.count));
  return d;
}

OpPlan plan_split(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const int64_t rank = int64_t(x.shape.rank());
  const size_t axis = size_t(normalize_axis(info, info.node.attrs.get_int("axis", 0), rank));
  const std::vector<int64_t> in_strides = row_major_strides(x.shape.dims());
  OpPlan plan;
  if (std::optional<Dispatch> one = one_split_dispatch(info, axis)) {
    plan.dispatches.push_back(std::move(*one));
    plan.variant = plan.dispatches[0].shader.find("vec4") != std::string::npos ? "vec4" : "one_dispatch";
    return plan;
  }
  int64_t offset = 0;
  for (size_t i = 0; i < info.outputs.size(); ++i) {
    if (i >= info.node.outputs.size() || info.node.outputs[i] == kNoValue) decline(info, "an output is omitted");
    const OpTensor& y = info.outputs[i];
    VX_CHECK(int64_t(y.shape.rank()) == rank, InvalidArgument, label(info), ": output ", i, " has rank ",
             y.shape.rank());
    add(plan, copy_dispatch(info, dense_output_view(y.shape.dims(), in_strides, offset * in_strides[axis]),
                            Binding::in(0), Binding::out(int(i)), x.device));
    offset += y.shape[axis];
  }
  VX_CHECK(offset == x.shape[axis], InvalidArgument, label(info), ": outputs sum to ", offset, " along axis ", axis,
           ", the input has ", x.shape[axis]);
  return plan;
}

// Expand: the input right-aligned against the bound output shape, broadcast axes read with stride 0.
OpPlan plan_expand(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const Shape& out = info.outputs.at(0).shape;
  const std::vector<int64_t> strides = broadcast_strides(x.shape, out, label(info));
  OpPlan plan;
  add(plan, copy_dispatch(info, dense_output_view(out.dims(), strides), Binding::in(0), Binding::out(0), x.device));
  return plan;
}

void require_nchw(const OpInfo& info) {
  VX_CHECK(info.inputs.at(0).shape.rank() == 4, InvalidArgument, label(info), ": expects NCHW input, got ",
           info.inputs.at(0).shape.str());
}

OpPlan plan_depth_to_space(const OpInfo& info) {
  require_nchw(info);
  const OpTensor& x = info.inputs[0];
  const int64_t b = info.node.attrs.get_int("blocksize", 0);
  const std::string mode = info.node.attrs.get_string("mode", "DCR");
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  VX_CHECK(b > 0 && c % (b * b) == 0, InvalidArgument, label(info), ": channels ", c,
           " not divisible by blocksize^2 (blocksize ", b, ")");
  if (mode != "DCR" && mode != "CRD") decline(info, cat("unknown mode '", mode, "'"));
  const int64_t oc = c / (b * b), hw = h * w;
  // Output seen as (n, oc, h, bh, w, bw). DCR reads channel (bh*b + bw)*oc + oc_i, CRD oc_i*b*b + bh*b + bw.
  const bool dcr = mode == "DCR";
  std::vector<int64_t> view = {n, oc, h, b, w, b};
  std::vector<int64_t> strides = {c * hw, dcr ? hw : b * b * hw, w, dcr ? b * oc * hw : b * hw, 1, dcr ? oc * hw : hw};
  OpPlan plan;
  add(plan, copy_dispatch(info, dense_output_view(view, strides), Binding::in(0), Binding::out(0), x.device));
  return plan;
}

OpPlan plan_space_to_depth(const OpInfo& info) {
  require_nchw(info);
  const OpTensor& x = info.inputs[0];
  const int64_t b = info.node.attrs.get_int("blocksize", 0);
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  VX_CHECK(b > 0 && h % b == 0 && w % b == 0, InvalidArgument, label(info), ": spatial extents ", x.shape.str(),
           " not divisible by blocksize ", b);
  // Output seen as (n, bh, bw, c, oh, ow) reads input (n, c, oh*b + bh, ow*b + bw).
  std::vector<int64_t> view = {n, b, b, c, h / b, w / b};
  std::vector<int64_t> strides = {c * h * w, w, 1, h * w, b * w, b};
  OpPlan plan;
  add(plan, copy_dispatch(info, dense_output_view(view, strides), Binding::in(0), Binding::out(0), x.device));
  return plan;
}

// The profile's variant: "vec4" when every copy moves groups of 4 (strided_copy.cpp).
OpFactory naming_vec4(OpPlan (*plan)(const OpInfo&)) {
  return [plan](const OpInfo& info) {
    OpPlan p = plan(info);
    bool all = !p.dispatches.empty();
    for (const Dispatch& d : p.dispatches) all = all && d.shader.find("vec4") != std::string::npos;
    if (all && p.variant == "generic") p.variant = "vec4";
    return p;
  };
}

}  // namespace

VX_REGISTER_VK_OP(transpose, {"Transpose", "", 0, naming_vec4(plan_transpose)});
VX_REGISTER_VK_OP(slice, {"Slice", "", 0, plan_slice});
VX_REGISTER_VK_OP(concat, {"Concat", "", 0, naming_vec4(plan_concat)});
VX_REGISTER_VK_OP(split, {"Split", "", 0, naming_vec4(plan_split)});
VX_REGISTER_VK_OP(expand, {"Expand", "", 0, plan_expand});
VX_REGISTER_VK_OP(depth_to_space, {"DepthToSpace", "", 0, plan_depth_to_space});
VX_REGISTER_VK_OP(space_to_depth, {"SpaceToDepth", "", 0, plan_space_to_depth});

}  // namespace vx::vk

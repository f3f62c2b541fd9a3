// Normalisations with fp32 statistics:
//   BatchNormalization (inference only; training mode is declined): per element; constant
//     parameters are folded at plan time into y = x * k[c] + t[c] (shaders/batch_norm.comp).
//   InstanceNormalization and LayerNormalization (axis, epsilon; the Mean and InvStdDev outputs
//     too): one workgroup per normalised row with two-pass mean / variance reductions
//     (shaders/row_stats.comp). LayerNormalization's Scale and B broadcast onto the normalised axes:
//     constants are expanded at plan time; a non-constant one must have the full normalised shape.
//   LRN: per element, the sum of squares over neighbouring channels (shaders/lrn.comp).
#include <cmath>

#include "backends/vulkan/kernels/op_args.h"
#include "backends/vulkan/kernels/row_stats_push.h"

namespace vx::vk {
namespace {

int add_values(OpPlan& plan, const std::vector<float>& v, DeviceType storage) {
  plan.constants.push_back(pack(v, storage));
  return int(plan.constants.size() - 1);
}

OpPlan plan_batch_norm(const OpInfo& info) {
  const DeviceType storage = float_storage(info, 0);
  const Attributes& attrs = info.node.attrs;
  if (attrs.get_int("training_mode", 0) != 0 || (info.opset < 14 && info.outputs.size() > 1))
    decline(info, "training mode is not supported on the GPU");
  const Shape& xs = info.inputs[0].shape;
  if (xs.rank() < 2) decline(info, "input ", xs.str(), " has no channel axis");
  const int64_t channels = xs[1], inner = xs.numel() / std::max<int64_t>(xs[0] * channels, 1);
  for (size_t i = 1; i <= 4; ++i) {
    float_storage(info, i);
    if (info.inputs[i].shape.numel() != channels) decline(info, "parameter ", i, " has ", info.inputs[i].shape.numel(), " values for ", channels, " channels");
  }
  const float eps = attrs.get_float("epsilon", 1e-5f);
  OpPlan plan;
  Dispatch d;
  d.shader = shader_variant("batch_norm", {storage});
  const bool folded = info.inputs[1].constant && info.inputs[2].constant && info.inputs[3].constant && info.inputs[4].constant;
  if (folded) {
    const std::vector<float> s = constant_values(*info.inputs[1].constant), b = constant_values(*info.inputs[2].constant),
                             m = constant_values(*info.inputs[3].constant), v = constant_values(*info.inputs[4].constant);
    std::vector<float> k(static_cast<size_t>(channels)), t(static_cast<size_t>(channels));
    for (size_t c = 0; c < size_t(channels); ++c) {
      const double kc = double(s[c]) / std::sqrt(double(v[c]) + double(eps));
      k[c] = float(kc);
      t[c] = float(double(b[c]) - double(m[c]) * kc);
    }
    const Binding kb = Binding::constant_blob(add_values(plan, k, storage)), tb = Binding::constant_blob(add_values(plan, t, storage));
    d.bindings = {Binding::in(0), kb, tb, kb, kb, Binding::out(0)};
  } else {
    d.bindings = {Binding::in(0), Binding::in(1), Binding::in(2), Binding::in(3), Binding::in(4), Binding::out(0)};
  }
  d.spec_constants = {folded ? 1 : 0};
  checked_count32(info, xs.numel(), "X");
  struct {
    int32_t total, inner, channels;
    float eps;
  } push{int32_t(xs.numel()), int32_t(inner), int32_t(channels), eps};
  d.set_push(push);
  d.groups = element_groups(info, xs.numel());
  plan.dispatches.push_back(std::move(d));
  plan.variant = folded ? "folded" : "direct";
  return plan;
}

OpPlan plan_instance_norm(const OpInfo& info) {
  const DeviceType storage = float_storage(info, 0);
  const Shape& xs = info.inputs[0].shape;
  if (xs.rank() < 3) decline(info, "expects N x C x D1..., got ", xs.str());
  const int64_t channels = xs[1], rows = xs[0] * channels, cols = xs.numel() / std::max<int64_t>(rows, 1);
  checked_count32(info, xs.numel(), "X");
  OpPlan plan;
  Binding param[2];
  for (int i = 0; i < 2; ++i) {
    float_storage(info, size_t(i + 1));
    const OpTensor& t = info.inputs[size_t(i + 1)];
    if (t.shape.numel() != channels) decline(info, "parameter ", i + 1, " has ", t.shape.numel(), " values for ", channels, " channels");
    param[i] = t.constant ? Binding::constant_blob(add_values(plan, constant_values(*t.constant), storage)) : Binding::in(i + 1);
  }
  Dispatch d;
  d.shader = shader_variant("row_stats", {storage});
  d.spec_constants = {0, 2, 1};
  d.bindings = {Binding::in(0), param[0], param[1], Binding::out(0), Binding::out(0), Binding::out(0)};
  d.set_push(RowStatsPush{int32_t(rows), int32_t(cols), int32_t(channels), info.node.attrs.get_float("epsilon", 1e-5f), 3});
  d.groups = linear_groups(uint64_t(rows), 1);
  plan.dispatches.push_back(std::move(d));
  plan.variant = "reduce";
  return plan;
}

OpPlan plan_layer_norm(const OpInfo& info) {
  const DeviceType storage = float_storage(info, 0);
  const Shape& xs = info.inputs[0].shape;
  const int64_t rank = int64_t(xs.rank());
  int64_t axis = info.node.attrs.get_int("axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) decline(info, "axis ", info.node.attrs.get_int("axis", -1), " for rank ", rank);
  int64_t rows = 1, cols = 1;
  for (int64_t i = 0; i < rank; ++i) (i < axis ? rows : cols) *= xs[size_t(i)];
  checked_count32(info, xs.numel(), "X");
  const Shape normalized(std::vector<int64_t>(xs.begin() + axis, xs.end()));
  OpPlan plan;
  int flags = 0;
  Binding param[2] = {Binding::in(0), Binding::in(0)};
  for (int i = 0; i < 2; ++i) {
    if (!info.has_input(size_t(i + 1))) continue;
    float_storage(info, size_t(i + 1));
    const OpTensor& t = info.inputs[size_t(i + 1)];
    if (t.constant) {
      // Broadcast (unidirectionally, right-aligned) onto the normalised shape.
      const std::vector<float> src = constant_values(*t.constant);
      const Shape& ps = t.shape;
      if (ps.rank() > normalized.rank()) decline(info, "parameter ", ps.str(), " does not broadcast to ", normalized.str());
      std::vector<int64_t> strides(normalized.rank(), 0);
      int64_t stride = 1;
      for (size_t d = ps.rank(); d-- > 0;) {
        const size_t nd = d + normalized.rank() - ps.rank();
        if (ps[d] != 1 && ps[d] != normalized[nd]) decline(info, "parameter ", ps.str(), " does not broadcast to ", normalized.str());
        strides[nd] = ps[d] == 1 ? 0 : stride;
        stride *= ps[d];
      }
      std::vector<float> v(static_cast<size_t>(cols));
      for (int64_t c = 0; c < cols; ++c) {
        int64_t rest = c, at = 0;
        for (size_t d = normalized.rank(); d-- > 0;) {
          at += (rest % normalized[d]) * strides[d];
          rest /= normalized[d];
        }
        v[size_t(c)] = src[size_t(at)];
      }
      param[i] = Binding::constant_blob(add_values(plan, v, storage));
    } else {
      if (t.shape.numel() != cols) decline(info, "a non-constant parameter ", t.shape.str(), " must cover ", normalized.str());
      param[i] = Binding::in(i + 1);
    }
    flags |= 1 << i;
  }
  Binding mean = Binding::out(0), inv = Binding::out(0);
  if (info.outputs.size() > 1) {
    if (info.outputs.size() < 3) decline(info, "Mean without InvStdDev");  // both are written together
    std::vector<int64_t> stats = xs.dims();
    for (size_t a = size_t(axis); a < stats.size(); ++a) stats[a] = 1;
    for (size_t i = 1; i < 3; ++i) {
      if (info.outputs[i].device != storage) decline(info, "statistics output ", i, " of another storage type");
      if (info.outputs[i].shape != Shape(stats))
        decline(info, "statistics output ", i, " planned as ", info.outputs[i].shape.str(), ", not ", Shape(stats).str());
    }
    mean = Binding::out(1);
    inv = Binding::out(2);
    flags |= 4;
  }
  Dispatch d;
  d.shader = shader_variant("row_stats", {storage});
  d.spec_constants = {0, 2, 0};
  d.bindings = {Binding::in(0), param[0], param[1], Binding::out(0), mean, inv};
  d.set_push(RowStatsPush{int32_t(rows), int32_t(cols), 0, info.node.attrs.get_float("epsilon", 1e-5f), flags});
  d.groups = linear_groups(uint64_t(rows), 1);
  plan.dispatches.push_back(std::move(d));
  plan.variant = "reduce";
  return plan;
}

OpPlan plan_lrn(const OpInfo& info) {
  const DeviceType storage = float_storage(info, 0);
  const Attributes& attrs = info.node.attrs;
  const Shape& xs = info.inputs[0].shape;
  if (xs.rank() < 3) decline(info, "expects N x C x D1..., got ", xs.str());
  const int64_t size = attrs.get_int("size", 0);
  if (size < 1) decline(info, "size must be >= 1");
  checked_count32(info, xs.numel(), "X");
  const int64_t spatial = xs.numel() / std::max<int64_t>(xs[0] * xs[1], 1);
  OpPlan plan;
  Dispatch d;
  d.shader = shader_variant("lrn", {storage});
  d.bindings = {Binding::in(0), Binding::out(0)};
  struct {
    int32_t total, channels, spatial, size;
    float alpha, beta, bias;
  } push{int32_t(xs.numel()), int32_t(xs[1]), int32_t(spatial), int32_t(size), attrs.get_float("alpha", 1e-4f),
         attrs.get_float("beta", 0.75f), attrs.get_float("bias", 1.0f)};
  d.set_push(push);
  d.groups = element_groups(info, xs.numel());
  plan.dispatches.push_back(std::move(d));
  plan.variant = "direct";
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(lrn, {"LRN", "", 0, plan_lrn});
VX_REGISTER_VK_OP(batch_norm, {"BatchNormalization", "", 0, plan_batch_norm});
VX_REGISTER_VK_OP(instance_norm, {"InstanceNormalization", "", 0, plan_instance_norm});
VX_REGISTER_VK_OP(layer_norm, {"LayerNormalization", "", 0, plan_layer_norm});

}  // namespace vx::vk

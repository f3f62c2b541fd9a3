// MaxPool (kernel, strides, pads, auto_pad, dilations, ceil_mode, the Indices output with
// storage_order),
// AveragePool (count_include_pad, ceil_mode), LpPool: one output element per invocation
// (shaders/pool.comp). GlobalAveragePool, GlobalMaxPool, GlobalLpPool: one workgroup reduction
// per (n, c) plane (shaders/row_stats.comp).
#include "backends/vulkan/kernels/pool.h"
#include "backends/vulkan/kernels/row_stats_push.h"

namespace vx::vk {

void add_pool_dispatch(OpPlan& plan, const OpInfo& info, Binding x, Binding y, const Window3& w, int64_t planes,
                       PoolMode mode, bool count_include_pad, int p, DeviceType storage, const Binding* indices,
                       int storage_order) {
  const int64_t total = planes * w.out_size();
  checked_count32(info, planes * w.in_size(), "X");
  Dispatch d;
  d.shader = shader_variant("pool", {storage});
  d.spec_constants = {int32_t(mode), count_include_pad ? 1 : 0, p};
  const std::vector<int32_t> ws = w.spec_constants();
  d.spec_constants.insert(d.spec_constants.end(), ws.begin(), ws.end());
  d.spec_constants.insert(d.spec_constants.end(), w.pad_end.begin(), w.pad_end.end());
  d.spec_constants.push_back(indices ? 1 : 0);
  d.spec_constants.push_back(storage_order);
  d.bindings = {x, y, indices ? *indices : y};
  struct {
    int32_t total;
  } push{int32_t(total)};
  d.set_push(push);
  d.groups = element_groups(info, total);
  plan.dispatches.push_back(std::move(d));
}

void add_global_pool_dispatch(OpPlan& plan, Binding x, Binding y, int64_t rows, int64_t cols, int mode, int p,
                              DeviceType storage) {
  Dispatch d;
  d.shader = shader_variant("row_stats", {storage});
  d.spec_constants = {mode, p, 0};
  d.bindings = {x, x, x, y, y, y};
  d.set_push(RowStatsPush{int32_t(rows), int32_t(cols), 0, 0.0f, 0});
  d.groups = linear_groups(uint64_t(rows), 1);
  plan.dispatches.push_back(std::move(d));
}

namespace {

OpPlan plan_pool(const OpInfo& info, PoolMode mode) {
  const DeviceType storage = float_storage(info, 0);
  const Attributes& attrs = info.node.attrs;
  const Shape& xs = info.inputs[0].shape;
  if (xs.rank() < 3 || xs.rank() > 5) decline(info, "input ", xs.str(), " must be N, C and 1 to 3 spatial axes");
  const bool with_indices = info.node.outputs.size() > 1 && info.node.outputs[1] != kNoValue;
  const int64_t storage_order = attrs.get_int("storage_order", 0);
  if (with_indices) {
    if (mode != PoolMode::max) decline(info, "a second output");
    if (storage_order != 0 && storage_order != 1) decline(info, "storage_order ", storage_order);
    if (info.outputs[1].device != DeviceType::i32 || info.outputs[1].shape != info.outputs[0].shape)
      decline(info, "Indices planned as ", info.outputs[1].shape.str(), " of another type or shape than Y");
  }
  const std::vector<int64_t> in(xs.begin() + 2, xs.end());
  if (attrs.get_ints("kernel_shape").size() != in.size()) decline(info, "kernel_shape must have one entry per spatial axis");
  const bool ceil_mode = attrs.get_int("ceil_mode", 0) != 0;
  WindowGeometry g;
  try {
    g = window_geometry(attrs, in, {}, ceil_mode, label(info));
  } catch (const Error& e) {
    decline(info, e.what());
  }
  std::vector<int64_t> expected = {xs[0], xs[1]};
  expected.insert(expected.end(), g.output.begin(), g.output.end());
  if (Shape(expected) != info.outputs[0].shape)
    decline(info, "planned output ", info.outputs[0].shape.str(), " differs from the attributes' ", Shape(expected).str());
  int p = 0;
  if (mode == PoolMode::lp) {
    const int64_t power = attrs.get_int("p", 2);
    if (power < 1 || power > 64) decline(info, "p = ", power);
    p = int(power);
  }
  OpPlan plan;
  const Binding indices = Binding::out(1);
  add_pool_dispatch(plan, info, Binding::in(0), Binding::out(0), window3(g, in), xs[0] * xs[1], mode,
                    attrs.get_int("count_include_pad", 0) != 0, p, storage, with_indices ? &indices : nullptr,
                    int(storage_order));
  plan.variant = "direct";
  return plan;
}

// row_stats MODE 1 mean, 2 max, 3 Lp.
OpPlan plan_global_pool(const OpInfo& info, int mode) {
  const DeviceType storage = float_storage(info, 0);
  const Shape& xs = info.inputs[0].shape;
  if (xs.rank() < 3) decline(info, "input ", xs.str(), " has no spatial axes");
  const int64_t rows = xs[0] * xs[1], cols = xs.numel() / std::max<int64_t>(rows, 1);
  checked_count32(info, xs.numel(), "X");
  int p = 2;
  if (mode == 3) {
    const int64_t power = info.node.attrs.get_int("p", 2);
    if (power < 1 || power > 64) decline(info, "p = ", power);
    p = int(power);
  }
  OpPlan plan;
  add_global_pool_dispatch(plan, Binding::in(0), Binding::out(0), rows, cols, mode, p, storage);
  plan.variant = "reduce";
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(max_pool, {"MaxPool", "", 0, [](const OpInfo& i) { return plan_pool(i, PoolMode::max); }});
VX_REGISTER_VK_OP(average_pool, {"AveragePool", "", 0, [](const OpInfo& i) { return plan_pool(i, PoolMode::average); }});
VX_REGISTER_VK_OP(lp_pool, {"LpPool", "", 0, [](const OpInfo& i) { return plan_pool(i, PoolMode::lp); }});
VX_REGISTER_VK_OP(global_average_pool, {"GlobalAveragePool", "", 0, [](const OpInfo& i) { return plan_global_pool(i, 1); }});
VX_REGISTER_VK_OP(global_max_pool, {"GlobalMaxPool", "", 0, [](const OpInfo& i) { return plan_global_pool(i, 2); }});
VX_REGISTER_VK_OP(global_lp_pool, {"GlobalLpPool", "", 0, [](const OpInfo& i) { return plan_global_pool(i, 3); }});

}  // namespace vx::vk

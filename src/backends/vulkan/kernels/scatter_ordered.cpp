// ScatterElements / Scatter and ScatterND in ONNX's sequential update order, for every reduction
// (none / add / mul / max / min): the data is copied first, then each invocation applies, in
// order, all the updates that can reach its output elements (one line along the axis, or one
// element of the slices), so repeated indices combine without atomics (scatter_*_ordered.comp).
// Registered below the movement family's scatters (priority -1): used where those decline
// (reductions, which they would need atomics for). Indices int32 on the device; every data type.
// Indices out of range fail the run with the CPU kernels' error (Binding::status()).
#include "backends/vulkan/kernels/op_args.h"

namespace vx::vk {
namespace {

constexpr int kRank = 6;

struct ScatterElementsPush {
  uint32_t count = 0;
  int32_t phase = 0, reduction = 0, axis = 0, data_extent = 0, index_extent = 0;
  int32_t index_dims[kRank]{}, index_strides[kRank]{}, data_strides[kRank]{};
};
static_assert(sizeof(ScatterElementsPush) <= kOpPushConstantBytes);
struct ScatterNDPush {
  uint32_t count = 0;
  int32_t phase = 0, reduction = 0, k = 0, tuples = 0, slice = 0;
  int32_t dims[kRank]{}, strides[kRank]{};
};

std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.rank(), 1);
  for (size_t d = s.rank(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

int32_t reduction_code(const OpInfo& info) {
  const std::string r = info.node.attrs.get_string("reduction", "none");
  if (r == "none") return 0;
  if (r == "add") return 1;
  if (r == "mul") return 2;
  if (r == "max") return 3;
  if (r == "min") return 4;
  fail(ErrorCode::InvalidArgument, cat(label(info), ": unknown reduction '", r, "'"));
}

// Phase 0 (copy data -> output) and phase 1 (the updates) of one scatter shader.
template <class Push>
OpPlan scatter_plan(const std::string& shader, Push push, uint32_t data_count, uint32_t update_count) {
  const std::vector<Binding> bindings = {Binding::in(0), Binding::in(1), Binding::in(2), Binding::out(0),
                                         Binding::status()};
  OpPlan plan;
  Push copy = push;
  copy.phase = 0;
  copy.count = data_count;
  plan.dispatches.push_back(make_dispatch(shader, bindings, copy, data_count));
  push.phase = 1;
  push.count = update_count;
  plan.dispatches.push_back(make_dispatch(shader, bindings, push, update_count));
  return plan;
}

OpPlan plan_ordered_scatter_elements(const OpInfo& info) {
  require_inputs(info, 3);
  const OpTensor &x = info.inputs[0], &idx = info.inputs[1], &upd = info.inputs[2];
  const int64_t rank = int64_t(x.shape.rank());
  VX_CHECK(rank >= 1 && rank <= kRank, Unsupported, label(info), ": rank ", rank, " (1 to ", kRank, ")");
  VX_CHECK(idx.shape == upd.shape && idx.shape.rank() == x.shape.rank() && upd.device == x.device &&
               idx.device == DeviceType::i32,
           InvalidArgument, label(info), ": indices ", idx.shape.str(), " and updates ", upd.shape.str(),
           " must match in shape, with the data's rank and type");
  for (size_t d = 0; d < size_t(rank); ++d)
    VX_CHECK(idx.shape[d] <= x.shape[d], InvalidArgument, label(info), ": indices exceed the data shape");
  const int64_t axis = normalize_axis(info, info.node.attrs.get_int("axis", 0), rank);
  ScatterElementsPush push;
  push.reduction = reduction_code(info);
  const int pad = kRank - int(rank);
  push.axis = int32_t(axis) + pad;
  push.data_extent = int32_t(x.shape[size_t(axis)]);
  push.index_extent = int32_t(idx.shape[size_t(axis)]);
  const std::vector<int64_t> is = strides_of(idx.shape), xs = strides_of(x.shape);
  for (int d = 0; d < kRank; ++d) {
    const bool real = d >= pad;
    push.index_dims[d] = real ? int32_t(idx.shape[size_t(d - pad)]) : 1;
    push.index_strides[d] = real ? int32_t(is[size_t(d - pad)]) : 0;
    push.data_strides[d] = real ? int32_t(xs[size_t(d - pad)]) : 0;
  }
  const int64_t lines = push.index_extent ? idx.shape.numel() / push.index_extent : 0;
  return scatter_plan(shader_variant("scatter_elements_ordered", {x.device}), push, checked_count32(info, x.shape.numel()),
                      checked_count32(info, lines));
}

OpPlan plan_ordered_scatter_nd(const OpInfo& info) {
  require_inputs(info, 3);
  const OpTensor &x = info.inputs[0], &idx = info.inputs[1], &upd = info.inputs[2];
  const size_t q = idx.shape.rank();
  VX_CHECK(q >= 1 && upd.device == x.device && idx.device == DeviceType::i32, InvalidArgument, label(info),
           ": bad indices or updates");
  const int64_t k = idx.shape[q - 1];
  VX_CHECK(k >= 1 && k <= int64_t(x.shape.rank()) && k <= kRank, InvalidArgument, label(info),
           ": index tuples of length ", k, " for data of rank ", x.shape.rank());
  std::vector<int64_t> expected(idx.shape.dims().begin(), idx.shape.dims().end() - 1);
  expected.insert(expected.end(), x.shape.dims().begin() + k, x.shape.dims().end());
  VX_CHECK(upd.shape == Shape(expected), InvalidArgument, label(info), ": updates shape ", upd.shape.str(),
           ", expected ", Shape(expected).str());
  ScatterNDPush push;
  push.reduction = reduction_code(info);
  push.k = int32_t(k);
  push.tuples = int32_t(product(idx.shape, 0, q - 1));
  push.slice = int32_t(product(x.shape, size_t(k), x.shape.rank()));
  const std::vector<int64_t> xs = strides_of(x.shape);
  for (int64_t j = 0; j < k; ++j) {
    push.dims[j] = int32_t(x.shape[size_t(j)]);
    push.strides[j] = int32_t(xs[size_t(j)]);
  }
  checked_count32(info, upd.shape.numel());
  return scatter_plan(shader_variant("scatter_nd_ordered", {x.device}), push, checked_count32(info, x.shape.numel()),
                      uint32_t(push.slice));
}

}  // namespace

VX_REGISTER_VK_OP(ordered_scatter_elements, {"ScatterElements", "", -1, plan_ordered_scatter_elements});
VX_REGISTER_VK_OP(ordered_scatter, {"Scatter", "", -1, plan_ordered_scatter_elements});
VX_REGISTER_VK_OP(ordered_scatter_nd, {"ScatterND", "", -1, plan_ordered_scatter_nd});

}  // namespace vx::vk

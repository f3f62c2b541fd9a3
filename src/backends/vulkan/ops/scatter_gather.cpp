// Index-driven scatters and gathers on Vulkan that the layout family does not cover:
// ScatterElements / Scatter (with reduction none / add / mul / max / min), ScatterND (same
// reductions) and GatherND (batch_dims). Indices are int32 on the device; data of every storage
// type. Scatters copy the data first, then apply the updates in ONNX's sequential order with
// invocations that never share an output element (see sg_scatter_*.comp).
#include "backends/vulkan/ops/more_ops_util.h"

namespace vx::vk {
namespace {

using namespace more;

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
struct GatherNDPush {
  uint32_t count = 0;
  int32_t k = 0, slice = 1, tuples_per_batch = 1, batch_stride = 0;
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
  fail(ErrorCode::InvalidArgument, cat(node_label(info), ": unknown reduction '", r, "'"));
}

// Phase 0 (copy data -> output) and phase 1 (the updates) of one scatter shader.
template <class Push>
OpPlan scatter_plan(const std::string& shader, Push push, uint32_t data_count, uint32_t update_count) {
  const std::vector<Binding> bindings = {Binding::in(0), Binding::in(1), Binding::in(2), Binding::out(0)};
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

OpPlan plan_scatter_elements(const OpInfo& info) {
  require_inputs(info, 3);
  const OpTensor &x = info.inputs[0], &idx = info.inputs[1], &upd = info.inputs[2];
  const int64_t rank = int64_t(x.shape.rank());
  VX_CHECK(rank >= 1 && rank <= kRank, Unsupported, node_label(info), ": rank ", rank, " (1 to ", kRank, ")");
  VX_CHECK(idx.shape == upd.shape && idx.shape.rank() == x.shape.rank() && upd.device == x.device &&
               idx.device == DeviceType::i32,
           InvalidArgument, node_label(info), ": indices ", idx.shape.str(), " and updates ", upd.shape.str(),
           " must match in shape, with the data's rank and type");
  for (size_t d = 0; d < size_t(rank); ++d)
    VX_CHECK(idx.shape[d] <= x.shape[d], InvalidArgument, node_label(info), ": indices exceed the data shape");
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
  return scatter_plan(cat("sg_scatter_elements.", letter(x.device)), push, count32(info, x.shape.numel()),
                      count32(info, lines));
}

OpPlan plan_scatter_nd(const OpInfo& info) {
  require_inputs(info, 3);
  const OpTensor &x = info.inputs[0], &idx = info.inputs[1], &upd = info.inputs[2];
  const size_t q = idx.shape.rank();
  VX_CHECK(q >= 1 && upd.device == x.device && idx.device == DeviceType::i32, InvalidArgument, node_label(info),
           ": bad indices or updates");
  const int64_t k = idx.shape[q - 1];
  VX_CHECK(k >= 1 && k <= int64_t(x.shape.rank()) && k <= kRank, InvalidArgument, node_label(info),
           ": index tuples of length ", k, " for data of rank ", x.shape.rank());
  std::vector<int64_t> expected(idx.shape.dims().begin(), idx.shape.dims().end() - 1);
  expected.insert(expected.end(), x.shape.dims().begin() + k, x.shape.dims().end());
  VX_CHECK(upd.shape == Shape(expected), InvalidArgument, node_label(info), ": updates shape ", upd.shape.str(),
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
  count32(info, upd.shape.numel());
  return scatter_plan(cat("sg_scatter_nd.", letter(x.device)), push, count32(info, x.shape.numel()),
                      uint32_t(push.slice));
}

OpPlan plan_gather_nd(const OpInfo& info) {
  require_inputs(info, 2);
  const OpTensor &x = info.inputs[0], &idx = info.inputs[1];
  const OpTensor& y = info.outputs[0];
  const int64_t batch = info.node.attrs.get_int("batch_dims", 0);
  const int64_t r = int64_t(x.shape.rank()), q = int64_t(idx.shape.rank());
  VX_CHECK(q >= 1 && batch >= 0 && batch < std::min(r, q) && idx.device == DeviceType::i32, InvalidArgument,
           node_label(info), ": bad batch_dims ", batch, " for ranks ", r, " and ", q);
  const int64_t k = idx.shape[size_t(q - 1)];
  VX_CHECK(k >= 1 && batch + k <= r && k <= kRank, InvalidArgument, node_label(info), ": index tuples of length ", k,
           " do not fit data of rank ", r);
  for (int64_t b = 0; b < batch; ++b)
    VX_CHECK(x.shape[size_t(b)] == idx.shape[size_t(b)], InvalidArgument, node_label(info), ": batch extents differ");
  GatherNDPush push;
  push.count = count32(info, y.shape.numel());
  count32(info, x.shape.numel());
  push.k = int32_t(k);
  push.slice = int32_t(std::max<int64_t>(product(x.shape, size_t(batch + k), size_t(r)), 1));
  push.tuples_per_batch = int32_t(std::max<int64_t>(product(idx.shape, size_t(batch), size_t(q - 1)), 1));
  const std::vector<int64_t> xs = strides_of(x.shape);
  push.batch_stride = batch > 0 ? int32_t(xs[size_t(batch - 1)]) : 0;
  for (int64_t j = 0; j < k; ++j) {
    push.dims[j] = int32_t(x.shape[size_t(batch + j)]);
    push.strides[j] = int32_t(xs[size_t(batch + j)]);
  }
  OpPlan plan;
  plan.dispatches.push_back(make_dispatch(cat("sg_gather_nd.", letter(x.device)),
                                          {Binding::in(0), Binding::in(1), Binding::out(0)}, push, push.count));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(scatter_elements, {"ScatterElements", "", 0, plan_scatter_elements});
VX_REGISTER_VK_OP(scatter, {"Scatter", "", 0, plan_scatter_elements});
VX_REGISTER_VK_OP(scatter_nd, {"ScatterND", "", 0, plan_scatter_nd});
VX_REGISTER_VK_OP(gather_nd, {"GatherND", "", 0, plan_gather_nd});

}  // namespace vx::vk

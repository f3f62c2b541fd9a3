// ScatterElements (and the old Scatter) and ScatterND with reduction "none": the data is copied to
// the output (strided_copy.comp), then each update is written where its indices point
// (scatter_elements.comp, scatter_nd.comp).
// Reductions (add, mul, max, min) are declined: they need atomics on floats. Duplicate indices:
// ONNX leaves the result undefined; on the GPU one of the updates wins. Constant indices are
// range-checked when planning; run-time ones out of range fail the run (Binding::status()).
#include <algorithm>

#include "backends/vulkan/kernels/op_args.h"
#include "backends/vulkan/kernels/strided_copy.h"
#include "core/error.h"

namespace vx::vk {
namespace {

void require_no_reduction(const OpInfo& info) {
  const std::string r = info.node.attrs.get_string("reduction", "none");
  if (r != "none") decline(info, cat("reduction '", r, "' (needs atomics)"));
}

// Copies the data (input 0) into the output: the updates then overwrite their elements.
void copy_data(const OpInfo& info, OpPlan& plan) {
  const OpTensor& x = info.inputs.at(0);
  VX_CHECK(info.outputs.at(0).shape == x.shape, InvalidArgument, label(info), ": output shape differs from the data");
  if (auto d = copy_dispatch(info, dense_output_view(x.shape.dims(), row_major_strides(x.shape.dims())), Binding::in(0),
                             Binding::out(0), x.device))
    plan.dispatches.push_back(std::move(*d));
}

OpPlan plan_scatter_elements(const OpInfo& info) {
  require_no_reduction(info);
  const OpTensor& x = info.inputs.at(0);
  const OpTensor& idx = info.inputs.at(1);
  const OpTensor& upd = info.inputs.at(2);
  const int64_t rank = int64_t(x.shape.rank());
  const size_t axis = size_t(normalize_axis(info, info.node.attrs.get_int("axis", 0), rank));
  VX_CHECK(idx.shape == upd.shape && int64_t(idx.shape.rank()) == rank, InvalidArgument, label(info), ": indices ",
           idx.shape.str(), " and updates ", upd.shape.str(), " must match in shape, with the data's rank");
  for (size_t d = 0; d < size_t(rank); ++d)
    VX_CHECK(d == axis || idx.shape[d] <= x.shape[d], InvalidArgument, label(info), ": indices exceed the data shape");
  if (rank > kMaxRank) decline(info, cat("rank ", rank, " exceeds ", kMaxRank));
  const int64_t count = idx.shape.numel(), extent = x.shape[axis];
  checked_count32(info, std::max(count, x.shape.numel()));
  OpPlan plan;
  copy_data(info, plan);
  if (count == 0) return plan;
  VX_CHECK(extent > 0, InvalidArgument, label(info), ": scattering into an empty axis");
  Binding indices = index_tensor_binding(info, plan, 1, [extent](size_t) { return extent; });
  struct {
    int32_t count, rank, axis, extent;
    int32_t dims[kMaxRank];
    int32_t out_strides[kMaxRank];
  } push{};
  push.count = int32_t(count);
  push.rank = int32_t(rank);
  push.axis = int32_t(axis);
  push.extent = int32_t(extent);
  const std::vector<int64_t> strides = row_major_strides(x.shape.dims());
  for (size_t d = 0; d < size_t(rank); ++d) {
    push.dims[d] = int32_t(idx.shape[d]);
    push.out_strides[d] = int32_t(strides[d]);
  }
  Dispatch d;
  d.shader = move_variant("scatter_elements", x.device);
  d.bindings = {indices, Binding::in(2), Binding::out(0), Binding::status()};
  d.set_push(push);
  d.groups = linear_groups(uint64_t(count));
  plan.dispatches.push_back(std::move(d));
  return plan;
}

OpPlan plan_scatter_nd(const OpInfo& info) {
  require_no_reduction(info);
  const OpTensor& x = info.inputs.at(0);
  const OpTensor& idx = info.inputs.at(1);
  const OpTensor& upd = info.inputs.at(2);
  const int64_t q = int64_t(idx.shape.rank());
  VX_CHECK(q >= 1, InvalidArgument, label(info), ": indices must have rank >= 1");
  const int64_t k = idx.shape[size_t(q - 1)];
  VX_CHECK(k >= 1 && k <= int64_t(x.shape.rank()), InvalidArgument, label(info), ": index tuples of length ", k,
           " for data of rank ", x.shape.rank());
  if (k > kMaxRank) decline(info, cat("index tuples of length ", k, " (at most ", kMaxRank, ")"));
  const auto& xd = x.shape.dims();
  std::vector<int64_t> expected(idx.shape.begin(), idx.shape.end() - 1);
  expected.insert(expected.end(), xd.begin() + ptrdiff_t(k), xd.end());
  VX_CHECK(upd.shape == Shape(expected), InvalidArgument, label(info), ": updates shape ", upd.shape.str(),
           ", expected ", Shape(expected).str());
  const int64_t count = upd.shape.numel();
  checked_count32(info, std::max(count, x.shape.numel()));
  OpPlan plan;
  copy_data(info, plan);
  if (count == 0) return plan;
  Binding indices = index_tensor_binding(info, plan, 1, [&](size_t i) { return xd[i % size_t(k)]; });
  struct {
    int32_t count, slice, k, unused;
    int32_t extents[kMaxRank];
    int32_t strides[kMaxRank];
  } push{};
  push.count = int32_t(count);
  push.slice = int32_t(product(xd, size_t(k), xd.size()));
  push.k = int32_t(k);
  const std::vector<int64_t> strides = row_major_strides(xd);
  for (int64_t j = 0; j < k; ++j) {
    push.extents[j] = int32_t(xd[size_t(j)]);
    push.strides[j] = int32_t(strides[size_t(j)]);
    VX_CHECK(push.extents[j] > 0, InvalidArgument, label(info), ": indexing an empty axis");
  }
  Dispatch d;
  d.shader = move_variant("scatter_nd", x.device);
  d.bindings = {indices, Binding::in(2), Binding::out(0), Binding::status()};
  d.set_push(push);
  d.groups = linear_groups(uint64_t(count));
  plan.dispatches.push_back(std::move(d));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(scatter_elements, {"ScatterElements", "", 0, plan_scatter_elements});
VX_REGISTER_VK_OP(scatter, {"Scatter", "", 0, plan_scatter_elements});
VX_REGISTER_VK_OP(scatter_nd, {"ScatterND", "", 0, plan_scatter_nd});

}  // namespace vx::vk

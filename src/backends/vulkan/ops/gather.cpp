// Gather (any axis, indices of any rank, negative indices) and GatherElements. The indices are a
// device tensor (int32) computed at run time, or a graph constant uploaded once as a blob.
#include <algorithm>
#include <cstring>

#include "backends/vulkan/ops/op_args.h"
#include "core/error.h"

namespace vx::vk {
namespace {

using namespace opargs;

constexpr int kMaxRank = 6;

// The indices' binding: a constant blob (int32, range-checked now) or the input tensor.
Binding indices_binding(const OpInfo& info, OpPlan& plan, int64_t extent) {
  const OpTensor& idx = info.inputs.at(1);
  if (idx.dtype == DType::f32 || idx.dtype == DType::f16) decline(info, "indices are not integers");
  if (idx.constant == nullptr || !idx.constant->defined()) return Binding::in(1);
  std::vector<int64_t> values = tensor_ints(*idx.constant);
  std::vector<uint8_t> blob(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) {
    int64_t v = values[i];
    VX_CHECK(v >= -extent && v < extent, InvalidArgument, label(info), ": index ", v, " is out of range for extent ",
             extent);
    int32_t w = int32_t(v < 0 ? v + extent : v);
    std::memcpy(blob.data() + i * 4, &w, 4);
  }
  if (blob.empty()) blob.resize(4);  // a buffer is never empty
  plan.constants.push_back(std::move(blob));
  return Binding::constant_blob(int(plan.constants.size() - 1));
}

OpPlan plan_gather(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const OpTensor& idx = info.inputs.at(1);
  const int64_t rank = int64_t(x.shape.rank());
  VX_CHECK(rank >= 1, InvalidArgument, label(info), ": cannot gather from a scalar");
  const size_t axis = size_t(normalize_axis(info, info.node.attrs.get_int("axis", 0), rank));
  const auto& xd = x.shape.dims();
  std::vector<int64_t> dims(xd.begin(), xd.begin() + ptrdiff_t(axis));
  dims.insert(dims.end(), idx.shape.begin(), idx.shape.end());
  dims.insert(dims.end(), xd.begin() + ptrdiff_t(axis) + 1, xd.end());
  VX_CHECK(Shape(dims) == info.outputs.at(0).shape, InvalidArgument, label(info), ": output should be ",
           Shape(dims).str());
  const int64_t count = Shape(dims).numel(), extent = xd[axis];
  require_int32_elements(info, std::max(count, x.shape.numel()));
  OpPlan plan;
  if (count == 0) return plan;
  VX_CHECK(extent > 0, InvalidArgument, label(info), ": gathering from an empty axis");
  Binding indices = indices_binding(info, plan, extent);
  struct {
    int32_t count, inner, n_indices, extent;
  } push{int32_t(count), int32_t(product(xd, axis + 1, xd.size())), int32_t(idx.shape.numel()), int32_t(extent)};
  Dispatch d;
  d.shader = move_shader("mv_gather", x.device);
  d.bindings = {Binding::in(0), indices, Binding::out(0)};
  d.set_push(push);
  d.groups = linear_groups(uint64_t(count));
  plan.dispatches.push_back(std::move(d));
  return plan;
}

OpPlan plan_gather_elements(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const OpTensor& idx = info.inputs.at(1);
  const int64_t rank = int64_t(x.shape.rank());
  const size_t axis = size_t(normalize_axis(info, info.node.attrs.get_int("axis", 0), rank));
  VX_CHECK(int64_t(idx.shape.rank()) == rank, InvalidArgument, label(info), ": indices rank ", idx.shape.rank(),
           " differs from data rank ", rank);
  for (size_t d = 0; d < size_t(rank); ++d)
    VX_CHECK(d == axis || idx.shape[d] <= x.shape[d], InvalidArgument, label(info), ": indices shape ",
             idx.shape.str(), " exceeds data shape ", x.shape.str());
  if (rank > kMaxRank) decline(info, cat("rank ", rank, " exceeds ", kMaxRank));
  const int64_t count = idx.shape.numel(), extent = x.shape[axis];
  require_int32_elements(info, std::max(count, x.shape.numel()));
  OpPlan plan;
  if (count == 0) return plan;
  VX_CHECK(extent > 0, InvalidArgument, label(info), ": gathering from an empty axis");
  Binding indices = indices_binding(info, plan, extent);
  struct {
    int32_t count, rank, axis, extent;
    int32_t dims[kMaxRank];
    int32_t data_strides[kMaxRank];
  } push{};
  push.count = int32_t(count);
  push.rank = int32_t(rank);
  push.axis = int32_t(axis);
  push.extent = int32_t(extent);
  std::vector<int64_t> strides = dense_strides(x.shape.dims());
  for (size_t d = 0; d < size_t(rank); ++d) {
    push.dims[d] = int32_t(idx.shape[d]);
    push.data_strides[d] = int32_t(strides[d]);
  }
  Dispatch d;
  d.shader = move_shader("mv_gather_elements", x.device);
  d.bindings = {Binding::in(0), indices, Binding::out(0)};
  d.set_push(push);
  d.groups = linear_groups(uint64_t(count));
  plan.dispatches.push_back(std::move(d));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(gather, {"Gather", "", 0, plan_gather});
VX_REGISTER_VK_OP(gather_elements, {"GatherElements", "", 0, plan_gather_elements});

}  // namespace vx::vk

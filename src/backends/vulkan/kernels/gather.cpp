// Gather (any axis, indices of any rank, negative indices), GatherElements, GatherND
// (batch_dims) and ReverseSequence (a gather along time by per-batch lengths). The indices are a
// device tensor (int32) computed at run time, or a graph constant checked and uploaded once as a
// blob. Run-time indices out of range fail the run with the CPU kernels' error (Binding::status()).
// A Gather of one leading slice by a constant index is an alias of its run of the data.
#include <algorithm>
#include <cstring>
#include <optional>

#include "backends/vulkan/kernels/op_args.h"
#include "core/error.h"

namespace vx::vk {
namespace {

// One constant index on an axis with only unit axes before it selects one contiguous run of the
// data (a transformer's Q, K and V from their stacked product): the output can be an alias of it
// from element index * inner on, where that offset binds on any device.
std::optional<int64_t> leading_slice_alias(const OpInfo& info, const OpTensor& x, const OpTensor& idx, size_t axis,
                                           int64_t extent, int64_t inner) {
  if (idx.constant == nullptr || !idx.constant->defined() || idx.shape.numel() != 1) return std::nullopt;
  if (idx.dtype == DType::f32 || idx.dtype == DType::f16) return std::nullopt;
  if (product(x.shape.dims(), 0, axis) != 1) return std::nullopt;
  const int64_t offset = checked_constant_index(info, tensor_ints(*idx.constant).at(0), extent) * inner;
  if (uint64_t(offset) * device_type_bytes(x.device) % kAliasOffsetAlignment != 0) return std::nullopt;
  return offset;
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
  checked_count32(info, std::max(count, x.shape.numel()));
  OpPlan plan;
  if (count == 0) return plan;
  VX_CHECK(extent > 0, InvalidArgument, label(info), ": gathering from an empty axis");
  const int64_t inner = product(xd, axis + 1, xd.size());
  if (std::optional<int64_t> at = leading_slice_alias(info, x, idx, axis, extent, inner)) {
    plan.output0_aliases_input0 = true;
    plan.output0_alias_offset = *at;
    plan.variant = "alias";
    return plan;
  }
  Binding indices = index_tensor_binding(info, plan, 1, [extent](size_t) { return extent; });
  struct {
    int32_t count, inner, n_indices, extent;
  } push{int32_t(count), int32_t(inner), int32_t(idx.shape.numel()), int32_t(extent)};
  Dispatch d;
  d.shader = move_variant("gather", x.device);
  d.bindings = {Binding::in(0), indices, Binding::out(0), Binding::status()};
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
  const int64_t count = idx.shape.numel(), extent = x.shape[axis];
  checked_count32(info, std::max(count, x.shape.numel()));
  OpPlan plan;
  if (count == 0) return plan;
  VX_CHECK(extent > 0, InvalidArgument, label(info), ": gathering from an empty axis");
  // Merge each axis other than `axis` into its outer neighbour when the indices span it fully (the
  // pair is then contiguous in both tensors), so high ranks fit the shader's 6.
  const std::vector<int64_t> x_strides = row_major_strides(x.shape.dims());
  std::vector<int64_t> dims, strides;
  int merged_axis = -1;
  for (size_t d = 0; d < size_t(rank); ++d) {
    const bool mergeable = !dims.empty() && d != axis && int(dims.size()) - 1 != merged_axis &&
                           idx.shape[d] == x.shape[d];
    if (mergeable) {
      dims.back() *= idx.shape[d];
      strides.back() = x_strides[d];
      continue;
    }
    if (d == axis) merged_axis = int(dims.size());
    dims.push_back(idx.shape[d]);
    strides.push_back(x_strides[d]);
  }
  if (dims.size() > size_t(kMaxRank)) decline(info, cat("rank ", dims.size(), " after merging exceeds ", kMaxRank));
  Binding indices = index_tensor_binding(info, plan, 1, [extent](size_t) { return extent; });
  struct {
    int32_t count, rank, axis, extent;
    int32_t dims[kMaxRank];
    int32_t data_strides[kMaxRank];
  } push{};
  push.count = int32_t(count);
  push.rank = int32_t(dims.size());
  push.axis = int32_t(merged_axis);
  push.extent = int32_t(extent);
  for (size_t d = 0; d < dims.size(); ++d) {
    push.dims[d] = int32_t(dims[d]);
    push.data_strides[d] = int32_t(strides[d]);
  }
  Dispatch d;
  d.shader = move_variant("gather_elements", x.device);
  d.bindings = {Binding::in(0), indices, Binding::out(0), Binding::status()};
  d.set_push(push);
  d.groups = linear_groups(uint64_t(count));
  plan.dispatches.push_back(std::move(d));
  return plan;
}

OpPlan plan_gather_nd(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const OpTensor& idx = info.inputs.at(1);
  const int64_t batch = info.node.attrs.get_int("batch_dims", 0);
  const int64_t r = int64_t(x.shape.rank()), q = int64_t(idx.shape.rank());
  VX_CHECK(q >= 1 && batch >= 0 && batch < std::min(r, q), InvalidArgument, label(info), ": bad batch_dims ", batch,
           " for ranks ", r, " and ", q);
  const int64_t k = idx.shape[size_t(q - 1)];
  VX_CHECK(k >= 1 && batch + k <= r, InvalidArgument, label(info), ": index tuples of length ", k,
           " do not fit data of rank ", r);
  if (k > kMaxRank) decline(info, cat("index tuples of length ", k, " (at most ", kMaxRank, ")"));
  const auto& xd = x.shape.dims();
  const auto& id = idx.shape.dims();
  for (int64_t b = 0; b < batch; ++b)
    VX_CHECK(xd[size_t(b)] == id[size_t(b)], InvalidArgument, label(info), ": batch extents differ");
  std::vector<int64_t> dims(id.begin(), id.end() - 1);
  dims.insert(dims.end(), xd.begin() + ptrdiff_t(batch + k), xd.end());
  VX_CHECK(Shape(dims) == info.outputs.at(0).shape, InvalidArgument, label(info), ": output should be ",
           Shape(dims).str());
  const int64_t count = Shape(dims).numel();
  checked_count32(info, std::max(count, x.shape.numel()));
  OpPlan plan;
  if (count == 0) return plan;
  const std::vector<int64_t> strides = row_major_strides(xd);
  Binding indices = index_tensor_binding(info, plan, 1, [&](size_t i) { return xd[size_t(batch) + i % size_t(k)]; });
  struct {
    int32_t count, slice, k, tuples_per_batch, batch_stride;
    int32_t extents[kMaxRank];
    int32_t strides[kMaxRank];
  } push{};
  push.count = int32_t(count);
  push.slice = int32_t(product(xd, size_t(batch + k), xd.size()));
  push.k = int32_t(k);
  push.tuples_per_batch = int32_t(std::max<int64_t>(1, product(id, size_t(batch), id.size() - 1)));
  push.batch_stride = int32_t(batch > 0 ? strides[size_t(batch - 1)] : 0);
  for (int64_t j = 0; j < k; ++j) {
    push.extents[j] = int32_t(xd[size_t(batch + j)]);
    push.strides[j] = int32_t(strides[size_t(batch + j)]);
    VX_CHECK(push.extents[j] > 0, InvalidArgument, label(info), ": indexing an empty axis");
  }
  Dispatch d;
  d.shader = move_variant("gather_nd", x.device);
  d.bindings = {Binding::in(0), indices, Binding::out(0), Binding::status()};
  d.set_push(push);
  d.groups = linear_groups(uint64_t(count));
  plan.dispatches.push_back(std::move(d));
  return plan;
}

OpPlan plan_reverse_sequence(const OpInfo& info) {
  const OpTensor& x = info.inputs.at(0);
  const int64_t rank = int64_t(x.shape.rank());
  VX_CHECK(rank >= 2, InvalidArgument, label(info), ": input must have rank >= 2");
  const size_t batch_axis = size_t(normalize_axis(info, info.node.attrs.get_int("batch_axis", 1), rank));
  const size_t time_axis = size_t(normalize_axis(info, info.node.attrs.get_int("time_axis", 0), rank));
  VX_CHECK(batch_axis != time_axis && batch_axis <= 1 && time_axis <= 1, InvalidArgument, label(info),
           ": batch_axis and time_axis must be 0 and 1 in some order");
  const int64_t batches = x.shape[batch_axis], steps = x.shape[time_axis];
  VX_CHECK(info.inputs.at(1).shape.numel() == batches, InvalidArgument, label(info), ": ",
           info.inputs[1].shape.numel(), " sequence lengths for a batch of ", batches);
  const int64_t count = x.shape.numel();
  checked_count32(info, count);
  OpPlan plan;
  if (count == 0) return plan;
  Binding lens = index_tensor_binding(info, plan, 1, [steps](size_t) { return steps + 1; });
  if (info.inputs[1].constant != nullptr)
    for (int64_t v : tensor_ints(*info.inputs[1].constant))
      VX_CHECK(v >= 0 && v <= steps, InvalidArgument, label(info), ": sequence length ", v, " is out of range");
  struct {
    int32_t count, block, d1, time_axis, time_steps;
  } push{int32_t(count), int32_t(product(x.shape.dims(), 2, size_t(rank))), int32_t(x.shape[1]), int32_t(time_axis),
         int32_t(steps)};
  Dispatch d;
  d.shader = move_variant("reverse_sequence", x.device);
  d.bindings = {Binding::in(0), lens, Binding::out(0)};
  d.set_push(push);
  d.groups = linear_groups(uint64_t(count));
  plan.dispatches.push_back(std::move(d));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(gather, {"Gather", "", 0, plan_gather});
VX_REGISTER_VK_OP(gather_elements, {"GatherElements", "", 0, plan_gather_elements});
VX_REGISTER_VK_OP(gather_nd, {"GatherND", "", 0, plan_gather_nd});
VX_REGISTER_VK_OP(reverse_sequence, {"ReverseSequence", "", 0, plan_reverse_sequence});

}  // namespace vx::vk

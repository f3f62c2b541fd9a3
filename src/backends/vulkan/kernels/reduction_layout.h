// How the reduction shaders (reduce, reduce_arg) see their input: the kept axes and the reduced
// axes as two strided index spaces (neighbours of the same kind merged, extent-1 axes dropped), and
// the number of invocations that share one output.
#pragma once
#include <cstdint>
#include <vector>

#include "backends/vulkan/kernels/op_kernel.h"

namespace vx::vk {

inline constexpr int kReduceMaxRank = 6;

// The push-constant block of reduce_groups.glsl.
struct ReducePush {
  int32_t outputs, group, kept_rank, red_rank;
  int32_t kept_dims[kReduceMaxRank];
  int32_t kept_strides[kReduceMaxRank];
  int32_t red_dims[kReduceMaxRank];
  int32_t red_strides[kReduceMaxRank];
  int32_t op, threads, select_last, unused;
};
static_assert(sizeof(ReducePush) <= kOpPushConstantBytes);

// The push block for reducing `reduced[d]` axes of a dense input of extents `dims` (op, threads and
// select_last are left for the caller). Declines more than 6 merged axes of either kind.
ReducePush reduction_layout(const OpInfo& info, const std::vector<int64_t>& dims, const std::vector<bool>& reduced);

// Invocations per output: a power of two up to 256, about group / 16 so each reads >= 16 elements.
int32_t threads_per_output(int64_t group);

// A tensor seen around one axis as [outer, n, inner]: rows (outer, inner position) of n elements
// `inner` apart (Softmax, CumSum).
struct AxisRows {
  int64_t outer = 1, n = 1, inner = 1;
};
AxisRows rows_at(const Shape& shape, size_t axis);

// The dispatch of `outputs * threads` invocations.
std::array<uint32_t, 3> reduction_groups(int64_t outputs, int32_t threads);

}  // namespace vx::vk

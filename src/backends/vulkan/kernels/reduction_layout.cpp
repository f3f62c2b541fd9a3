#include "backends/vulkan/kernels/reduction_layout.h"

#include "backends/vulkan/kernels/op_args.h"
#include "core/error.h"

namespace vx::vk {

ReducePush reduction_layout(const OpInfo& info, const std::vector<int64_t>& dims, const std::vector<bool>& reduced) {
  checked_count32(info, product(dims, 0, dims.size()));
  const std::vector<int64_t> strides = row_major_strides(dims);
  // Merged runs (extent, stride) of each kind, outermost first; the input is dense, so neighbours
  // of one kind are always contiguous.
  std::vector<int64_t> kd, ks, rd, rs;
  int last_kind = -1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    int kind = reduced[d] ? 1 : 0;
    auto& ext = kind ? rd : kd;
    auto& str = kind ? rs : ks;
    if (kind == last_kind && dims[d] != 0) {
      ext.back() *= dims[d];
      str.back() = strides[d];
    } else {
      ext.push_back(dims[d]);
      str.push_back(strides[d]);
    }
    last_kind = kind;
  }
  if (kd.size() > size_t(kReduceMaxRank) || rd.size() > size_t(kReduceMaxRank))
    decline(info, cat("the reduction needs more than ", kReduceMaxRank, " merged axes"));
  ReducePush push{};
  push.outputs = int32_t(product(kd, 0, kd.size()));
  push.group = int32_t(product(rd, 0, rd.size()));
  push.kept_rank = int32_t(kd.size());
  push.red_rank = int32_t(rd.size());
  for (size_t i = 0; i < kd.size(); ++i) {
    push.kept_dims[i] = int32_t(kd[i]);
    push.kept_strides[i] = int32_t(ks[i]);
  }
  for (size_t i = 0; i < rd.size(); ++i) {
    push.red_dims[i] = int32_t(rd[i]);
    push.red_strides[i] = int32_t(rs[i]);
  }
  return push;
}

int32_t threads_per_output(int64_t group) {
  int32_t t = 1;
  while (t < 256 && int64_t(t) * 16 <= group) t *= 2;
  return t;
}

AxisRows rows_at(const Shape& shape, size_t axis) {
  AxisRows r;
  for (size_t d = 0; d < shape.rank(); ++d) {
    if (d < axis) r.outer *= shape[d];
    else if (d == axis) r.n = shape[d];
    else r.inner *= shape[d];
  }
  return r;
}

std::array<uint32_t, 3> reduction_groups(int64_t outputs, int32_t threads) {
  return linear_groups(uint64_t(outputs) * uint64_t(threads));
}

}  // namespace vx::vk

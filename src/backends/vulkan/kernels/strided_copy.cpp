#include "backends/vulkan/kernels/strided_copy.h"

#include <cstdlib>

#include "backends/vulkan/kernels/op_args.h"
#include "core/error.h"

namespace vx::vk {
namespace {

struct CopyPush {
  int32_t count, rank, src_base, dst_base;
  int32_t dims[kMaxRank];
  int32_t src_strides[kMaxRank];
  int32_t dst_strides[kMaxRank];
};

}  // namespace

CopyView dense_output_view(std::vector<int64_t> dims, std::vector<int64_t> src_strides, int64_t src_base) {
  CopyView v;
  v.dst_strides = row_major_strides(dims);
  v.dims = std::move(dims);
  v.src_strides = std::move(src_strides);
  v.src_base = src_base;
  return v;
}

CopyView simplify(const CopyView& v) {
  CopyView out;
  out.src_base = v.src_base;
  out.dst_base = v.dst_base;
  for (size_t d = 0; d < v.dims.size(); ++d) {
    if (v.dims[d] == 1) continue;
    if (!out.dims.empty()) {
      // The previous (outer) axis steps exactly over this one in both tensors: one axis.
      int64_t inner = v.dims[d];
      if (out.src_strides.back() == v.src_strides[d] * inner && out.dst_strides.back() == v.dst_strides[d] * inner) {
        out.dims.back() *= inner;
        out.src_strides.back() = v.src_strides[d];
        out.dst_strides.back() = v.dst_strides[d];
        continue;
      }
    }
    out.dims.push_back(v.dims[d]);
    out.src_strides.push_back(v.src_strides[d]);
    out.dst_strides.push_back(v.dst_strides[d]);
  }
  return out;
}

std::optional<Dispatch> copy_dispatch(const OpInfo& info, const CopyView& view, Binding src, Binding dst,
                                      DeviceType type) {
  int64_t count = product(view.dims, 0, view.dims.size());
  if (count == 0) return std::nullopt;
  CopyView v = simplify(view);
  if (v.dims.size() > size_t(kMaxRank))
    decline(info, cat("the copy needs a view of rank ", v.dims.size(), " (at most ", kMaxRank, ")"));
  checked_count32(info, count);
  // Every offset the shader forms must fit int32 too (the tensors themselves do).
  int64_t reach_src = std::abs(v.src_base), reach_dst = std::abs(v.dst_base);
  for (size_t d = 0; d < v.dims.size(); ++d) {
    reach_src += (v.dims[d] - 1) * std::abs(v.src_strides[d]);
    reach_dst += (v.dims[d] - 1) * std::abs(v.dst_strides[d]);
  }
  checked_count32(info, std::max(reach_src, reach_dst));
  // Groups of 4 elements when the innermost axis is contiguous in both tensors and every offset
  // stays a multiple of 4 (strided_copy's VEC4 variants).
  bool vec4 = !v.dims.empty() && v.src_strides.back() == 1 && v.dst_strides.back() == 1 && v.dims.back() % 4 == 0 &&
              v.src_base % 4 == 0 && v.dst_base % 4 == 0;
  for (size_t d = 0; vec4 && d + 1 < v.dims.size(); ++d) vec4 = v.src_strides[d] % 4 == 0 && v.dst_strides[d] % 4 == 0;
  if (vec4) {
    v.dims.back() /= 4;
    for (size_t d = 0; d + 1 < v.dims.size(); ++d) {
      v.src_strides[d] /= 4;
      v.dst_strides[d] /= 4;
    }
    v.src_base /= 4;
    v.dst_base /= 4;
    count /= 4;
  }
  CopyPush push{};
  push.count = int32_t(count);
  push.rank = int32_t(v.dims.size());
  push.src_base = int32_t(v.src_base);
  push.dst_base = int32_t(v.dst_base);
  for (size_t d = 0; d < v.dims.size(); ++d) {
    push.dims[d] = int32_t(v.dims[d]);
    push.src_strides[d] = int32_t(v.src_strides[d]);
    push.dst_strides[d] = int32_t(v.dst_strides[d]);
  }
  Dispatch dispatch;
  dispatch.shader = move_variant("strided_copy", type, vec4 ? "vec4" : "");
  dispatch.bindings = {src, dst};
  dispatch.set_push(push);
  dispatch.groups = linear_groups(uint64_t(count));
  return dispatch;
}

}  // namespace vx::vk

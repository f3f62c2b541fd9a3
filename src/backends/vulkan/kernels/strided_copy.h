// The strided-copy view behind most data-movement ops (shader strided_copy): element c of a view of
// extents `dims` moves from src[src_base + sum c[d] * src_strides[d]] to
// dst[dst_base + sum c[d] * dst_strides[d]] (strides in elements, zero or negative allowed).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "backends/vulkan/kernels/op_kernel.h"

namespace vx::vk {

struct CopyView {
  std::vector<int64_t> dims, src_strides, dst_strides;
  int64_t src_base = 0, dst_base = 0;
};

// A dense copy of `src_strides` over `dims` into a dense row-major output.
CopyView dense_output_view(std::vector<int64_t> dims, std::vector<int64_t> src_strides, int64_t src_base = 0);

// Drops extent-1 axes and merges neighbours that are contiguous in both tensors (so views of
// higher rank often fit the shader's 6). Returns the same copy.
CopyView simplify(const CopyView& v);

// The strided_copy dispatch reading binding `src` and writing binding `dst`; nullopt when the view is
// empty (nothing to copy). Declines views of rank > 6 after simplify() or beyond 32-bit indexing.
std::optional<Dispatch> copy_dispatch(const OpInfo& info, const CopyView& view, Binding src, Binding dst,
                                      DeviceType type);

}  // namespace vx::vk

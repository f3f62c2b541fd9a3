// NumPy-style multidirectional broadcasting for the CPU reference kernels (ONNX's Add, Where, Expand,
// ...): a loop over the result that hands each input's offset. The result shape, the per-input
// strides and axis normalisation are ONNX's shape rules (ops/shape_rules.h), shared with the shape
// functions and the Vulkan kernels.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/error.h"
#include "core/shape.h"
#include "ops/shape_rules.h"

namespace vx::cpu {

// Calls fn(out_index, offsets) for every element of `out` in row-major order, where offsets[k] is
// the element offset into input k (whose strides come from broadcast_strides). N inputs, N <= 4.
template <size_t N, class Fn>
void for_each_broadcast(const Shape& out, const std::array<std::vector<int64_t>, N>& strides, Fn&& fn) {
  const int64_t total = out.numel();
  if (total == 0) return;
  const size_t rank = out.rank();
  std::vector<int64_t> index(rank, 0);
  std::array<int64_t, N> offsets{};
  // The innermost axis runs as a tight loop; the rest advance an odometer.
  const int64_t inner = rank ? out[rank - 1] : 1;
  std::array<int64_t, N> inner_stride{};
  for (size_t k = 0; k < N; ++k) inner_stride[k] = rank ? strides[k][rank - 1] : 0;
  for (int64_t linear = 0; linear < total; linear += inner) {
    std::array<int64_t, N> off = offsets;
    for (int64_t j = 0; j < inner; ++j) {
      fn(linear + j, off);
      for (size_t k = 0; k < N; ++k) off[k] += inner_stride[k];
    }
    // Advance the odometer over axes [0, rank-1).
    for (size_t ax = rank >= 1 ? rank - 1 : 0; ax-- > 0;) {
      ++index[ax];
      for (size_t k = 0; k < N; ++k) offsets[k] += strides[k][ax];
      if (index[ax] < out[ax]) break;
      for (size_t k = 0; k < N; ++k) offsets[k] -= strides[k][ax] * index[ax];
      index[ax] = 0;
    }
  }
}

}  // namespace vx::cpu

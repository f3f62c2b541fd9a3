// NumPy-style multidirectional broadcasting for the CPU reference kernels (ONNX's Add, Where, Expand,
// ...): the result shape of several shapes, per-input element strides into the result's index
// space (0 along broadcast axes), and a loop over the result that hands each input's offset.
// Also axis normalisation (ONNX's negative axes), which every family of kernels needs.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/error.h"
#include "core/shape.h"

namespace vx::cpu {

// The broadcast of two shapes: aligned at the trailing axis, each pair of extents equal or one of
// them 1. Throws InvalidArgument naming both shapes otherwise.
inline Shape broadcast_shapes(const Shape& a, const Shape& b) {
  size_t rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.rank() ? 1 : a[i - (rank - a.rank())];
    int64_t db = i < rank - b.rank() ? 1 : b[i - (rank - b.rank())];
    VX_CHECK(da == db || da == 1 || db == 1, InvalidArgument, "shapes ", a.str(), " and ", b.str(),
             " cannot be broadcast together");
    dims[i] = da == 1 ? db : da;
  }
  return Shape(std::move(dims));
}

inline Shape broadcast_shapes(const std::vector<Shape>& shapes) {
  Shape result;
  for (const Shape& s : shapes) result = broadcast_shapes(result, s);
  return result;
}

// Strides in elements of a row-major tensor of shape `in` when read at the indices of `out`
// (rank(out) >= rank(in), `in` broadcastable to `out`): 0 on axes where `in` is broadcast.
inline std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  VX_CHECK(in.rank() <= out.rank(), Internal, "cannot broadcast ", in.str(), " to lower-rank ", out.str());
  std::vector<int64_t> strides(out.rank(), 0);
  int64_t stride = 1;
  for (size_t k = 0; k < in.rank(); ++k) {
    size_t i = in.rank() - 1 - k;
    size_t o = out.rank() - 1 - k;
    VX_CHECK(in[i] == out[o] || in[i] == 1, InvalidArgument, "shape ", in.str(), " cannot be broadcast to ",
             out.str());
    strides[o] = in[i] == 1 ? 0 : stride;
    stride *= in[i];
  }
  return strides;
}

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

// ONNX axes may be negative (counted from the end): maps axis into [0, rank) or throws
// InvalidArgument naming the op's attribute.
inline int64_t normalize_axis(int64_t axis, int64_t rank, const char* what = "axis") {
  VX_CHECK(axis >= -rank && axis < std::max<int64_t>(rank, 1), InvalidArgument, what, " ", axis,
           " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

// Row-major element strides of a shape.
inline std::vector<int64_t> contiguous_strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.rank(), 1);
  for (size_t i = shape.rank(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

}  // namespace vx::cpu

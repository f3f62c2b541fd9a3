// ONNX's shape rules that the shape functions, the CPU kernels and the Vulkan kernels all apply,
// written once: multidirectional (numpy) broadcasting and negative axes. `context` names the node
// in messages ("Add 'add_3'"); empty: none.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/shape.h"

namespace vx {

// The broadcast of two shapes: aligned at the trailing axis, each pair of extents equal or one of
// them 1. Throws InvalidArgument naming both shapes otherwise.
Shape broadcast_shapes(const Shape& a, const Shape& b, std::string_view context = {});
Shape broadcast_shapes(const std::vector<Shape>& shapes, std::string_view context = {});

// Element strides of a row-major tensor of shape `in` read at the indices of `out` (rank(out) >=
// rank(in), `in` broadcastable to `out`): 0 on the axes where `in` is broadcast. Throws
// InvalidArgument when `in` does not broadcast to `out`.
std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out, std::string_view context = {});

// An ONNX axis in [-rank, rank) mapped onto [0, rank); throws InvalidArgument otherwise.
int64_t normalize_axis(int64_t axis, int64_t rank, std::string_view context = {});

// Transpose's permutation: its perm attribute, or the axes reversed where it has none.
std::vector<int64_t> transpose_perm(std::vector<int64_t> perm, size_t rank);

}  // namespace vx

// Small helpers shared by the reference kernels: op labels, axis normalisation, reading integer
// tensors, row-major strides and coordinates, index checks, float views of any tensor, and a
// strided element copy that Transpose, Slice, Expand and DepthToSpace all reduce to.
// Broadcasting itself comes from broadcast.h.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/broadcast.h"
#include "core/error.h"
#include "core/tensor.h"
#include "ops/shape_rules.h"

namespace vx::cpu::ref {

// "Op 'name'" for error messages.
inline std::string node_label(const KernelContext& ctx) {
  return cat(ctx.node().op, " '", ctx.node().name, "'");
}

// An ONNX axis in [-rank, rank) mapped onto [0, rank) (ops/shape_rules.h), errors naming the node.
using vx::normalize_axis;
inline int64_t normalize_axis(int64_t axis, int64_t rank, const KernelContext& ctx) {
  return normalize_axis(axis, rank, node_label(ctx));
}

// The elements of an integer tensor (any integer dtype) as int64.
inline std::vector<int64_t> read_ints(const Tensor& t) {
  std::vector<int64_t> v(size_t(t.numel()));
  if (t.dtype() == DType::i64) {
    std::memcpy(v.data(), t.raw(), v.size() * sizeof(int64_t));
  } else {
    VX_CHECK(t.dtype() != DType::f32 && t.dtype() != DType::f16, InvalidArgument,
             "expected an integer tensor, got ", dtype_name(t.dtype()));
    for (size_t i = 0; i < v.size(); ++i) v[i] = int64_t(t.get(int64_t(i)));
  }
  return v;
}

// The elements of any numeric tensor as float.
inline std::vector<float> read_floats(const Tensor& t) {
  std::vector<float> v(size_t(t.numel()));
  if (t.dtype() == DType::f32) {
    std::memcpy(v.data(), t.raw(), v.size() * sizeof(float));
  } else {
    for (size_t i = 0; i < v.size(); ++i) v[i] = float(t.get(int64_t(i)));
  }
  return v;
}

// Writes floats into a tensor of any dtype (f32 directly, others element by element).
inline void write_floats(Tensor& out, const std::vector<float>& v) {
  VX_CHECK(int64_t(v.size()) == out.numel(), Internal, "write_floats: size mismatch");
  if (out.dtype() == DType::f32) {
    if (!v.empty()) std::memcpy(out.raw(), v.data(), v.size() * sizeof(float));
  } else {
    for (size_t i = 0; i < v.size(); ++i) out.set(int64_t(i), v[i]);
  }
}

// The elements of any numeric tensor as double (the reference kernels accumulate in double).
inline std::vector<double> read_doubles(const Tensor& t) {
  std::vector<double> v(size_t(t.numel()));
  if (t.dtype() == DType::f32) {
    const float* p = t.data<float>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = p[i];
  } else {
    for (size_t i = 0; i < v.size(); ++i) v[i] = t.get(int64_t(i));
  }
  return v;
}

// Writes doubles into a tensor of any dtype (rounded to float for f32 / f16).
inline void write_doubles(Tensor& out, const std::vector<double>& v) {
  VX_CHECK(int64_t(v.size()) == out.numel(), Internal, "write_doubles: size mismatch");
  if (out.dtype() == DType::f32) {
    float* p = out.data<float>();
    for (size_t i = 0; i < v.size(); ++i) p[i] = float(v[i]);
  } else {
    for (size_t i = 0; i < v.size(); ++i) out.set(int64_t(i), v[i]);
  }
}

// Row-major strides in elements.
inline std::vector<int64_t> strides_of(const std::vector<int64_t>& dims) { return vx::row_major_strides(dims); }
inline std::vector<int64_t> strides_of(const Shape& shape) { return vx::row_major_strides(shape); }

inline int64_t product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  return vx::extents_product(dims, begin, end);
}

// An index in [-extent, extent) mapped onto [0, extent); errors name the op.
inline int64_t checked_index(int64_t i, int64_t extent, const KernelContext& ctx) {
  VX_CHECK(i >= -extent && i < extent, InvalidArgument, node_label(ctx), ": index ", i,
           " is out of range for extent ", extent);
  return i < 0 ? i + extent : i;
}

// Converts a linear index into coordinates for the given strides (row-major, dense).
inline void unravel(int64_t linear, const std::vector<int64_t>& strides, std::vector<int64_t>& coord) {
  for (size_t d = 0; d < strides.size(); ++d) {
    coord[d] = linear / strides[d];
    linear -= coord[d] * strides[d];
  }
}

// Copies elements (of `elem` bytes) into a dense row-major `out` of extents `out_dims`, where the
// output coordinate c reads the input element at offset `base + sum_d c[d] * in_strides[d]`
// (strides in elements; zero or negative strides are allowed). The caller guarantees every
// offset lies inside the input.
inline void strided_copy(const void* in, int64_t base, const std::vector<int64_t>& in_strides, void* out,
                         const std::vector<int64_t>& out_dims, size_t elem) {
  int64_t total = product(out_dims, 0, out_dims.size());
  if (total == 0) return;
  const char* src = static_cast<const char*>(in);
  char* dst = static_cast<char*>(out);
  size_t rank = out_dims.size();
  if (rank == 0) {
    std::memcpy(dst, src + base * int64_t(elem), elem);
    return;
  }
  std::vector<int64_t> coord(rank, 0);
  int64_t offset = base;
  int64_t inner = out_dims[rank - 1], inner_stride = in_strides[rank - 1];
  for (int64_t o = 0; o < total; o += inner) {
    if (inner_stride == 1) {
      std::memcpy(dst + o * int64_t(elem), src + offset * int64_t(elem), size_t(inner) * elem);
    } else {
      for (int64_t i = 0; i < inner; ++i)
        std::memcpy(dst + (o + i) * int64_t(elem), src + (offset + i * inner_stride) * int64_t(elem), elem);
    }
    // Advance the odometer over the outer dimensions.
    for (size_t d = rank - 1; d-- > 0;) {
      ++coord[d];
      offset += in_strides[d];
      if (coord[d] < out_dims[d]) break;
      offset -= coord[d] * in_strides[d];
      coord[d] = 0;
    }
  }
}

}  // namespace vx::cpu::ref

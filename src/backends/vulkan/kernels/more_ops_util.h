// Small helpers shared by the Vulkan op files generate, select, quantize, einsum, local_norm,
// grid_sample, recurrent, tfidf, dft, det, qmatmul, qconv and roi_align: labels for errors,
// storage letters for shader variants, argument checks and a one-dispatch builder.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "backends/vulkan/kernels/op_kernel.h"
#include "core/error.h"

namespace vx::vk::more {

inline std::string node_label(const OpInfo& info) { return cat("node '", info.node.name, "' (", info.node.op, ")"); }

// Shader variant letter of a storage type: f = f32, h = f16, i = int32.
inline char letter(DeviceType t) { return t == DeviceType::f32 ? 'f' : t == DeviceType::f16 ? 'h' : 'i'; }

inline bool is_float(DType t) { return t == DType::f32 || t == DType::f16; }

inline void require_inputs(const OpInfo& info, size_t n) {
  for (size_t i = 0; i < n; ++i)
    VX_CHECK(info.has_input(i), InvalidArgument, node_label(info), ": input ", i, " is missing");
  VX_CHECK(!info.outputs.empty() && info.node.outputs[0] != kNoValue, InvalidArgument, node_label(info),
           " has no output");
}

// Element counts are indexed with 32-bit integers in the shaders.
inline uint32_t count32(const OpInfo& info, int64_t n) {
  VX_CHECK(n >= 0 && n <= int64_t(std::numeric_limits<int32_t>::max()), Unsupported, node_label(info), ": ", n,
           " elements exceed the shaders' int32 indexing");
  return uint32_t(n);
}

inline int64_t normalize_axis(const OpInfo& info, int64_t axis, int64_t rank) {
  VX_CHECK(axis >= -rank && axis < rank, InvalidArgument, node_label(info), ": axis ", axis,
           " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

inline int64_t product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t d = begin; d < end; ++d) p *= s[d];
  return p;
}

// One dispatch of `shader` over `invocations` (256 per workgroup, linear_groups' layout).
template <class Push>
Dispatch make_dispatch(std::string shader, std::vector<Binding> bindings, const Push& push, uint64_t invocations) {
  Dispatch d;
  d.shader = std::move(shader);
  d.bindings = std::move(bindings);
  d.set_push(push);
  d.groups = linear_groups(invocations);
  return d;
}

// Integer values of a constant input (indices, axes, sizes), or Unsupported when it is not one.
inline std::vector<int64_t> constant_ints(const OpInfo& info, size_t input, const char* what) {
  VX_CHECK(info.has_input(input) && info.inputs[input].constant, Unsupported, node_label(info), ": ", what,
           " is not a constant");
  const Tensor& t = *info.inputs[input].constant;
  std::vector<int64_t> v(size_t(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[size_t(i)] = int64_t(t.get(i));
  return v;
}

}  // namespace vx::vk::more

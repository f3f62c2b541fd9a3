#include "session/axis_slices.h"

#include <cstring>

#include "backends/cpu/reference/reference_ops.h"
#include "core/error.h"

namespace vx {
namespace {

// Elements before the axis (outer) and bytes after it (one inner block).
void split_at(const Shape& s, size_t axis, size_t elem, int64_t& outer, size_t& inner_bytes) {
  outer = 1;
  for (size_t d = 0; d < axis; ++d) outer *= s[d];
  inner_bytes = elem;
  for (size_t d = axis + 1; d < s.rank(); ++d) inner_bytes *= size_t(s[d]);
}

}  // namespace

Tensor slice_at(const Tensor& t, size_t axis, int64_t index) {
  VX_CHECK(axis < t.rank() && index >= 0 && index < t.dim(axis), Internal, "slice ", index, " of axis ", axis, " of ",
           t.shape().str());
  std::vector<int64_t> dims;
  for (size_t d = 0; d < t.rank(); ++d)
    if (d != axis) dims.push_back(t.dim(d));
  Tensor out(t.dtype(), Shape(dims));
  int64_t outer;
  size_t inner;
  split_at(t.shape(), axis, dtype_size(t.dtype()), outer, inner);
  const int64_t length = t.dim(axis);
  const auto* src = static_cast<const uint8_t*>(t.raw());
  auto* dst = static_cast<uint8_t*>(out.raw());
  for (int64_t o = 0; o < outer && inner > 0; ++o)
    std::memcpy(dst + size_t(o) * inner, src + (size_t(o * length + index)) * inner, inner);
  return out;
}

Tensor stack_along(const std::vector<Tensor>& parts, size_t axis, bool reverse, const char* what) {
  VX_CHECK(!parts.empty(), Internal, "stacking no parts");
  const Tensor& first = parts[0];
  VX_CHECK(axis <= first.rank(), InvalidArgument, what, ": axis ", axis, " for values of rank ", first.rank());
  std::vector<int64_t> dims(first.shape().begin(), first.shape().end());
  dims.insert(dims.begin() + std::ptrdiff_t(axis), 1);
  // Each part with an axis of extent 1 inserted, concatenated along it (in reverse for `reverse`).
  std::vector<Tensor> views;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Tensor& p = parts[reverse ? parts.size() - 1 - i : i];
    VX_CHECK(p.dtype() == first.dtype() && p.shape() == first.shape(), InvalidArgument, what, " is ",
             dtype_name(p.dtype()), " ", p.shape().str(), " in iteration ", reverse ? parts.size() - 1 - i : i, " but ",
             dtype_name(first.dtype()), " ", first.shape().str(), " in the first");
    views.push_back(p.reshaped(Shape(dims)));
  }
  std::vector<const Tensor*> inputs;
  for (const Tensor& v : views) inputs.push_back(&v);
  dims[axis] = int64_t(parts.size());
  Tensor out(first.dtype(), Shape(dims));
  cpu::ref::concat(inputs, int64_t(axis), out);
  return out;
}

}  // namespace vx

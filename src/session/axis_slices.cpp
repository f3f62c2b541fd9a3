#include "session/axis_slices.h"

#include <cstring>

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
  const int64_t length = int64_t(parts.size());
  dims.insert(dims.begin() + std::ptrdiff_t(axis), length);
  Tensor out(first.dtype(), Shape(dims));
  int64_t outer;
  size_t inner;
  split_at(out.shape(), axis, dtype_size(first.dtype()), outer, inner);
  auto* dst = static_cast<uint8_t*>(out.raw());
  for (int64_t i = 0; i < length; ++i) {
    const Tensor& p = parts[size_t(i)];
    VX_CHECK(p.dtype() == first.dtype() && p.shape() == first.shape(), InvalidArgument, what, " is ",
             dtype_name(p.dtype()), " ", p.shape().str(), " in iteration ", i, " but ", dtype_name(first.dtype()), " ",
             first.shape().str(), " in the first");
    const int64_t at = reverse ? length - 1 - i : i;
    const auto* src = static_cast<const uint8_t*>(p.raw());
    for (int64_t o = 0; o < outer && inner > 0; ++o)
      std::memcpy(dst + size_t(o * length + at) * inner, src + size_t(o) * inner, inner);
  }
  return out;
}

}  // namespace vx

#include "ops/shape_rules.h"

#include <algorithm>
#include <string>

#include "core/error.h"

namespace vx {
namespace {
std::string prefix(std::string_view context) { return context.empty() ? std::string() : cat(context, ": "); }
}  // namespace

Shape broadcast_shapes(const Shape& a, const Shape& b, std::string_view context) {
  const size_t rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.rank() ? 1 : a[i - (rank - a.rank())];
    const int64_t db = i < rank - b.rank() ? 1 : b[i - (rank - b.rank())];
    VX_CHECK(da == db || da == 1 || db == 1, InvalidArgument, prefix(context), "shapes ", a.str(), " and ", b.str(),
             " cannot be broadcast together");
    dims[i] = da == 1 ? db : da;
  }
  return Shape(std::move(dims));
}

Shape broadcast_shapes(const std::vector<Shape>& shapes, std::string_view context) {
  Shape result;
  for (const Shape& s : shapes) result = broadcast_shapes(result, s, context);
  return result;
}

std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out, std::string_view context) {
  VX_CHECK(in.rank() <= out.rank(), InvalidArgument, prefix(context), "shape ", in.str(), " cannot be broadcast to ",
           out.str());
  std::vector<int64_t> strides(out.rank(), 0);
  int64_t stride = 1;
  for (size_t k = 0; k < in.rank(); ++k) {
    const size_t i = in.rank() - 1 - k, o = out.rank() - 1 - k;
    VX_CHECK(in[i] == out[o] || in[i] == 1, InvalidArgument, prefix(context), "shape ", in.str(),
             " cannot be broadcast to ", out.str());
    strides[o] = in[i] == 1 ? 0 : stride;
    stride *= in[i];
  }
  return strides;
}

int64_t normalize_axis(int64_t axis, int64_t rank, std::string_view context) {
  VX_CHECK(axis >= -rank && axis < rank, InvalidArgument, prefix(context), "axis ", axis,
           " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> transpose_perm(std::vector<int64_t> perm, size_t rank) {
  if (perm.empty())
    for (size_t i = rank; i-- > 0;) perm.push_back(int64_t(i));
  return perm;
}

}  // namespace vx

#include "core/shape.h"

#include "core/error.h"

namespace vx {

bool Shape::is_known() const {
  for (int64_t d : dims_)
    if (d < 0) return false;
  return true;
}

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int64_t d : dims_) {
    VX_CHECK(d >= 0, InvalidArgument, "shape ", str(), " has an unknown extent");
    VX_CHECK(d == 0 || n <= INT64_MAX / d, InvalidArgument, "shape ", str(), " has too many elements");
    n *= d;
  }
  return n;
}

std::string Shape::str() const {
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ", ";
    s += dims_[i] < 0 ? std::string("?") : std::to_string(dims_[i]);
  }
  return s + "]";
}

int64_t extents_product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < dims.size(); ++i) p *= dims[i];
  return p;
}

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

}  // namespace vx

// Tensor shapes: a list of extents, outermost first (NCHW for images in the graph IR).
// An extent of -1 means "not known yet" (a symbolic dimension before the shape is bound).
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace vx {

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  size_t rank() const { return dims_.size(); }
  int64_t operator[](size_t i) const { return dims_[i]; }
  int64_t& operator[](size_t i) { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  std::vector<int64_t>& dims() { return dims_; }
  auto begin() const { return dims_.begin(); }
  auto end() const { return dims_.end(); }

  // True when every extent is known (>= 0).
  bool is_known() const;
  // Number of elements (1 for a scalar); throws if an extent is unknown or the product overflows.
  int64_t numel() const;
  // "[1, 3, 17, 5]"
  std::string str() const;

  friend bool operator==(const Shape&, const Shape&) = default;

 private:
  std::vector<int64_t> dims_;
};

// The product of dims[begin, end) (end clamped to the rank; 1 for an empty range).
int64_t extents_product(const std::vector<int64_t>& dims, size_t begin, size_t end);

// Element strides of a dense row-major tensor of these extents (the last axis 1).
std::vector<int64_t> row_major_strides(const std::vector<int64_t>& dims);
inline std::vector<int64_t> row_major_strides(const Shape& shape) { return row_major_strides(shape.dims()); }

}  // namespace vx

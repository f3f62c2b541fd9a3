// A dense, row-major tensor on the host: dtype, shape and a shared byte buffer (64-byte aligned).
// Copies share the buffer (a handle, like a shared_ptr); clone() makes a deep copy. wrap() makes a
// tensor over memory the caller owns (no ownership taken), e.g. an arena slice or a user image.
#pragma once
#include <cstddef>
#include <memory>

#include "core/dtype.h"
#include "core/error.h"
#include "core/shape.h"

namespace vx {

class Tensor {
 public:
  Tensor() = default;
  // Allocates a zero-filled tensor. Throws ErrorCode::OutOfMemory when allocation fails.
  Tensor(DType dtype, Shape shape);
  // A tensor over caller-owned memory of at least nbytes(); the caller keeps it alive.
  static Tensor wrap(DType dtype, Shape shape, void* data);
  // A scalar or 1-D tensor from values.
  template <class T>
  static Tensor from(Shape shape, std::initializer_list<T> values);

  bool empty() const { return !defined_; }
  bool defined() const { return defined_; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  size_t rank() const { return shape_.rank(); }
  int64_t dim(size_t i) const { return shape_[i]; }
  int64_t numel() const { return numel_; }
  size_t nbytes() const { return size_t(numel_) * dtype_size(dtype_); }

  void* raw() { return data_; }
  const void* raw() const { return data_; }
  // Typed access; checks that T matches the dtype.
  template <class T>
  T* data() {
    VX_CHECK(dtype_of<T>() == dtype_, Internal, "tensor of ", dtype_name(dtype_), " read as ",
             dtype_name(dtype_of<T>()));
    return static_cast<T*>(data_);
  }
  template <class T>
  const T* data() const {
    return const_cast<Tensor*>(this)->data<T>();
  }

  Tensor clone() const;
  // Same data, new shape with the same number of elements (shares the buffer).
  Tensor reshaped(Shape shape) const;
  // Element-wise conversion to another dtype (float <-> half <-> integers <-> bool).
  Tensor to(DType dtype) const;
  // Element i converted to double / written from double (slow; for tests, importers and scalars).
  double get(int64_t i) const;
  void set(int64_t i, double v);

 private:
  DType dtype_ = DType::f32;
  Shape shape_;
  int64_t numel_ = 0;
  bool defined_ = false;
  std::shared_ptr<void> storage_;
  void* data_ = nullptr;
};

template <class T>
Tensor Tensor::from(Shape shape, std::initializer_list<T> values) {
  Tensor t(dtype_of<T>(), std::move(shape));
  VX_CHECK(size_t(t.numel()) == values.size(), InvalidArgument, "Tensor::from: ", values.size(),
           " values for shape ", t.shape().str());
  T* out = t.data<T>();
  for (const T& v : values) *out++ = v;
  return t;
}

}  // namespace vx

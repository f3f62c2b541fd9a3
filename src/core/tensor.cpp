#include "core/tensor.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>

#include "core/half.h"

namespace vx {

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)), defined_(true) {
  numel_ = shape_.numel();
  size_t bytes = nbytes();
  VX_CHECK(bytes / dtype_size(dtype_) == size_t(numel_), OutOfMemory, "tensor of shape ", shape_.str(),
           " is too large");
  size_t alloc = (bytes + 63) / 64 * 64;
  void* p = alloc ? std::aligned_alloc(64, alloc) : nullptr;
  VX_CHECK(alloc == 0 || p != nullptr, OutOfMemory, "cannot allocate ", bytes, " bytes for a tensor of shape ",
           shape_.str());
  if (p) std::memset(p, 0, alloc);
  storage_ = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
  data_ = p;
}

Tensor Tensor::wrap(DType dtype, Shape shape, void* data) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.numel_ = t.shape_.numel();
  t.defined_ = true;
  t.data_ = data;
  return t;
}

Tensor Tensor::clone() const {
  Tensor t(dtype_, shape_);
  if (nbytes()) std::memcpy(t.data_, data_, nbytes());
  return t;
}

Tensor Tensor::reshaped(Shape shape) const {
  Tensor t = *this;
  t.shape_ = std::move(shape);
  t.numel_ = t.shape_.numel();
  VX_CHECK(t.numel_ == numel_, InvalidArgument, "cannot reshape ", shape_.str(), " to ", t.shape_.str());
  return t;
}

double Tensor::get(int64_t i) const {
  const void* p = static_cast<const char*>(data_) + size_t(i) * dtype_size(dtype_);
  switch (dtype_) {
    case DType::f32: return *static_cast<const float*>(p);
    case DType::f16: return half_to_float(*static_cast<const uint16_t*>(p));
    case DType::i8: return *static_cast<const int8_t*>(p);
    case DType::u8: return *static_cast<const uint8_t*>(p);
    case DType::i32: return *static_cast<const int32_t*>(p);
    case DType::i64: return double(*static_cast<const int64_t*>(p));
    case DType::boolean: return *static_cast<const uint8_t*>(p) ? 1.0 : 0.0;
  }
  return 0;
}

void Tensor::set(int64_t i, double v) {
  void* p = static_cast<char*>(data_) + size_t(i) * dtype_size(dtype_);
  switch (dtype_) {
    case DType::f32: *static_cast<float*>(p) = float(v); break;
    case DType::f16: *static_cast<uint16_t*>(p) = float_to_half(float(v)); break;
    case DType::i8: *static_cast<int8_t*>(p) = int8_t(v); break;
    case DType::u8: *static_cast<uint8_t*>(p) = uint8_t(v); break;
    case DType::i32: *static_cast<int32_t*>(p) = int32_t(v); break;
    case DType::i64: *static_cast<int64_t*>(p) = int64_t(v); break;
    case DType::boolean: *static_cast<uint8_t*>(p) = v != 0; break;
  }
}

Tensor Tensor::to(DType dtype) const {
  if (dtype == dtype_) return clone();
  Tensor t(dtype, shape_);
  if (dtype_ == DType::f16 && dtype == DType::f32) {
    const uint16_t* in = static_cast<const uint16_t*>(data_);
    float* out = static_cast<float*>(t.data_);
    for (int64_t i = 0; i < numel_; ++i) out[i] = half_to_float(in[i]);
  } else if (dtype_ == DType::f32 && dtype == DType::f16) {
    const float* in = static_cast<const float*>(data_);
    uint16_t* out = static_cast<uint16_t*>(t.data_);
    for (int64_t i = 0; i < numel_; ++i) out[i] = float_to_half(in[i]);
  } else if (dtype_ == DType::i64 && dtype != DType::f32 && dtype != DType::f16) {
    // Through int64 keeps large integers exact.
    const int64_t* in = static_cast<const int64_t*>(data_);
    for (int64_t i = 0; i < numel_; ++i) {
      void* p = static_cast<char*>(t.data_) + size_t(i) * dtype_size(dtype);
      switch (dtype) {
        case DType::i8: *static_cast<int8_t*>(p) = int8_t(in[i]); break;
        case DType::u8: *static_cast<uint8_t*>(p) = uint8_t(in[i]); break;
        case DType::i32: *static_cast<int32_t*>(p) = int32_t(in[i]); break;
        case DType::boolean: *static_cast<uint8_t*>(p) = in[i] != 0; break;
        default: break;
      }
    }
  } else {
    for (int64_t i = 0; i < numel_; ++i) t.set(i, get(i));
  }
  return t;
}

}  // namespace vx

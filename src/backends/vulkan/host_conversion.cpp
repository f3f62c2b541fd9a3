#include "backends/vulkan/host_conversion.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/half.h"
#include "core/thread_pool.h"

namespace vx::vk {
namespace {

// Element-wise conversions of large tensors spread over the global pool.
template <class Fn>
void for_chunks(int64_t n, Fn&& fn) {
  constexpr int64_t kGrain = int64_t(1) << 16;
  if (n <= kGrain) {
    fn(int64_t(0), n);
    return;
  }
  ThreadPool::global().parallel_for(
      n, [&](int64_t begin, int64_t end) { fn(begin, end); }, kGrain);
}

// memcpy of a large tensor over the global pool (one core does not saturate memory bandwidth).
void copy_bytes(void* dst, const void* src, size_t bytes) {
  constexpr size_t kChunk = size_t(1) << 20;
  if (bytes <= kChunk) {
    std::memcpy(dst, src, bytes);
    return;
  }
  ThreadPool::global().parallel_for(int64_t((bytes + kChunk - 1) / kChunk), [&](int64_t c0, int64_t c1) {
    const size_t begin = size_t(c0) * kChunk, end = std::min(bytes, size_t(c1) * kChunk);
    std::memcpy(static_cast<uint8_t*>(dst) + begin, static_cast<const uint8_t*>(src) + begin, end - begin);
  });
}

}  // namespace

void to_device(const Tensor& t, DeviceType type, uint8_t* dst) {
  const int64_t n = t.numel();
  const DType src = t.dtype();
  if (type == DeviceType::f32) {
    float* out = reinterpret_cast<float*>(dst);
    if (src == DType::f32) {
      copy_bytes(out, t.raw(), size_t(n) * 4);
    } else if (src == DType::f16) {
      const uint16_t* in = static_cast<const uint16_t*>(t.raw());
      for (int64_t i = 0; i < n; ++i) out[i] = half_to_float(in[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) out[i] = float(t.get(i));
    }
  } else if (type == DeviceType::f16) {
    uint16_t* out = reinterpret_cast<uint16_t*>(dst);
    if (src == DType::f16) {
      copy_bytes(out, t.raw(), size_t(n) * 2);
    } else if (src == DType::f32) {
      const float* in = static_cast<const float*>(t.raw());
      for_chunks(n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) out[i] = float_to_half(in[i]);
      });
    } else {
      for (int64_t i = 0; i < n; ++i) out[i] = float_to_half(float(t.get(i)));
    }
  } else {
    int32_t* out = reinterpret_cast<int32_t*>(dst);
    switch (src) {
      case DType::i32:
        copy_bytes(out, t.raw(), size_t(n) * 4);
        break;
      case DType::i64: {
        const int64_t* in = static_cast<const int64_t*>(t.raw());
        for (int64_t i = 0; i < n; ++i)
          out[i] = int32_t(
              std::clamp<int64_t>(in[i], std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
        break;
      }
      case DType::i8: {
        const int8_t* in = static_cast<const int8_t*>(t.raw());
        for (int64_t i = 0; i < n; ++i) out[i] = in[i];
        break;
      }
      case DType::u8:
      case DType::boolean: {
        const uint8_t* in = static_cast<const uint8_t*>(t.raw());
        for (int64_t i = 0; i < n; ++i) out[i] = in[i];
        break;
      }
      default:
        for (int64_t i = 0; i < n; ++i) out[i] = int32_t(t.get(i));
    }
  }
}

Tensor from_device(const uint8_t* src, DeviceType type, DType dtype, const Shape& shape) {
  Tensor t(dtype, shape);
  const int64_t n = t.numel();
  if (type == DeviceType::f32 || type == DeviceType::f16) {
    auto at = [&](int64_t i) {
      if (type == DeviceType::f32) {
        float v;
        std::memcpy(&v, src + i * 4, 4);
        return v;
      }
      uint16_t h;
      std::memcpy(&h, src + i * 2, 2);
      return half_to_float(h);
    };
    if (dtype == DType::f32 && type == DeviceType::f32) {
      copy_bytes(t.raw(), src, size_t(n) * 4);
    } else if (dtype == DType::f16 && type == DeviceType::f16) {
      copy_bytes(t.raw(), src, size_t(n) * 2);
    } else if (dtype == DType::f32) {
      float* out = t.data<float>();
      for_chunks(n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) out[i] = at(i);
      });
    } else if (dtype == DType::f16) {
      uint16_t* out = static_cast<uint16_t*>(t.raw());
      for (int64_t i = 0; i < n; ++i) out[i] = float_to_half(at(i));
    } else {
      for (int64_t i = 0; i < n; ++i) t.set(i, at(i));
    }
    return t;
  }
  const int32_t* in = reinterpret_cast<const int32_t*>(src);
  switch (dtype) {
    case DType::i32:
      copy_bytes(t.raw(), src, size_t(n) * 4);
      break;
    case DType::i64: {
      int64_t* out = t.data<int64_t>();
      for (int64_t i = 0; i < n; ++i) out[i] = in[i];
      break;
    }
    case DType::i8: {
      int8_t* out = static_cast<int8_t*>(t.raw());
      for (int64_t i = 0; i < n; ++i) out[i] = int8_t(in[i]);
      break;
    }
    case DType::u8: {
      uint8_t* out = static_cast<uint8_t*>(t.raw());
      for (int64_t i = 0; i < n; ++i) out[i] = uint8_t(in[i]);
      break;
    }
    case DType::boolean: {
      uint8_t* out = static_cast<uint8_t*>(t.raw());
      for (int64_t i = 0; i < n; ++i) out[i] = in[i] != 0;
      break;
    }
    default:
      for (int64_t i = 0; i < n; ++i) t.set(i, double(in[i]));
  }
  return t;
}

}  // namespace vx::vk

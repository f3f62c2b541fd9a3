// Element types of tensors, and their sizes and names.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vx {

enum class DType : uint8_t { f32, f16, i8, u8, i32, i64, boolean };

// A 16-bit float stored as its bits; convert with half_to_float / float_to_half (core/half.h).
struct Half {
  uint16_t bits = 0;
};

constexpr size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::f16: return 2;
    case DType::i8: return 1;
    case DType::u8: return 1;
    case DType::i32: return 4;
    case DType::i64: return 8;
    case DType::boolean: return 1;
  }
  return 0;
}

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::i8: return "i8";
    case DType::u8: return "u8";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::boolean: return "bool";
  }
  return "?";
}

// The DType of a C++ element type: dtype_of<float>() == DType::f32. bool maps to DType::boolean
// (stored as one byte).
template <class T>
constexpr DType dtype_of();
template <> constexpr DType dtype_of<float>() { return DType::f32; }
template <> constexpr DType dtype_of<Half>() { return DType::f16; }
template <> constexpr DType dtype_of<int8_t>() { return DType::i8; }
template <> constexpr DType dtype_of<uint8_t>() { return DType::u8; }
template <> constexpr DType dtype_of<int32_t>() { return DType::i32; }
template <> constexpr DType dtype_of<int64_t>() { return DType::i64; }
template <> constexpr DType dtype_of<bool>() { return DType::boolean; }

}  // namespace vx

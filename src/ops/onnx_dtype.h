// ONNX's element-type codes (TensorProto.DataType) and their mapping onto our DType, without
// protobuf: the importer reads value and tensor types with it, the Cast shape function and the
// kernels read `to` / `dtype` attributes with it, so that all of them map a code the same way.
// DType has no f64, 16-bit or unsigned 32/64-bit integers: double and bfloat16 -> f32,
// int16 / uint16 -> i32, uint32 / uint64 -> i64 (values >= 2^63 wrap).
#pragma once
#include <cstdint>
#include <optional>

#include "core/dtype.h"

namespace vx {

// The TensorProto.DataType numbers of onnx.proto (formats/onnx_tensor.cpp checks them against
// protobuf's enum); strings and complex numbers have no DType.
inline constexpr int32_t kOnnxUndefined = 0;
inline constexpr int32_t kOnnxFloat = 1;
inline constexpr int32_t kOnnxUint8 = 2;
inline constexpr int32_t kOnnxInt8 = 3;
inline constexpr int32_t kOnnxUint16 = 4;
inline constexpr int32_t kOnnxInt16 = 5;
inline constexpr int32_t kOnnxInt32 = 6;
inline constexpr int32_t kOnnxInt64 = 7;
inline constexpr int32_t kOnnxBool = 9;
inline constexpr int32_t kOnnxFloat16 = 10;
inline constexpr int32_t kOnnxDouble = 11;
inline constexpr int32_t kOnnxUint32 = 12;
inline constexpr int32_t kOnnxUint64 = 13;
inline constexpr int32_t kOnnxBfloat16 = 16;

// Our dtype for an ONNX element-type code (as an attribute's int64 holds it); nullopt when
// unsupported or not a code.
std::optional<DType> dtype_from_onnx(int64_t onnx_type);

}  // namespace vx

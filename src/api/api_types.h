// Conversions between the public API's types (include/volvox) and the engine's.
#pragma once
#include "core/dtype.h"
#include "core/error.h"
#include "volvox/volvox.h"

namespace vx::api {

inline DType to_dtype(VXDataType t) {
  switch (t) {
    case VX_TYPE_FLOAT32: return DType::f32;
    case VX_TYPE_FLOAT16: return DType::f16;
    case VX_TYPE_INT8: return DType::i8;
    case VX_TYPE_UINT8: return DType::u8;
    case VX_TYPE_INT32: return DType::i32;
    case VX_TYPE_INT64: return DType::i64;
    case VX_TYPE_BOOL: return DType::boolean;
  }
  fail(ErrorCode::InvalidArgument, cat("unknown data type ", int(t)));
}

inline VXDataType to_api(DType t) {
  switch (t) {
    case DType::f32: return VX_TYPE_FLOAT32;
    case DType::f16: return VX_TYPE_FLOAT16;
    case DType::i8: return VX_TYPE_INT8;
    case DType::u8: return VX_TYPE_UINT8;
    case DType::i32: return VX_TYPE_INT32;
    case DType::i64: return VX_TYPE_INT64;
    case DType::boolean: return VX_TYPE_BOOL;
  }
  return VX_TYPE_FLOAT32;
}

VXError to_c(ErrorCode code);

}  // namespace vx::api

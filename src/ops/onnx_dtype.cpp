#include "ops/onnx_dtype.h"

namespace vx {

std::optional<DType> dtype_from_onnx(int64_t onnx_type) {
  switch (onnx_type) {
    case kOnnxFloat: return DType::f32;
    case kOnnxDouble: return DType::f32;    // no f64 in Volvox: narrowed
    case kOnnxBfloat16: return DType::f32;  // widened
    case kOnnxFloat16: return DType::f16;
    case kOnnxInt8: return DType::i8;
    case kOnnxUint8: return DType::u8;
    case kOnnxInt16: return DType::i32;   // widened
    case kOnnxUint16: return DType::i32;  // widened
    case kOnnxInt32: return DType::i32;
    case kOnnxUint32: return DType::i64;  // widened
    case kOnnxInt64: return DType::i64;
    case kOnnxUint64: return DType::i64;  // values >= 2^63 wrap
    case kOnnxBool: return DType::boolean;
    default: return std::nullopt;
  }
}

}  // namespace vx

#include "core/error.h"

namespace vx {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidArgument: return "invalid argument";
    case ErrorCode::InvalidFile: return "invalid file";
    case ErrorCode::Unsupported: return "unsupported";
    case ErrorCode::Io: return "i/o error";
    case ErrorCode::OutOfMemory: return "out of memory";
    case ErrorCode::DeviceLost: return "device lost";
    case ErrorCode::Cancelled: return "cancelled";
    case ErrorCode::Internal: return "internal error";
  }
  return "unknown error";
}

}  // namespace vx

#include "oidn/errors.h"

#include <iostream>

namespace vx::oidn {
namespace {
ErrorState& thread_error() {
  thread_local ErrorState state;
  return state;
}
}  // namespace

OIDNError to_oidn(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidArgument: return OIDN_ERROR_INVALID_ARGUMENT;
    case ErrorCode::InvalidFile: return OIDN_ERROR_INVALID_ARGUMENT;  // bad weights, given as data
    case ErrorCode::Unsupported: return OIDN_ERROR_UNSUPPORTED_HARDWARE;
    case ErrorCode::OutOfMemory: return OIDN_ERROR_OUT_OF_MEMORY;
    case ErrorCode::Cancelled: return OIDN_ERROR_CANCELLED;
    case ErrorCode::Io:
    case ErrorCode::DeviceLost:
    case ErrorCode::Internal: return OIDN_ERROR_UNKNOWN;
  }
  return OIDN_ERROR_UNKNOWN;
}

void record(OIDNDeviceImpl* device, OIDNError code, const std::string& message, std::thread::id who) {
  if (!device) {
    ErrorState& e = thread_error();
    if (e.code == OIDN_ERROR_NONE) e = {code, message};
    return;
  }
  OIDNErrorFunction function = nullptr;
  void* user = nullptr;
  {
    std::lock_guard<std::mutex> lock(device->mutex);
    ErrorState& e = device->errors[who];
    if (e.code == OIDN_ERROR_NONE) e = {code, message};
    function = device->error_function;
    user = device->error_user;
  }
  if (function) function(user, code, message.c_str());
}

OIDNError take_error(OIDNDeviceImpl* device, const char** message) {
  ErrorState taken;
  if (!device) {
    std::swap(taken, thread_error());
  } else {
    std::lock_guard<std::mutex> lock(device->mutex);
    auto it = device->errors.find(std::this_thread::get_id());
    if (it != device->errors.end()) {
      taken = std::move(it->second);
      device->errors.erase(it);
    }
  }
  // The message lives until this thread's next query, as OIDN's does.
  thread_local std::string last;
  last = std::move(taken.message);
  if (message) *message = taken.code == OIDN_ERROR_NONE ? nullptr : last.c_str();
  return taken.code;
}

const std::shared_ptr<denoise::Device>& committed(const OIDNDeviceImpl& device) {
  if (!device.committed()) throw Failure(OIDN_ERROR_INVALID_OPERATION, "the device is not committed");
  return device.device;
}

void warn(const OIDNDeviceImpl* device, const std::string& message) {
  if (device && device->verbose >= 1) std::cerr << "Warning: " << message << '\n';
}

}  // namespace vx::oidn

// OIDN's error model over the engine's exceptions: every entry point runs its body through
// guarded(), which turns any exception into an OIDN error recorded on the device (per thread, the
// first one kept until oidnGetDeviceError reads it) and passed to the device's error function.
// Calls without a device (oidnNewDevice*, null handles) record on the calling thread.
#pragma once
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "OpenImageDenoise/oidn.h"
#include "core/error.h"
#include "oidn/handles.h"

namespace vx::oidn {

// An error with one of OIDN's own codes, for what the engine's codes cannot say
// (OIDN_ERROR_INVALID_OPERATION, OIDN_ERROR_UNSUPPORTED_HARDWARE).
class Failure : public std::runtime_error {
 public:
  Failure(OIDNError code, const std::string& message) : std::runtime_error(message), code_(code) {}
  OIDNError code() const { return code_; }

 private:
  OIDNError code_;
};

OIDNError to_oidn(ErrorCode code);
// `who`: the thread the error belongs to (an *Async call's error belongs to the caller's thread,
// not to the device's worker that ran it).
void record(OIDNDeviceImpl* device, OIDNError code, const std::string& message,
            std::thread::id who = std::this_thread::get_id());
// Returns and clears the calling thread's first error on `device` (null: its device-less errors).
OIDNError take_error(OIDNDeviceImpl* device, const char** message);
// OIDN warns (and otherwise ignores) unknown parameter names; printed when "verbose" >= 1.
void warn(const OIDNDeviceImpl* device, const std::string& message);

// The engine's device of a committed handle; OIDN_ERROR_INVALID_OPERATION before oidnCommitDevice.
const std::shared_ptr<denoise::Device>& committed(const OIDNDeviceImpl& device);

// Runs fn; an exception becomes an error on `device`. The engine's InvalidArgument becomes
// `invalid_argument_as` (OIDN calls a filter's bad images at commit an invalid operation).
template <class Fn>
bool guarded(OIDNDeviceImpl* device, Fn&& fn, OIDNError invalid_argument_as = OIDN_ERROR_INVALID_ARGUMENT,
             std::thread::id who = std::this_thread::get_id()) {
  try {
    fn();
    return true;
  } catch (const Failure& e) {
    record(device, e.code(), e.what(), who);
  } catch (const Error& e) {
    record(device, e.code() == ErrorCode::InvalidArgument ? invalid_argument_as : to_oidn(e.code()), e.what(), who);
  } catch (const std::bad_alloc&) {
    record(device, OIDN_ERROR_OUT_OF_MEMORY, "out of memory", who);
  } catch (const std::exception& e) {
    record(device, OIDN_ERROR_UNKNOWN, e.what(), who);
  }
  return false;
}

// Queues fn on the device's worker (oidn/device_queue.h) holding a reference to `owner` (the filter
// or buffer it works on) until it has run; its error belongs to the calling thread.
template <class Owner, class Fn>
void enqueue(OIDNDeviceImpl* device, Owner* owner, Fn fn) {
  owner->retain();
  device->queue->submit([device, owner, fn = std::move(fn), who = std::this_thread::get_id()]() mutable {
    guarded(device, fn, OIDN_ERROR_INVALID_ARGUMENT, who);
    owner->release();  // may release the device too: the queue allows it
  });
}

// Waits for the device's queued work: what every synchronous call does first.
inline void drain(OIDNDeviceImpl* device) {
  if (device && device->queue) device->queue->wait();
}

}  // namespace vx::oidn

// For entry points: a null handle is an invalid argument recorded on the calling thread.
#define OIDN_REQUIRE(handle, ...)                                              \
  if (!(handle)) {                                                            \
    vx::oidn::record(nullptr, OIDN_ERROR_INVALID_ARGUMENT, "invalid handle"); \
    return __VA_ARGS__;                                                       \
  }

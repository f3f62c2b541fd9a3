// How the extension calls the C API: without the GIL (so other Python threads run while the engine
// works) and under a lock, so that the error a call records is read back by that same call. The C
// API keeps one pending error per device, and one for calls without a device (vxNewDevice, image
// files): two threads using one device at once could otherwise read each other's errors.
#pragma once
#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <string>

#include "volvox/volvox.h"

namespace volvox_python {

namespace py = pybind11;

// An error the C API recorded (code VX_ERROR_NONE: none), raised as the volvox exception of its code.
struct Failure {
  VXError code = VX_ERROR_NONE;
  std::string message;

  explicit operator bool() const { return code != VX_ERROR_NONE; }
  // Takes the pending error of `device` (NULL: the device-less calls'), clearing it.
  static Failure take(VXDevice device);
  // Needs the GIL. Raises volvox.<class of code>(message) when there is an error.
  void raise_if_any() const;
};

// Raises the volvox exception for `code` (needs the GIL).
[[noreturn]] void raise_error(VXError code, const std::string& message);

// Runs `fn` (calls into the C API that record errors on `device`) with the GIL released and
// `lock` held; returns the error they recorded. `fn` gets a `bool ok()` callable that stops early:
// it moves a pending error into the result and says whether there was none. The GIL goes before
// the lock is taken: a thread that waited for the lock holding the GIL would deadlock with a
// progress callback, which takes the GIL while its execute holds the lock.
template <class Fn>
Failure call_without_gil(std::mutex& lock, VXDevice device, Fn&& fn) {
  Failure failure;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> guard(lock);
    auto ok = [&] {
      if (!failure) failure = Failure::take(device);
      return !failure;
    };
    fn(ok);
    if (!failure) failure = Failure::take(device);
  }
  return failure;
}

// The lock of the calls without a device (vxNewDevice, vxReadImage, vxWriteImage).
std::mutex& deviceless_lock();

// A device shared by the filters and models made on it (they keep it alive).
class DeviceHandle {
 public:
  // kind: "cpu", "vulkan", "vulkan:N" or "auto" (raises the C API's error when it cannot be made).
  DeviceHandle(const std::string& kind, int num_threads);
  ~DeviceHandle();
  DeviceHandle(const DeviceHandle&) = delete;
  DeviceHandle& operator=(const DeviceHandle&) = delete;

  VXDevice get() const { return device_; }
  const std::string& kind() const { return kind_; }
  // call_without_gil on this device's lock, returning the error.
  template <class Fn>
  Failure run(Fn&& fn) {
    return call_without_gil(mutex_, device_, std::forward<Fn>(fn));
  }
  // run(), then raises the error.
  template <class Fn>
  void call(Fn&& fn) {
    run(std::forward<Fn>(fn)).raise_if_any();
  }

 private:
  VXDevice device_ = nullptr;
  std::string kind_;
  std::mutex mutex_;
};

}  // namespace volvox_python

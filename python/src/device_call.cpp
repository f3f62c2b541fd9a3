#include "device_call.h"

namespace volvox_python {

Failure Failure::take(VXDevice device) {
  Failure f;
  const char* message = nullptr;
  f.code = vxGetDeviceError(device, &message);
  if (f.code != VX_ERROR_NONE) f.message = message ? message : "volvox error";
  return f;
}

void raise_error(VXError code, const std::string& message) {
  // The classes live in Python (volvox/_errors.py) so that they can derive from ValueError etc.
  py::object error = py::module_::import("volvox._errors").attr("error_for_code")(int(code), message);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
  throw py::error_already_set();
}

void Failure::raise_if_any() const {
  if (code != VX_ERROR_NONE) raise_error(code, message);
}

std::mutex& deviceless_lock() {
  static std::mutex lock;
  return lock;
}

DeviceHandle::DeviceHandle(const std::string& kind, int num_threads) : kind_(kind) {
  call_without_gil(deviceless_lock(), nullptr, [&](auto&&) { device_ = vxNewDevice(kind.c_str(), num_threads); })
      .raise_if_any();
}

DeviceHandle::~DeviceHandle() { vxReleaseDevice(device_); }

}  // namespace volvox_python

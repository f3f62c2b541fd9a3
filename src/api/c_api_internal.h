// What the C API's source files share: the device handle (which keeps errors) and the guard that
// turns every exception into an error recorded on a device, so that none crosses the C boundary.
#pragma once
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "api/api_types.h"
#include "denoise/filter.h"
#include "volvox/volvox.h"

struct VXDeviceImpl {
  std::shared_ptr<vx::denoise::Device> device;
  std::mutex mutex;
  VXError error = VX_ERROR_NONE;
  std::string message;
};

namespace vx::api {

// The pseudo-device that holds errors of vxNewDevice and of calls on null handles.
VXDeviceImpl& no_device();

// Records the error on d (null: no_device()); the first error wins until it is read.
void record(VXDeviceImpl* d, VXError e, const std::string& message);

// The C API's "precision" parameter: 0 auto, 1 fp32, 2 fp16 (InvalidArgument otherwise).
std::optional<Precision> precision_from_c(int value);

// Runs fn, turning any exception into an error recorded on device d.
template <class Fn>
void guarded(VXDeviceImpl* d, Fn&& fn) {
  try {
    fn();
  } catch (const vx::Error& e) {
    record(d, to_c(e.code()), e.what());
  } catch (const std::bad_alloc&) {
    record(d, VX_ERROR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    record(d, VX_ERROR_INTERNAL, e.what());
  }
}

}  // namespace vx::api

// OIDN's vendor-API devices (SYCL, CUDA, HIP, Metal): this library reaches GPUs through Vulkan
// only, so each constructor fails cleanly with OIDN_ERROR_UNSUPPORTED_HARDWARE.
#include "oidn/errors.h"

namespace {
OIDNDevice unsupported(const char* api) {
  vx::oidn::record(nullptr, OIDN_ERROR_UNSUPPORTED_HARDWARE,
                   vx::cat(api, " devices are not supported: this OIDN library (Volvox) runs on the CPU and on Vulkan GPUs "
                                "(oidnNewDevice with OIDN_DEVICE_TYPE_DEFAULT, _CPU or _VULKAN)"));
  return nullptr;
}
}  // namespace

extern "C" {

OIDN_API bool oidnIsSYCLDeviceSupported(const sycl::device*) { return false; }
OIDN_API bool oidnIsCUDADeviceSupported(int) { return false; }
OIDN_API bool oidnIsHIPDeviceSupported(int) { return false; }
OIDN_API bool oidnIsMetalDeviceSupported(MTLDevice_id) { return false; }

OIDN_API OIDNDevice oidnNewSYCLDevice(const sycl::queue*, int) { return unsupported("SYCL"); }
OIDN_API OIDNDevice oidnNewCUDADevice(const int*, const cudaStream_t*, int) { return unsupported("CUDA"); }
OIDN_API OIDNDevice oidnNewHIPDevice(const int*, const hipStream_t*, int) { return unsupported("HIP"); }
OIDN_API OIDNDevice oidnNewMetalDevice(const MTLCommandQueue_id*, int) { return unsupported("Metal"); }

OIDN_API void oidnExecuteSYCLFilterAsync(OIDNFilter filter, const sycl::event*, int, sycl::event*) {
  OIDN_REQUIRE(filter);
  vx::oidn::record(filter->device, OIDN_ERROR_UNSUPPORTED_HARDWARE, "SYCL execution needs a SYCL device");
}

}  // extern "C"

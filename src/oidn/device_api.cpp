// OIDN's devices: a handle names a physical device from the start (so "type" is known before
// commit); oidnCommitDevice opens the engine's denoise::Device with the parameters set so far.
#include <cstdio>
#include <cstring>

#include "oidn/errors.h"
#include "oidn/names.h"
#include "oidn/handles.h"
#include "oidn/physical_devices.h"

namespace {

using vx::oidn::Failure;
using vx::oidn::guarded;
using vx::oidn::named;


OIDNDevice new_device(const vx::runtime::PhysicalDevice& physical) {
  auto* d = new OIDNDeviceImpl;
  d->physical = physical;
  d->type = vx::oidn::oidn_type(physical);
  return d;
}

// The first physical device that fits, in OIDN's order (best first).
template <class Match>
OIDNDevice new_device_matching(Match match, const char* what) {
  for (const auto& d : vx::oidn::physical_devices())
    if (match(d)) return new_device(d);
  throw Failure(OIDN_ERROR_INVALID_ARGUMENT, vx::cat("no physical device found with the specified ", what));
}


}  // namespace

extern "C" {

OIDN_API bool oidnIsCPUDeviceSupported() { return true; }

OIDN_API OIDNDevice oidnNewDevice(OIDNDeviceType type) {
  OIDNDevice result = nullptr;
  guarded(nullptr, [&] {
    using Type = vx::runtime::PhysicalDevice::Type;
    switch (type) {
      case OIDN_DEVICE_TYPE_DEFAULT:
        // A discrete GPU beats the CPU; anything else (integrated GPUs, software renderers) may not.
        result = new_device_matching([](const auto& d) { return d.type == Type::discrete_gpu || d.type == Type::cpu; },
                                     "type");
        break;
      case OIDN_DEVICE_TYPE_CPU:
        result = new_device_matching([](const auto& d) { return d.type == Type::cpu; }, "type");
        break;
      case OIDN_DEVICE_TYPE_VULKAN:
        result = new_device_matching([](const auto& d) { return d.type != Type::cpu; }, "type (no Vulkan device)");
        break;
      case OIDN_DEVICE_TYPE_SYCL:
      case OIDN_DEVICE_TYPE_CUDA:
      case OIDN_DEVICE_TYPE_HIP:
      case OIDN_DEVICE_TYPE_METAL:
        throw Failure(OIDN_ERROR_UNSUPPORTED_HARDWARE,
                      "unsupported device type: this OIDN library (Volvox) runs on the CPU and on Vulkan GPUs "
                      "(OIDN_DEVICE_TYPE_DEFAULT, _CPU or _VULKAN)");
      default:
        throw Failure(OIDN_ERROR_INVALID_ARGUMENT, vx::cat("invalid device type ", int(type)));
    }
  });
  return result;
}

OIDN_API OIDNDevice oidnNewDeviceByID(int physicalDeviceID) {
  OIDNDevice result = nullptr;
  guarded(nullptr, [&] { result = new_device(vx::oidn::physical_device(physicalDeviceID)); });
  return result;
}

OIDN_API OIDNDevice oidnNewDeviceByUUID(const void* uuid) {
  OIDNDevice result = nullptr;
  guarded(nullptr, [&] {
    VX_CHECK(uuid != nullptr, InvalidArgument, "null UUID");
    result = new_device_matching(
        [&](const auto& d) { return d.uuid && std::memcmp(d.uuid->data(), uuid, OIDN_UUID_SIZE) == 0; }, "UUID");
  });
  return result;
}

OIDN_API OIDNDevice oidnNewDeviceByLUID(const void* luid) {
  OIDNDevice result = nullptr;
  guarded(nullptr, [&] {
    VX_CHECK(luid != nullptr, InvalidArgument, "null LUID");
    result = new_device_matching(
        [&](const auto& d) { return d.luid && std::memcmp(d.luid->data(), luid, OIDN_LUID_SIZE) == 0; }, "LUID");
  });
  return result;
}

OIDN_API OIDNDevice oidnNewDeviceByPCIAddress(int pciDomain, int pciBus, int pciDevice, int pciFunction) {
  OIDNDevice result = nullptr;
  guarded(nullptr, [&] {
    result = new_device_matching(
        [&](const auto& d) {
          return d.pci && int(d.pci->domain) == pciDomain && int(d.pci->bus) == pciBus &&
                 int(d.pci->device) == pciDevice && int(d.pci->function) == pciFunction;
        },
        "PCI address");
  });
  return result;
}

OIDN_API void oidnRetainDevice(OIDNDevice device) {
  OIDN_REQUIRE(device);
  device->retain();
}

OIDN_API void oidnReleaseDevice(OIDNDevice device) {
  OIDN_REQUIRE(device);
  vx::oidn::wait_for_queued_work(device);
  device->release();
}

OIDN_API void oidnSetDeviceInt(OIDNDevice device, const char* name, int value) {
  OIDN_REQUIRE(device);
  guarded(device, [&] {
    const bool settable = named(name, "verbose") || named(name, "numThreads") || named(name, "setAffinity");
    if (settable && device->committed())
      throw Failure(OIDN_ERROR_INVALID_OPERATION,
                    vx::cat("device parameter '", name, "' cannot be changed after the device is committed"));
    if (named(name, "verbose")) {
      VX_CHECK(value >= 0, InvalidArgument, "verbose must be at least 0");
      device->verbose = value;
    } else if (named(name, "numThreads")) {
      VX_CHECK(value >= 0, InvalidArgument, "numThreads must be 0 (all cores) or a thread count");
      if (device->type != OIDN_DEVICE_TYPE_CPU) vx::oidn::warn(device, "numThreads applies to the CPU device only");
      device->num_threads = value;
    } else if (named(name, "setAffinity")) {
      device->set_affinity = value != 0;
    } else {
      vx::oidn::warn(device, vx::cat("unknown device parameter or type mismatch: '", vx::oidn::name_or_null(name), "'"));
    }
  });
}

OIDN_API void oidnSetDeviceBool(OIDNDevice device, const char* name, bool value) {
  oidnSetDeviceInt(device, name, value ? 1 : 0);
}

OIDN_API int oidnGetDeviceInt(OIDNDevice device, const char* name) {
  OIDN_REQUIRE(device, 0);
  int value = 0;
  guarded(device, [&] {
    if (named(name, "type")) value = int(device->type);
    else if (named(name, "version")) value = OIDN_VERSION;
    else if (named(name, "versionMajor")) value = OIDN_VERSION_MAJOR;
    else if (named(name, "versionMinor")) value = OIDN_VERSION_MINOR;
    else if (named(name, "versionPatch")) value = OIDN_VERSION_PATCH;
    else if (named(name, "verbose")) value = device->verbose;
    else if (named(name, "numThreads")) value = device->num_threads;
    else if (named(name, "setAffinity")) value = device->set_affinity;
    // Host memory works on every device: a Vulkan device copies it through staging buffers.
    else if (named(name, "systemMemorySupported")) value = 1;
    else if (named(name, "managedMemorySupported")) value = 1;
    else if (named(name, "externalMemoryTypes"))
      value = int(device->committed() ? device->device->compute_device()->external_memory_types()
                                      : device->physical.external_memory_types);
    else throw Failure(OIDN_ERROR_INVALID_ARGUMENT,
                       vx::cat("unknown device parameter or type mismatch: '", vx::oidn::name_or_null(name), "'"));
  });
  return value;
}

OIDN_API bool oidnGetDeviceBool(OIDNDevice device, const char* name) { return oidnGetDeviceInt(device, name) != 0; }

OIDN_API void oidnSetDeviceErrorFunction(OIDNDevice device, OIDNErrorFunction func, void* userPtr) {
  OIDN_REQUIRE(device);
  std::lock_guard<std::mutex> lock(device->mutex);
  device->error_function = func;
  device->error_user = userPtr;
}

OIDN_API OIDNError oidnGetDeviceError(OIDNDevice device, const char** outMessage) {
  return vx::oidn::take_error(device, outMessage);
}

OIDN_API void oidnCommitDevice(OIDNDevice device) {
  OIDN_REQUIRE(device);
  guarded(device, [&] {
    if (device->committed()) throw Failure(OIDN_ERROR_INVALID_OPERATION, "a device can be committed only once");
    device->device = vx::denoise::Device::create(device->physical.kind, device->num_threads);
    device->queue = std::make_unique<vx::oidn::DeviceQueue>();
    if (device->verbose >= 2) std::printf("Volvox OIDN %s: %s\n", OIDN_VERSION_STRING, device->device->name().c_str());
  });
}

OIDN_API void oidnSyncDevice(OIDNDevice device) {
  OIDN_REQUIRE(device);
  vx::oidn::drain(device);
}

}  // extern "C"

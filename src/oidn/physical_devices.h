// OIDN's physical devices: the engine's (denoise::list_physical_devices), listed once per process.
#pragma once
#include <vector>

#include "OpenImageDenoise/oidn.h"
#include "runtime/physical_device.h"

namespace vx::oidn {

const std::vector<runtime::PhysicalDevice>& physical_devices();
// Throws InvalidArgument for an ID outside [0, oidnGetNumPhysicalDevices()).
const runtime::PhysicalDevice& physical_device(int id);
// OIDN_DEVICE_TYPE_CPU for the CPU, OIDN_DEVICE_TYPE_VULKAN for every Vulkan device.
OIDNDeviceType oidn_type(const runtime::PhysicalDevice& device);

}  // namespace vx::oidn

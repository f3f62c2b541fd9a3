// oidnGetNumPhysicalDevices and oidnGetPhysicalDevice*: the parameters OIDN 2.4 documents.
#include "oidn/physical_devices.h"

#include <cstring>
#include <string>

#include "denoise/filter.h"
#include "oidn/errors.h"
#include "oidn/names.h"

namespace vx::oidn {

const std::vector<runtime::PhysicalDevice>& physical_devices() {
  static const std::vector<runtime::PhysicalDevice> devices = denoise::list_physical_devices();
  return devices;
}

const runtime::PhysicalDevice& physical_device(int id) {
  const auto& all = physical_devices();
  VX_CHECK(id >= 0 && size_t(id) < all.size(), InvalidArgument, "invalid physical device ID ", id, " (there are ",
           all.size(), ")");
  return all[size_t(id)];
}

OIDNDeviceType oidn_type(const runtime::PhysicalDevice& device) {
  return device.type == runtime::PhysicalDevice::Type::cpu ? OIDN_DEVICE_TYPE_CPU : OIDN_DEVICE_TYPE_VULKAN;
}

namespace {
[[noreturn]] void unknown(const char* name) {
  fail(ErrorCode::InvalidArgument, cat("unknown physical device parameter or type mismatch: '", name_or_null(name), "'"));
}
}  // namespace

}  // namespace vx::oidn

using vx::oidn::guarded;
using vx::oidn::named;
using vx::oidn::physical_device;

extern "C" {

OIDN_API int oidnGetNumPhysicalDevices() {
  int n = 0;
  guarded(nullptr, [&] { n = int(vx::oidn::physical_devices().size()); });
  return n;
}

OIDN_API bool oidnGetPhysicalDeviceBool(int id, const char* name) {
  bool value = false;
  guarded(nullptr, [&] {
    const auto& d = physical_device(id);
    if (named(name, "uuidSupported")) value = d.uuid.has_value();
    else if (named(name, "luidSupported")) value = d.luid.has_value();
    else if (named(name, "pciAddressSupported")) value = d.pci.has_value();
    else vx::oidn::unknown(name);
  });
  return value;
}

OIDN_API int oidnGetPhysicalDeviceInt(int id, const char* name) {
  int value = 0;
  guarded(nullptr, [&] {
    const auto& d = physical_device(id);
    auto pci = [&](uint32_t vx::runtime::PciAddress::*field) {
      VX_CHECK(d.pci.has_value(), InvalidArgument, "physical device ", id, " has no PCI address");
      return int((*d.pci).*field);
    };
    if (named(name, "type")) value = int(vx::oidn::oidn_type(d));
    else if (named(name, "nodeMask")) {
      VX_CHECK(d.luid.has_value(), InvalidArgument, "physical device ", id, " has no LUID (nor node mask)");
      value = int(d.node_mask);
    } else if (named(name, "pciDomain")) value = pci(&vx::runtime::PciAddress::domain);
    else if (named(name, "pciBus")) value = pci(&vx::runtime::PciAddress::bus);
    else if (named(name, "pciDevice")) value = pci(&vx::runtime::PciAddress::device);
    else if (named(name, "pciFunction")) value = pci(&vx::runtime::PciAddress::function);
    else if (named(name, "uuidSupported") || named(name, "luidSupported") || named(name, "pciAddressSupported"))
      value = oidnGetPhysicalDeviceBool(id, name) ? 1 : 0;  // OIDN's bools are ints
    else vx::oidn::unknown(name);
  });
  return value;
}

OIDN_API const char* oidnGetPhysicalDeviceString(int id, const char* name) {
  const char* value = nullptr;
  guarded(nullptr, [&] {
    const auto& d = physical_device(id);
    if (named(name, "name")) value = d.name.c_str();
    else vx::oidn::unknown(name);
  });
  return value;
}

OIDN_API const void* oidnGetPhysicalDeviceData(int id, const char* name, size_t* byteSize) {
  const void* value = nullptr;
  size_t size = 0;
  guarded(nullptr, [&] {
    const auto& d = physical_device(id);
    if (named(name, "uuid")) {
      VX_CHECK(d.uuid.has_value(), InvalidArgument, "physical device ", id, " has no UUID");
      value = d.uuid->data(), size = d.uuid->size();
    } else if (named(name, "luid")) {
      VX_CHECK(d.luid.has_value(), InvalidArgument, "physical device ", id, " has no LUID");
      value = d.luid->data(), size = d.luid->size();
    } else {
      vx::oidn::unknown(name);
    }
  });
  if (byteSize) *byteSize = size;
  return value;
}

}  // extern "C"

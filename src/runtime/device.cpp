#include "runtime/device.h"

namespace vx::runtime {
namespace {

std::vector<ComputeDeviceKind>& kinds() {
  static std::vector<ComputeDeviceKind> registered;
  return registered;
}

}  // namespace

bool register_compute_device_kind(ComputeDeviceKind kind) {
  kinds().push_back(std::move(kind));
  return true;
}

const ComputeDeviceKind* find_compute_device_kind(const std::string& kind) {
  for (const ComputeDeviceKind& k : kinds())
    if (kind == k.name || kind.rfind(k.name + ":", 0) == 0) return &k;
  return nullptr;
}

std::vector<std::string> compute_device_kind_names() {
  std::vector<std::string> names;
  for (const ComputeDeviceKind& k : kinds()) names.push_back(k.name);
  return names;
}

}  // namespace vx::runtime

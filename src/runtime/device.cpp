#include "runtime/device.h"

#include "core/error.h"

namespace vx::runtime {
namespace {

std::vector<ComputeDeviceKind>& kinds() {
  static std::vector<ComputeDeviceKind> registered;
  return registered;
}

}  // namespace

std::shared_ptr<Buffer> ComputeDevice::import_buffer(ExternalMemoryType type, int, uint64_t) const {
  fail(ErrorCode::Unsupported, cat(name(), " cannot import external memory (type ", uint32_t(type), ")"));
}

bool register_compute_device_kind(ComputeDeviceKind kind) {
  kinds().push_back(std::move(kind));
  return true;
}

bool names_device_kind(const std::string& kind, const std::string& name) {
  return kind == name || kind.rfind(name + ":", 0) == 0;
}

const ComputeDeviceKind* find_compute_device_kind(const std::string& kind) {
  for (const ComputeDeviceKind& k : kinds())
    if (names_device_kind(kind, k.name)) return &k;
  return nullptr;
}

std::vector<std::string> compute_device_kind_names() {
  std::vector<std::string> names;
  for (const ComputeDeviceKind& k : kinds()) names.push_back(k.name);
  return names;
}

}  // namespace vx::runtime

#include "backends/vulkan/kernels/op_kernel.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "core/error.h"

namespace vx::vk {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::pair<std::string, std::string>, std::vector<OpEntry>> entries;  // (domain, op)
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

DeviceType device_dtype(DType onnx, Precision precision) {
  switch (onnx) {
    case DType::f32:
    case DType::f16:
      return precision == Precision::fp16 ? DeviceType::f16 : DeviceType::f32;
    default:
      return DeviceType::i32;
  }
}

size_t device_type_bytes(DeviceType t) { return t == DeviceType::f16 ? 2 : 4; }

void register_op(OpEntry entry) {
  VX_CHECK(entry.plan != nullptr, InvalidArgument, "Vulkan op '", entry.op, "' registered without a plan function");
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto& list = r.entries[{entry.domain, entry.op}];
  list.push_back(std::move(entry));
  std::stable_sort(list.begin(), list.end(), [](const OpEntry& a, const OpEntry& b) { return a.priority > b.priority; });
}

std::vector<const OpEntry*> find_ops(const std::string& op, const std::string& domain) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<const OpEntry*> out;
  auto it = r.entries.find({domain == "ai.onnx" ? std::string() : domain, op});
  if (it != r.entries.end())
    for (const OpEntry& e : it->second) out.push_back(&e);
  return out;
}

std::vector<std::string> registered_vulkan_ops() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> out;
  for (const auto& [key, list] : r.entries) out.push_back(key.first.empty() ? key.second : key.first + "." + key.second);
  return out;
}

std::array<uint32_t, 3> linear_groups(uint64_t count, uint32_t local) {
  const uint64_t groups = std::max<uint64_t>(1, (count + local - 1) / local);
  constexpr uint64_t kMaxX = 65535;  // the minimum maxComputeWorkGroupCount every device has
  if (groups <= kMaxX) return {uint32_t(groups), 1, 1};
  const uint64_t y = (groups + kMaxX - 1) / kMaxX;
  VX_CHECK(y <= kMaxX, InvalidArgument, "dispatch of ", count, " invocations is too large");
  return {uint32_t(kMaxX), uint32_t(y), 1};
}

}  // namespace vx::vk

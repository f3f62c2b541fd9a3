#include "backends/vulkan/vk_common.h"

#include <atomic>

namespace vx::vk {
namespace {
std::atomic<int> g_live[int(ObjectKind::Count)];
}

const char* result_name(VkResult r) {
  switch (r) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_FORMAT_NOT_SUPPORTED: return "VK_ERROR_FORMAT_NOT_SUPPORTED";
    case VK_ERROR_FRAGMENTED_POOL: return "VK_ERROR_FRAGMENTED_POOL";
    case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    default: return "VkResult(other)";
  }
}

void check(VkResult r, const char* what) {
  if (r == VK_SUCCESS) return;
  std::string message = cat("Vulkan call failed: ", what, " returned ", result_name(r), " (", int(r), ")");
  switch (r) {
    case VK_ERROR_DEVICE_LOST: fail(ErrorCode::DeviceLost, message);
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
    case VK_ERROR_TOO_MANY_OBJECTS: fail(ErrorCode::OutOfMemory, message);
    case VK_ERROR_INCOMPATIBLE_DRIVER:
    case VK_ERROR_EXTENSION_NOT_PRESENT:
    case VK_ERROR_FEATURE_NOT_PRESENT:
    case VK_ERROR_LAYER_NOT_PRESENT:
    case VK_ERROR_INITIALIZATION_FAILED: fail(ErrorCode::Unsupported, message);
    default: fail(ErrorCode::Internal, message);
  }
}

void track_created(ObjectKind kind) { g_live[int(kind)].fetch_add(1, std::memory_order_relaxed); }
void track_destroyed(ObjectKind kind) { g_live[int(kind)].fetch_sub(1, std::memory_order_relaxed); }
int live_objects(ObjectKind kind) { return g_live[int(kind)].load(); }
int live_objects() {
  int total = 0;
  for (auto& n : g_live) total += n.load();
  return total;
}

}  // namespace vx::vk

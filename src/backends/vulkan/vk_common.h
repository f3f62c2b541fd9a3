// Shared by every Vulkan source: volk (function pointers loaded at run time), VkResult -> vx::Error,
// and counters of live Vulkan objects so tests can prove that every object we create is destroyed.
#pragma once
#include <volk.h>

#include <cstdint>
#include <span>
#include <string_view>

#include "core/error.h"

// Vulkan structs are initialised as `VkFoo x{VK_STRUCTURE_TYPE_FOO}` (the rest zero), the idiom -Wextra
// would flag in every file.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace vx::vk {

// The SPIR-V compiled from src/backends/vulkan/shaders/<stem>.comp (variant "stem.variant"); empty
// when no such shader was built. Defined in the generated shaders_embedded.cpp.
std::span<const uint32_t> embedded_shader(std::string_view name);
std::span<const std::string_view> embedded_shader_names();

const char* result_name(VkResult r);

// Throws vx::Error for a failed VkResult: device loss -> DeviceLost, memory exhaustion -> OutOfMemory,
// a missing driver or feature -> Unsupported, anything else -> Internal. `what` names the call.
void check(VkResult r, const char* what);

// Kinds of Vulkan objects we count (created minus destroyed), for leak tests.
enum class ObjectKind : int {
  Instance, Device, Buffer, Memory, ShaderModule, Pipeline, PipelineLayout, DescriptorSetLayout,
  DescriptorPool, CommandPool, Fence, Semaphore, QueryPool, DebugMessenger, Count
};
void track_created(ObjectKind kind);
void track_destroyed(ObjectKind kind);
int live_objects(ObjectKind kind);
// All kinds together.
int live_objects();

// Destroys a counted device-level object, if there is one, and clears its handle:
//   destroy_tracked(device, fence_, vkDestroyFence, ObjectKind::Fence);
template <class Handle, class Destroy>
void destroy_tracked(VkDevice device, Handle& handle, Destroy destroy, ObjectKind kind) {
  if (handle == VK_NULL_HANDLE) return;
  destroy(device, handle, nullptr);
  track_destroyed(kind);
  handle = VK_NULL_HANDLE;
}

// A VkBuffer passed through an API as an integer (vxSetFilterVulkanBuffer, IO binding).
inline VkBuffer to_vk_buffer(uint64_t handle) {
#if VK_USE_64_BIT_PTR_DEFINES
  return reinterpret_cast<VkBuffer>(static_cast<uintptr_t>(handle));
#else
  return static_cast<VkBuffer>(handle);
#endif
}

}  // namespace vx::vk

#define VX_VK_CHECK(call) ::vx::vk::check((call), #call)

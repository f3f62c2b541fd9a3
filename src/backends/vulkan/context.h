// The Vulkan instance and one logical device: device discovery with the features our kernels care
// about (fp16, 16-bit storage, subgroups, cooperative matrices, timestamps, memory budget), the
// compute queue, and optional validation-layer capture for tests.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/vulkan/vk_common.h"

namespace vx::vk {

// One supported cooperative-matrix shape (VK_NV_cooperative_matrix), e.g. "16x16x16 f16*f16+f32".
struct CoopMatShape {
  uint32_t m = 0, n = 0, k = 0;
  std::string a_type, c_type;  // "f16", "f32", ...
  std::string str() const;
};

struct MemoryHeapInfo {
  uint64_t size = 0;
  uint64_t budget = 0;  // VK_EXT_memory_budget, 0 when unknown
  uint64_t usage = 0;
  bool device_local = false;
};

struct DeviceInfo {
  int index = -1;
  std::string name;
  std::string type;  // "discrete", "integrated", "cpu", "virtual", "other"
  uint32_t vendor_id = 0, device_id = 0;
  std::string api_version, driver_version, driver_name;
  bool fp16_arithmetic = false;   // shaderFloat16
  bool storage_16bit = false;     // storageBuffer16BitAccess
  uint32_t subgroup_size = 0;
  std::string subgroup_ops;       // "basic,vote,arithmetic,..."
  // Subgroup reductions (subgroupAdd, ...): the shaders that include workgroup_sum.glsl need them.
  bool has_subgroup_arithmetic() const { return subgroup_ops.find("arithmetic") != std::string::npos; }
  bool coopmat_nv = false;        // VK_NV_cooperative_matrix with the cooperativeMatrix feature
  bool coopmat_khr = false;       // VK_KHR_cooperative_matrix advertised (our headers predate its API)
  std::vector<CoopMatShape> coopmat_shapes;
  bool vulkan_memory_model = false;
  bool timestamps = false;        // compute queue has timestamp bits
  bool host_query_reset = false;  // Vulkan 1.2's hostQueryReset: the host may reset query pools
  bool timeline_semaphore = false;  // Vulkan 1.2's timelineSemaphore
  float timestamp_period_ns = 0;
  uint32_t max_shared_memory = 0;
  uint64_t max_storage_buffer_range = 0;
  std::vector<MemoryHeapInfo> heaps;
  // Identity, for matching a renderer's GPU (VkPhysicalDeviceIDProperties, VK_EXT_pci_bus_info).
  std::array<uint8_t, 16> uuid{};
  bool luid_valid = false;
  std::array<uint8_t, 8> luid{};
  uint32_t node_mask = 0;
  bool pci_valid = false;
  uint32_t pci_domain = 0, pci_bus = 0, pci_device = 0, pci_function = 0;
  // VK_KHR_external_memory_fd with opaque fds importable into storage buffers.
  bool import_opaque_fd = false;
  // True when the device can run our fp16 16x16x16 cooperative-matrix kernel.
  bool has_fp16_coopmat_16x16x16() const;
  std::string describe() const;  // multi-line, for `volvox devices`
};

struct ContextOptions {
  int device_index = -1;      // -1: the first discrete GPU, else the first device
  // Enable VK_LAYER_KHRONOS_validation when installed, with its synchronization checks (a missing
  // barrier between two commands is a message), and record the messages.
  bool validation = false;
  // Folder of the on-disk pipeline cache: "" = $XDG_CACHE_HOME/volvox/pipelines (or
  // ~/.cache/volvox/pipelines), "none" = no disk cache (an in-memory VkPipelineCache is still used).
  std::string pipeline_cache_dir;
};

// A Vulkan device the application created and keeps owning (a renderer that denoises its own
// buffers): we use it and its queue but never destroy them. The application must have enabled
// shaderFloat16 and storageBuffer16BitAccess to get fp16 (say so with fp16_features_enabled);
// otherwise we compute in fp32. Vulkan 1.2 or newer.
struct ExternalDevice {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  uint32_t queue_family = 0;  // must support compute
  uint32_t queue_index = 0;
  bool fp16_features_enabled = false;
};

// "vulkan" -> -1 (automatic), "vulkan:N" -> N; throws InvalidArgument for anything else.
int parse_vulkan_device(const std::string& spec);

// The queue family the executor submits to, of a device's families: one with compute and without
// graphics where `prefer_compute_only` and the device has one (NVIDIA's: on an H100 DeepLabV3 took
// 2-2.4% less GPU time there, ResNet-50 up to 1%, the native fp16 U-Net 0.7%, the others the same;
// bench/onnx/results/session37_2026-12-06/), else the first with compute; -1 for none. The context
// prefers it unless VOLVOX_VK_QUEUE=universal (measurements).
int choose_queue_family(const std::vector<VkQueueFamilyProperties>& families, bool prefer_compute_only);

// Microseconds from the start of submit_and_wait to: the submit call's return, a word in
// host-visible memory the command buffer's last command sets (flag; 0 where there is none) seen
// nonzero, a timeline semaphore the submit signals (timeline, where not null) seen at
// timeline_value, and the fence seen signalled.
struct SubmitTiming {
  const volatile uint32_t* flag = nullptr;
  VkSemaphore timeline = VK_NULL_HANDLE;
  uint64_t timeline_value = 0;
  double submitted_us = 0, flag_us = 0, timeline_us = 0, fence_us = 0;
};

class VulkanContext {
 public:
  explicit VulkanContext(const ContextOptions& options = {});
  // Adopts the application's device (see ExternalDevice); options.device_index and validation are
  // ignored (the application's instance decides about layers).
  VulkanContext(const ExternalDevice& external, const ContextOptions& options);
  // Whether the device is the application's (not destroyed by us).
  bool external() const { return external_; }
  ~VulkanContext();
  VulkanContext(const VulkanContext&) = delete;
  VulkanContext& operator=(const VulkanContext&) = delete;

  // Lists every Vulkan device (creates and destroys a temporary instance). Throws Unsupported when
  // no loader or driver is present.
  static std::vector<DeviceInfo> list_devices();

  const DeviceInfo& info() const { return info_; }
  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physical_device() const { return physical_; }
  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return queue_family_; }
  const VkPhysicalDeviceProperties& properties() const { return properties_; }
  const VkPhysicalDeviceMemoryProperties& memory_properties() const { return memory_properties_; }
  bool fp16_enabled() const { return fp16_enabled_; }
  bool coopmat_enabled() const { return coopmat_enabled_; }
  // Timestamp queries are reset by the host (vkResetQueryPool) rather than by a command: the device
  // has hostQueryReset and VOLVOX_VK_HOST_QUERY_RESET is not "0" (measurements).
  bool host_query_reset() const { return host_query_reset_enabled_; }
  bool timeline_semaphore() const { return timeline_semaphore_enabled_; }
  // VK_KHR_external_memory_fd enabled (our own devices, where info().import_opaque_fd).
  bool external_memory_fd_enabled() const { return external_memory_fd_enabled_; }
  bool validation_enabled() const { return messenger_ != VK_NULL_HANDLE; }

  // Validation messages of severity warning or error recorded since creation (tests fail on any).
  std::vector<std::string> validation_messages() const;
  // The VkPipelineCache every pipeline of this context is created with (loaded from disk when a
  // matching file exists, written back atomically by save_pipeline_cache() and at destruction).
  VkPipelineCache pipeline_cache() const { return pipeline_cache_; }
  // Bytes of pipeline-cache data accepted from disk at creation (0: none, or ignored as invalid).
  size_t pipeline_cache_loaded_bytes() const { return pipeline_cache_loaded_bytes_; }
  // The cache file ("" when the disk cache is off); one per device UUID and driver version.
  const std::string& pipeline_cache_path() const { return pipeline_cache_path_; }
  // Writes the cache file (temporary file + rename); failures are ignored (a cache is optional).
  void save_pipeline_cache() const;
  // Every vkQueueSubmit / vkQueueWaitIdle on queue() in the library goes through these three:
  // Vulkan requires external synchronisation of a queue, and filters, models and uploads on one
  // device may submit from several threads. The lock is held for the call only, not the wait.
  // Submits one command buffer and waits on `fence` (reset before return); maps errors to vx::Error.
  // With `timing` (measurements: VOLVOX_VK_CALL_TRACE) it also times the submit call and, where the
  // command buffer ends by writing a nonzero word to timing->flag, when the host saw that word and
  // the semaphore timing->timeline (signalled by this submit, where not null).
  void submit_and_wait(VkCommandBuffer cmd, VkFence fence, SubmitTiming* timing = nullptr) const;
  void submit(const VkSubmitInfo& info, VkFence fence) const;
  void wait_idle() const;
  // The lock of queue(): one per VkQueue in the process, shared by every context on that queue
  // (two contexts over one application device). For an application that submits to the queue
  // itself while we may (it must hold this lock meanwhile).
  std::unique_lock<std::mutex> lock_queue() const;

 private:
  void release();
  void create_pipeline_cache(const std::string& dir);
  static void create_instance(bool validation, VkInstance* instance, bool* validation_on);
  static DeviceInfo query_device(VkInstance instance, VkPhysicalDevice device, int index);
  static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                  VkDebugUtilsMessageTypeFlagsEXT types,
                                                  const VkDebugUtilsMessengerCallbackDataEXT* data, void* user);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  // Resolved for this instance: volk's global pointer belongs to whichever instance was loaded last,
  // and may be null there when that instance has no debug-utils extension.
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger_ = nullptr;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkPipelineCache pipeline_cache_ = VK_NULL_HANDLE;
  size_t pipeline_cache_loaded_bytes_ = 0;
  std::string pipeline_cache_path_;
  VkPhysicalDeviceProperties properties_{};
  VkPhysicalDeviceMemoryProperties memory_properties_{};
  DeviceInfo info_;
  bool fp16_enabled_ = false, coopmat_enabled_ = false, host_query_reset_enabled_ = false, timeline_semaphore_enabled_ = false;
  bool external_memory_fd_enabled_ = false;
  bool external_ = false;
  std::shared_ptr<std::mutex> queue_mutex_;  // see lock_queue()
  mutable std::mutex messages_mutex_;
  std::vector<std::string> messages_;
};

}  // namespace vx::vk

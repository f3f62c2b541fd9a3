#include "backends/vulkan/context.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>

#include "backends/vulkan/knobs.h"
#include "core/file_io.h"

namespace vx::vk {
namespace {

#if defined(__SANITIZE_ADDRESS__)
// Under AddressSanitizer only: every shared object loaded by now (the Vulkan drivers the loader
// opened for this instance) stays loaded until exit. Debian 12's lavapipe keeps 128 bytes of a
// one-time initialisation in a static and the loader unloads the driver at vkDestroyInstance, after
// which LeakSanitizer sees the bytes unreferenced and fails every test that listed devices.
void keep_drivers_loaded_under_sanitizer() {
  dl_iterate_phdr([](dl_phdr_info* info, size_t, void*) {
    if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0')
      dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    return 0;
  }, nullptr);
}
#else
void keep_drivers_loaded_under_sanitizer() {}
#endif


void load_loader() {
  static std::once_flag once;
  static VkResult result = VK_SUCCESS;
  std::call_once(once, [] { result = volkInitialize(); });
  VX_CHECK(result == VK_SUCCESS, Unsupported,
           "no Vulkan loader found (libvulkan.so.1 is missing): install a Vulkan driver or use the cpu device");
}

std::string version_string(uint32_t v) {
  return cat(VK_API_VERSION_MAJOR(v), ".", VK_API_VERSION_MINOR(v), ".", VK_API_VERSION_PATCH(v));
}

const char* type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

const char* component_name(VkComponentTypeNV t) {
  switch (t) {
    case VK_COMPONENT_TYPE_FLOAT16_NV: return "f16";
    case VK_COMPONENT_TYPE_FLOAT32_NV: return "f32";
    case VK_COMPONENT_TYPE_FLOAT64_NV: return "f64";
    case VK_COMPONENT_TYPE_SINT8_NV: return "i8";
    case VK_COMPONENT_TYPE_UINT8_NV: return "u8";
    case VK_COMPONENT_TYPE_SINT32_NV: return "i32";
    case VK_COMPONENT_TYPE_UINT32_NV: return "u32";
    default: return "?";
  }
}

bool has_extension(const std::vector<VkExtensionProperties>& list, const char* name) {
  return std::any_of(list.begin(), list.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

std::vector<VkExtensionProperties> device_extensions(VkPhysicalDevice device) {
  uint32_t n = 0;
  VX_VK_CHECK(vkEnumerateDeviceExtensionProperties(device, nullptr, &n, nullptr));
  std::vector<VkExtensionProperties> list(n);
  VX_VK_CHECK(vkEnumerateDeviceExtensionProperties(device, nullptr, &n, list.data()));
  return list;
}

// One mutex per VkQueue in the process: contexts over the same application device and queue get
// the same one. Entries expire with their last context, so a later queue at a reused handle gets
// a fresh mutex.
std::shared_ptr<std::mutex> shared_queue_mutex(VkQueue queue) {
  static std::mutex guard;
  static std::map<VkQueue, std::weak_ptr<std::mutex>> mutexes;
  std::lock_guard<std::mutex> lock(guard);
  for (auto it = mutexes.begin(); it != mutexes.end();) it = it->second.expired() ? mutexes.erase(it) : std::next(it);
  std::weak_ptr<std::mutex>& slot = mutexes[queue];
  std::shared_ptr<std::mutex> m = slot.lock();
  if (!m) {
    m = std::make_shared<std::mutex>();
    slot = m;
  }
  return m;
}

int compute_queue_family(VkPhysicalDevice device) {
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &n, families.data());
  const char* queue = std::getenv("VOLVOX_VK_QUEUE");
  return choose_queue_family(families, !(queue && std::string(queue) == "universal"));
}

}  // namespace

int choose_queue_family(const std::vector<VkQueueFamilyProperties>& families, bool prefer_compute_only) {
  int first = -1;
  for (size_t i = 0; i < families.size(); ++i) {
    const VkQueueFlags flags = families[i].queueFlags;
    if (!(flags & VK_QUEUE_COMPUTE_BIT)) continue;
    if (prefer_compute_only && !(flags & VK_QUEUE_GRAPHICS_BIT)) return int(i);
    if (first < 0) first = int(i);
  }
  return first;
}

std::string CoopMatShape::str() const { return cat(m, "x", n, "x", k, " ", a_type, "*", a_type, "+", c_type); }

bool DeviceInfo::has_fp16_coopmat_16x16x16() const {
  if (!coopmat_nv || !vulkan_memory_model || !storage_16bit || subgroup_size != 32) return false;
  return std::any_of(coopmat_shapes.begin(), coopmat_shapes.end(), [](const CoopMatShape& s) {
    return s.m == 16 && s.n == 16 && s.k == 16 && s.a_type == "f16" && s.c_type == "f32";
  });
}

std::string DeviceInfo::describe() const {
  std::string out = cat("vulkan:", index, "  ", name, " (", type, ", vendor 0x", std::hex, vendor_id, std::dec,
                        ")\n");
  out += cat("  api ", api_version, ", driver ", driver_name, " ", driver_version, "\n");
  out += cat("  fp16 arithmetic: ", fp16_arithmetic ? "yes" : "no", ", 16-bit storage: ", storage_16bit ? "yes" : "no",
             ", vulkan memory model: ", vulkan_memory_model ? "yes" : "no", "\n");
  out += cat("  subgroup size ", subgroup_size, ", ops: ", subgroup_ops, "\n");
  out += cat("  cooperative matrix: NV ", coopmat_nv ? "yes" : "no", ", KHR ", coopmat_khr ? "advertised" : "no", "\n");
  for (const auto& s : coopmat_shapes) out += cat("    ", s.str(), "\n");
  out += cat("  timestamps: ", timestamps ? cat("yes (", timestamp_period_ns, " ns/tick)") : std::string("no"),
             ", shared memory ", max_shared_memory / 1024, " KiB, max storage range ",
             max_storage_buffer_range >> 20, " MiB\n");
  for (size_t i = 0; i < heaps.size(); ++i) {
    out += cat("  heap ", i, ": ", heaps[i].size >> 20, " MiB", heaps[i].device_local ? " device-local" : "");
    if (heaps[i].budget) out += cat(", budget ", heaps[i].budget >> 20, " MiB, used ", heaps[i].usage >> 20, " MiB");
    out += "\n";
  }
  return out;
}

int parse_vulkan_device(const std::string& spec) {
  if (spec == "vulkan") return -1;
  const std::string prefix = "vulkan:";
  VX_CHECK(spec.rfind(prefix, 0) == 0 && spec.size() > prefix.size(), InvalidArgument, "device '", spec,
           "' is not 'vulkan' or 'vulkan:N'");
  std::string digits = spec.substr(prefix.size());
  VX_CHECK(digits.size() <= 4 && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }),
           InvalidArgument, "device '", spec, "': N must be a small non-negative integer");
  return std::stoi(digits);
}

void VulkanContext::create_instance(bool validation, VkInstance* instance, bool* validation_on) {
  load_loader();
  *validation_on = false;
  std::vector<const char*> layers, extensions;
  if (validation) {
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> available(n);
    vkEnumerateInstanceLayerProperties(&n, available.data());
    for (const auto& l : available)
      if (std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0) *validation_on = true;
    if (*validation_on) {
      layers.push_back("VK_LAYER_KHRONOS_validation");
      extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    }
  }
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "volvox";
  app.pEngineName = "volvox";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;
  ci.enabledLayerCount = uint32_t(layers.size());
  ci.ppEnabledLayerNames = layers.data();
  ci.enabledExtensionCount = uint32_t(extensions.size());
  ci.ppEnabledExtensionNames = extensions.data();
  const VkValidationFeatureEnableEXT sync_checks = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = &sync_checks;
  if (*validation_on) ci.pNext = &features;
  VkResult r = vkCreateInstance(&ci, nullptr, instance);
  VX_CHECK(r != VK_ERROR_INCOMPATIBLE_DRIVER, Unsupported,
           "no Vulkan driver found (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER); check VK_DRIVER_FILES / the ICD");
  VX_VK_CHECK(r);
  track_created(ObjectKind::Instance);
  keep_drivers_loaded_under_sanitizer();
  // Instance-level loading only: device functions go through the loader's dispatch, so several
  // devices (and temporary instances from list_devices) can coexist.
  volkLoadInstanceOnly(*instance);
  volkLoadInstance(*instance);
}

DeviceInfo VulkanContext::query_device(VkInstance instance, VkPhysicalDevice device, int index) {
  DeviceInfo info;
  info.index = index;
  auto extensions = device_extensions(device);

  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(device, &props);
  info.name = props.deviceName;
  info.type = type_name(props.deviceType);
  info.vendor_id = props.vendorID;
  info.device_id = props.deviceID;
  info.api_version = version_string(props.apiVersion);
  info.timestamp_period_ns = props.limits.timestampPeriod;
  info.max_shared_memory = props.limits.maxComputeSharedMemorySize;
  info.max_storage_buffer_range = props.limits.maxStorageBufferRange;
  const bool v12 = props.apiVersion >= VK_API_VERSION_1_2;

  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  VkPhysicalDevicePCIBusInfoPropertiesEXT pci{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT};
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props2.pNext = &subgroup;
  subgroup.pNext = &id;
  info.pci_valid = has_extension(extensions, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME);
  if (info.pci_valid) id.pNext = &pci;
  if (v12) driver.pNext = std::exchange(props2.pNext, &driver);
  vkGetPhysicalDeviceProperties2(device, &props2);
  std::copy(std::begin(id.deviceUUID), std::end(id.deviceUUID), info.uuid.begin());
  info.luid_valid = id.deviceLUIDValid;
  if (info.luid_valid) {
    std::copy(std::begin(id.deviceLUID), std::end(id.deviceLUID), info.luid.begin());
    info.node_mask = id.deviceNodeMask;
  }
  if (info.pci_valid) {
    info.pci_domain = pci.pciDomain, info.pci_bus = pci.pciBus;
    info.pci_device = pci.pciDevice, info.pci_function = pci.pciFunction;
  }
  if (has_extension(extensions, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)) {
    VkPhysicalDeviceExternalBufferInfo ebi{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
    ebi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    ebi.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkExternalBufferProperties ebp{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    vkGetPhysicalDeviceExternalBufferProperties(device, &ebi, &ebp);
    info.import_opaque_fd =
        ebp.externalMemoryProperties.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT;
  }
  info.subgroup_size = subgroup.subgroupSize;
  if (v12) {
    info.driver_name = driver.driverName;
    info.driver_version = driver.driverInfo;
  } else {
    info.driver_version = cat(props.driverVersion);
  }
  const std::pair<VkSubgroupFeatureFlagBits, const char*> ops[] = {
      {VK_SUBGROUP_FEATURE_BASIC_BIT, "basic"},       {VK_SUBGROUP_FEATURE_VOTE_BIT, "vote"},
      {VK_SUBGROUP_FEATURE_ARITHMETIC_BIT, "arithmetic"}, {VK_SUBGROUP_FEATURE_BALLOT_BIT, "ballot"},
      {VK_SUBGROUP_FEATURE_SHUFFLE_BIT, "shuffle"},   {VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT, "shuffle_relative"},
      {VK_SUBGROUP_FEATURE_CLUSTERED_BIT, "clustered"}, {VK_SUBGROUP_FEATURE_QUAD_BIT, "quad"}};
  for (auto [bit, name] : ops)
    if (subgroup.supportedOperations & bit) {
      if (!info.subgroup_ops.empty()) info.subgroup_ops.push_back(',');
      info.subgroup_ops.append(name);
    }

  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceCooperativeMatrixFeaturesNV fcoop{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  const bool nv_coop = has_extension(extensions, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  if (v12) {
    features.pNext = &f11;
    f11.pNext = &f12;
    if (nv_coop) f12.pNext = &fcoop;
  }
  vkGetPhysicalDeviceFeatures2(device, &features);
  info.fp16_arithmetic = v12 && f12.shaderFloat16;
  info.host_query_reset = v12 && f12.hostQueryReset;
  info.timeline_semaphore = v12 && f12.timelineSemaphore;
  info.storage_16bit = v12 && f11.storageBuffer16BitAccess;
  info.vulkan_memory_model = v12 && f12.vulkanMemoryModel;
  info.coopmat_nv = v12 && nv_coop && fcoop.cooperativeMatrix;
  info.coopmat_khr = has_extension(extensions, "VK_KHR_cooperative_matrix");
  if (info.coopmat_nv && vkGetPhysicalDeviceCooperativeMatrixPropertiesNV) {
    uint32_t n = 0;
    vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(device, &n, nullptr);
    std::vector<VkCooperativeMatrixPropertiesNV> shapes(n, {VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV});
    vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(device, &n, shapes.data());
    for (const auto& s : shapes)
      if (s.scope == VK_SCOPE_SUBGROUP_NV)
        info.coopmat_shapes.push_back({s.MSize, s.NSize, s.KSize, component_name(s.AType), component_name(s.CType)});
  }

  int family = compute_queue_family(device);
  if (family >= 0) {
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(device, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    vkGetPhysicalDeviceQueueFamilyProperties(device, &n, families.data());
    info.timestamps = families[size_t(family)].timestampValidBits > 0 && props.limits.timestampPeriod > 0;
  }

  VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
  VkPhysicalDeviceMemoryProperties2 mem{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
  const bool has_budget = has_extension(extensions, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  if (has_budget) mem.pNext = &budget;
  vkGetPhysicalDeviceMemoryProperties2(device, &mem);
  for (uint32_t i = 0; i < mem.memoryProperties.memoryHeapCount; ++i) {
    MemoryHeapInfo heap;
    heap.size = mem.memoryProperties.memoryHeaps[i].size;
    heap.device_local = mem.memoryProperties.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT;
    if (has_budget) {
      heap.budget = budget.heapBudget[i];
      heap.usage = budget.heapUsage[i];
    }
    info.heaps.push_back(heap);
  }
  (void)instance;
  return info;
}

std::vector<DeviceInfo> VulkanContext::list_devices() {
  VkInstance instance = VK_NULL_HANDLE;
  bool validation_on = false;
  create_instance(false, &instance, &validation_on);
  std::vector<DeviceInfo> list;
  try {
    uint32_t n = 0;
    VX_VK_CHECK(vkEnumeratePhysicalDevices(instance, &n, nullptr));
    std::vector<VkPhysicalDevice> devices(n);
    VX_VK_CHECK(vkEnumeratePhysicalDevices(instance, &n, devices.data()));
    for (uint32_t i = 0; i < n; ++i) list.push_back(query_device(instance, devices[i], int(i)));
  } catch (...) {
    vkDestroyInstance(instance, nullptr);
    track_destroyed(ObjectKind::Instance);
    throw;
  }
  vkDestroyInstance(instance, nullptr);
  track_destroyed(ObjectKind::Instance);
  return list;
}

VKAPI_ATTR VkBool32 VKAPI_CALL VulkanContext::on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                        VkDebugUtilsMessageTypeFlagsEXT,
                                                        const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* self = static_cast<VulkanContext*>(user);
  if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    std::lock_guard<std::mutex> lock(self->messages_mutex_);
    self->messages_.push_back(data && data->pMessage ? data->pMessage : "(no message)");
  }
  return VK_FALSE;
}

VulkanContext::VulkanContext(const ContextOptions& options) {
  bool validation_on = false;
  create_instance(options.validation, &instance_, &validation_on);
  try {
    if (validation_on) {
      VkDebugUtilsMessengerCreateInfoEXT mci{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
      mci.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
      mci.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                        VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
      mci.pfnUserCallback = &VulkanContext::on_message;
      mci.pUserData = this;
      VX_VK_CHECK(vkCreateDebugUtilsMessengerEXT(instance_, &mci, nullptr, &messenger_));
      destroy_messenger_ = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
      track_created(ObjectKind::DebugMessenger);
    }

    uint32_t n = 0;
    VX_VK_CHECK(vkEnumeratePhysicalDevices(instance_, &n, nullptr));
    VX_CHECK(n > 0, Unsupported, "no Vulkan device found (the loader found no driver with a device)");
    std::vector<VkPhysicalDevice> devices(n);
    VX_VK_CHECK(vkEnumeratePhysicalDevices(instance_, &n, devices.data()));
    int chosen = options.device_index;
    if (chosen < 0) {
      chosen = 0;
      for (uint32_t i = 0; i < n; ++i) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(devices[i], &p);
        if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
          chosen = int(i);
          break;
        }
      }
    }
    VX_CHECK(chosen < int(n), InvalidArgument, "device vulkan:", chosen, " does not exist (", n, " Vulkan device",
             n == 1 ? "" : "s", " found)");
    physical_ = devices[size_t(chosen)];
    info_ = query_device(instance_, physical_, chosen);
    vkGetPhysicalDeviceProperties(physical_, &properties_);
    vkGetPhysicalDeviceMemoryProperties(physical_, &memory_properties_);
    int family = compute_queue_family(physical_);
    VX_CHECK(family >= 0, Unsupported, "Vulkan device '", info_.name, "' has no compute queue");
    queue_family_ = uint32_t(family);

    auto available = device_extensions(physical_);
    std::vector<const char*> extensions;
    fp16_enabled_ = info_.fp16_arithmetic && info_.storage_16bit;
    coopmat_enabled_ = fp16_enabled_ && info_.has_fp16_coopmat_16x16x16();
    if (coopmat_enabled_) extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
    if (has_extension(available, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME))
      extensions.push_back(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    // Renderers hand their memory over as file descriptors (OIDN's oidnNewSharedBufferFromFD).
    external_memory_fd_enabled_ = info_.import_opaque_fd;
    if (external_memory_fd_enabled_) extensions.push_back(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);

    VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceCooperativeMatrixFeaturesNV fcoop{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    host_query_reset_enabled_ = info_.host_query_reset && !knob_off("VOLVOX_VK_HOST_QUERY_RESET");
    // Timeline semaphores for the call trace (call_trace.h), which compares when one is seen signalled.
    timeline_semaphore_enabled_ = info_.timeline_semaphore;
    if (fp16_enabled_ || host_query_reset_enabled_ || timeline_semaphore_enabled_) {
      features.pNext = &f11;
      f11.pNext = &f12;
      f12.hostQueryReset = host_query_reset_enabled_ ? VK_TRUE : VK_FALSE;
      f12.timelineSemaphore = timeline_semaphore_enabled_ ? VK_TRUE : VK_FALSE;
    }
    if (fp16_enabled_) {
      f11.storageBuffer16BitAccess = VK_TRUE;
      f12.shaderFloat16 = VK_TRUE;
      if (coopmat_enabled_) {
        f12.vulkanMemoryModel = VK_TRUE;
        f12.pNext = &fcoop;
        fcoop.cooperativeMatrix = VK_TRUE;
      }
    }
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = queue_family_;
    qci.queueCount = 1;
    qci.pQueuePriorities = &priority;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = &features;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    dci.enabledExtensionCount = uint32_t(extensions.size());
    dci.ppEnabledExtensionNames = extensions.data();
    VX_VK_CHECK(vkCreateDevice(physical_, &dci, nullptr, &device_));
    track_created(ObjectKind::Device);
    vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
    queue_mutex_ = shared_queue_mutex(queue_);
    create_pipeline_cache(options.pipeline_cache_dir);
  } catch (...) {
    release();
    throw;
  }
}

VulkanContext::VulkanContext(const ExternalDevice& external, const ContextOptions& options) : external_(true) {
  VX_CHECK(external.instance && external.physical_device && external.device, InvalidArgument,
           "an external Vulkan device needs its VkInstance, VkPhysicalDevice and VkDevice");
  load_loader();
  // Instance-level functions for the application's instance; device functions go through the
  // loader's dispatch, as for our own devices.
  volkLoadInstanceOnly(external.instance);
  volkLoadInstance(external.instance);
  instance_ = external.instance;
  physical_ = external.physical_device;
  device_ = external.device;
  try {
    uint32_t n = 0;
    VX_VK_CHECK(vkEnumeratePhysicalDevices(instance_, &n, nullptr));
    std::vector<VkPhysicalDevice> devices(n);
    VX_VK_CHECK(vkEnumeratePhysicalDevices(instance_, &n, devices.data()));
    const auto it = std::find(devices.begin(), devices.end(), physical_);
    VX_CHECK(it != devices.end(), InvalidArgument, "the external VkPhysicalDevice does not belong to its VkInstance");
    info_ = query_device(instance_, physical_, int(it - devices.begin()));
    vkGetPhysicalDeviceProperties(physical_, &properties_);
    vkGetPhysicalDeviceMemoryProperties(physical_, &memory_properties_);
    VX_CHECK(properties_.apiVersion >= VK_API_VERSION_1_2, Unsupported, "the external Vulkan device '", info_.name,
             "' supports Vulkan ", info_.api_version, "; 1.2 or newer is needed");
    uint32_t nf = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical_, &nf, nullptr);
    std::vector<VkQueueFamilyProperties> families(nf);
    vkGetPhysicalDeviceQueueFamilyProperties(physical_, &nf, families.data());
    VX_CHECK(external.queue_family < nf && (families[external.queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT),
             InvalidArgument, "queue family ", external.queue_family, " of '", info_.name,
             "' does not exist or has no compute support");
    VX_CHECK(external.queue_index < families[external.queue_family].queueCount, InvalidArgument, "queue index ",
             external.queue_index, " does not exist in queue family ", external.queue_family);
    queue_family_ = external.queue_family;
    vkGetDeviceQueue(device_, queue_family_, external.queue_index, &queue_);
    queue_mutex_ = shared_queue_mutex(queue_);
    fp16_enabled_ = external.fp16_features_enabled && info_.fp16_arithmetic && info_.storage_16bit;
    coopmat_enabled_ = false;  // needs an extension we cannot know the application enabled
    create_pipeline_cache(options.pipeline_cache_dir);
  } catch (...) {
    release();
    throw;
  }
}

VulkanContext::~VulkanContext() { release(); }

namespace {

std::filesystem::path default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "volvox" / "pipelines";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "volvox" / "pipelines";
  return {};
}

// Our pipelines make a cache of a few MiB; the bound leaves drivers that store far more per pipeline
// room while a corrupt or planted file cannot make us allocate without limit.
constexpr uint64_t kMaxPipelineCacheBytes = uint64_t(256) << 20;

// The cache file's bytes, or none when it is missing, too large or not a regular file (a FIFO is
// refused, never waited on): a cache is an optimisation, so a bad one is never an error.
std::vector<uint8_t> read_cache_file(const std::filesystem::path& path) {
  try {
    return read_file_bytes(path, "pipeline cache", kMaxPipelineCacheBytes);
  } catch (const Error&) {
    return {};
  }
}

// Whether `data` is a pipeline cache this device wrote: the version-one header names the vendor,
// device and pipelineCacheUUID (drivers also check, but some crash on foreign data).
bool cache_matches(const std::vector<uint8_t>& data, const VkPhysicalDeviceProperties& p) {
  VkPipelineCacheHeaderVersionOne header;
  if (data.size() < sizeof header) return false;
  std::memcpy(&header, data.data(), sizeof header);
  return header.headerSize >= sizeof header && header.headerSize <= data.size() &&
         header.headerVersion == VK_PIPELINE_CACHE_HEADER_VERSION_ONE && header.vendorID == p.vendorID &&
         header.deviceID == p.deviceID && std::memcmp(header.pipelineCacheUUID, p.pipelineCacheUUID, VK_UUID_SIZE) == 0;
}

}  // namespace

void VulkanContext::create_pipeline_cache(const std::string& dir) {
  std::vector<uint8_t> initial;
  if (dir != "none") {
    const std::filesystem::path folder = dir.empty() ? default_cache_dir() : std::filesystem::path(dir);
    if (!folder.empty()) {
      std::string uuid;
      for (uint8_t b : properties_.pipelineCacheUUID) uuid += cat("0123456789abcdef"[b >> 4], "0123456789abcdef"[b & 15]);
      pipeline_cache_path_ = (folder / cat(uuid, "-", properties_.driverVersion, ".bin")).string();
      initial = read_cache_file(pipeline_cache_path_);
      if (!cache_matches(initial, properties_)) initial.clear();  // stale or corrupt: start empty
    }
  }
  VkPipelineCacheCreateInfo ci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  ci.initialDataSize = initial.size();
  ci.pInitialData = initial.empty() ? nullptr : initial.data();
  if (vkCreatePipelineCache(device_, &ci, nullptr, &pipeline_cache_) != VK_SUCCESS) {
    // The driver rejected the data: an empty cache instead.
    initial.clear();
    ci.initialDataSize = 0;
    ci.pInitialData = nullptr;
    VX_VK_CHECK(vkCreatePipelineCache(device_, &ci, nullptr, &pipeline_cache_));
  }
  pipeline_cache_loaded_bytes_ = initial.size();
}

void VulkanContext::save_pipeline_cache() const {
  if (!pipeline_cache_ || pipeline_cache_path_.empty()) return;
  size_t size = 0;
  if (vkGetPipelineCacheData(device_, pipeline_cache_, &size, nullptr) != VK_SUCCESS || size == 0) return;
  std::vector<char> data(size);
  if (vkGetPipelineCacheData(device_, pipeline_cache_, &size, data.data()) != VK_SUCCESS) return;
  data.resize(size);
  std::error_code ec;
  const std::filesystem::path path(pipeline_cache_path_);
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return;
  // Atomically (synced, then renamed): a crash never leaves half a cache. A failed save (full disk,
  // a directory or FIFO at the path) is ignored: it costs the next run only compile time, and
  // release() calls this from the destructor.
  try {
    write_file_atomically(path, data.data(), data.size(), "pipeline cache");
  } catch (const Error&) {
  }
}

void VulkanContext::release() {
  if (pipeline_cache_) {
    save_pipeline_cache();
    vkDestroyPipelineCache(device_, pipeline_cache_, nullptr);
    pipeline_cache_ = VK_NULL_HANDLE;
  }
  if (external_) {  // the application's objects: only forget them
    device_ = VK_NULL_HANDLE;
    instance_ = VK_NULL_HANDLE;
    return;
  }
  if (device_) {
    {
      // vkDeviceWaitIdle needs every queue of the device externally synchronised too.
      std::unique_lock<std::mutex> lock;
      if (queue_mutex_) lock = std::unique_lock<std::mutex>(*queue_mutex_);
      vkDeviceWaitIdle(device_);
    }
    vkDestroyDevice(device_, nullptr);
    track_destroyed(ObjectKind::Device);
    device_ = VK_NULL_HANDLE;
  }
  if (messenger_) {
    if (destroy_messenger_) destroy_messenger_(instance_, messenger_, nullptr);
    track_destroyed(ObjectKind::DebugMessenger);
    messenger_ = VK_NULL_HANDLE;
  }
  if (instance_) {
    vkDestroyInstance(instance_, nullptr);
    track_destroyed(ObjectKind::Instance);
    instance_ = VK_NULL_HANDLE;
  }
}

std::vector<std::string> VulkanContext::validation_messages() const {
  std::lock_guard<std::mutex> lock(messages_mutex_);
  return messages_;
}

std::unique_lock<std::mutex> VulkanContext::lock_queue() const {
  VX_CHECK(queue_mutex_ != nullptr, Internal, "the Vulkan context has no queue");
  return std::unique_lock<std::mutex>(*queue_mutex_);
}

void VulkanContext::submit(const VkSubmitInfo& info, VkFence fence) const {
  std::unique_lock<std::mutex> lock = lock_queue();
  VX_VK_CHECK(vkQueueSubmit(queue_, 1, &info, fence));
}

void VulkanContext::wait_idle() const {
  std::unique_lock<std::mutex> lock = lock_queue();
  VX_VK_CHECK(vkQueueWaitIdle(queue_));
}

namespace {

// How long submit_and_wait polls the fence before it blocks: VOLVOX_VK_FENCE_POLL_US, else 2 ms on
// a GPU and none on a CPU device (lavapipe works on the cores the poll would take). The driver's
// blocking wait returned 50-100 us after the GPU was done on the H200, which a short call pays in
// full: polling cut a transformer encoder's wall clock from 0.81 to 0.71 ms, its GPU time 0.61
// (bench/onnx/results/fence_poll_h200_2026-12-04/).
std::chrono::microseconds fence_poll_time(VkPhysicalDeviceType type) {
  static const long from_env = [] {
    const char* env = std::getenv("VOLVOX_VK_FENCE_POLL_US");
    return env && *env ? std::max(0L, std::atol(env)) : -1L;
  }();
  if (from_env >= 0) return std::chrono::microseconds(from_env);
  return std::chrono::microseconds(type == VK_PHYSICAL_DEVICE_TYPE_CPU ? 0 : 2000);
}

}  // namespace

void VulkanContext::submit_and_wait(VkCommandBuffer cmd, VkFence fence, SubmitTiming* timing) const {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto since_start = [&] { return std::chrono::duration<double, std::micro>(Clock::now() - start).count(); };
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd;
  VkTimelineSemaphoreSubmitInfo timeline{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  if (timing && timing->timeline) {
    timeline.signalSemaphoreValueCount = 1;
    timeline.pSignalSemaphoreValues = &timing->timeline_value;
    si.pNext = &timeline;
    si.signalSemaphoreCount = 1;
    si.pSignalSemaphores = &timing->timeline;
  }
  submit(si, fence);  // the fence wait needs no queue lock: other threads may submit meanwhile
  if (timing) timing->submitted_us = since_start();
  if (timing && timing->flag) {
    // The word and the semaphore polled in one loop, each time taken when it is first seen, until
    // both are or, should one never be, the fence is signalled.
    bool word = false, semaphore = !timing->timeline;
    while (!(word && semaphore) && vkGetFenceStatus(device_, fence) == VK_NOT_READY) {
      if (!word && *timing->flag != 0) {
        timing->flag_us = since_start();
        word = true;
      }
      uint64_t value = 0;
      if (!semaphore && vkGetSemaphoreCounterValue(device_, timing->timeline, &value) == VK_SUCCESS &&
          value >= timing->timeline_value) {
        timing->timeline_us = since_start();
        semaphore = true;
      }
      std::this_thread::yield();
    }
    if (!word) timing->flag_us = since_start();
    if (!semaphore) timing->timeline_us = since_start();
  }
  const auto poll = fence_poll_time(properties_.deviceType);
  if (poll.count() > 0) {  // yields between polls: other threads of the process may need the core
    const auto until = Clock::now() + poll;
    while (vkGetFenceStatus(device_, fence) == VK_NOT_READY && Clock::now() < until) std::this_thread::yield();
  }
  VkResult r;
  do {
    r = vkWaitForFences(device_, 1, &fence, VK_TRUE, 10'000'000'000ull);
  } while (r == VK_TIMEOUT);
  VX_VK_CHECK(r);
  if (timing) timing->fence_us = since_start();
  VX_VK_CHECK(vkResetFences(device_, 1, &fence));
}

}  // namespace vx::vk

// A renderer's own Vulkan device and buffers through the public API (volvox.hpp over the C API):
// the test creates its VkInstance (with the validation layer and its own message capture),
// VkDevice and VkBuffers like an application would, fills the buffers (RGBA colour, half-float
// albedo at an unaligned offset, normals), denoises them in place on its queue and compares with
// the CPU filter: fp32 within 1e-4 (as the other Vulkan-vs-CPU tests), fp16 >= 55 dB PSNR. And
// memory the application exports as an opaque fd, imported by a Volvox device (what
// oidnNewSharedBufferFromFD does): both see each other's writes. And an ONNX model reading its
// input from and writing its output to the application's buffers (IO binding, model.h).
#include <cmath>
#include <cstring>
#include <mutex>

#include "backends/vulkan/context.h"
#include "backends/vulkan/vk_common.h"  // volk: the test talks to Vulkan as an application does
#include "backends/vulkan/vulkan_compute_device.h"
#include "common/onnx_test_models.h"
#include "common/test_util.h"
#include "core/half.h"
#include "denoise/denoise_helpers.h"
#include "runtime/device.h"
#include "volvox/volvox.hpp"

namespace vx {
namespace {

using test::max_rel_diff;

struct AppBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;  // of the allocation
  uint8_t* mapped = nullptr;
};

// What a renderer has: its instance, device, queue and buffers.
class App {
 public:
  bool fp16 = false;
  bool export_fd = false;  // VK_KHR_external_memory_fd enabled
  std::string skip;

  App() {
    if (volkInitialize() != VK_SUCCESS) {
      skip = "no Vulkan loader";
      return;
    }
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> layers(n);
    vkEnumerateInstanceLayerProperties(&n, layers.data());
    bool validation = false;
    for (const auto& l : layers) validation = validation || std::string(l.layerName) == "VK_LAYER_KHRONOS_validation";
    const char* layer = "VK_LAYER_KHRONOS_validation";
    const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    ici.enabledLayerCount = validation ? 1 : 0;
    ici.ppEnabledLayerNames = &layer;
    ici.enabledExtensionCount = validation ? 1 : 0;
    ici.ppEnabledExtensionNames = &ext;
    if (vkCreateInstance(&ici, nullptr, &instance) != VK_SUCCESS) {
      skip = "no Vulkan driver";
      return;
    }
    volkLoadInstance(instance);
    if (validation) {
      VkDebugUtilsMessengerCreateInfoEXT mci{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
      mci.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
      mci.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
      mci.pfnUserCallback = &App::on_message;
      mci.pUserData = this;
      auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
      destroy_messenger_ = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
      create(instance, &mci, nullptr, &messenger_);
    }
    n = 0;
    vkEnumeratePhysicalDevices(instance, &n, nullptr);
    if (n == 0) {
      skip = "no Vulkan device";
      return;
    }
    std::vector<VkPhysicalDevice> devices(n);
    vkEnumeratePhysicalDevices(instance, &n, devices.data());
    physical = devices[0];
    uint32_t nf = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &nf, nullptr);
    std::vector<VkQueueFamilyProperties> families(nf);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &nf, families.data());
    for (uint32_t i = 0; i < nf; ++i)
      if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
        family = i;
        break;
      }
    VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &f11;
    f11.pNext = &f12;
    vkGetPhysicalDeviceFeatures2(physical, &features);
    fp16 = f11.storageBuffer16BitAccess && f12.shaderFloat16;
    VkPhysicalDeviceVulkan11Features e11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features e12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    e11.pNext = &e12;
    e11.storageBuffer16BitAccess = fp16;
    e12.shaderFloat16 = fp16;
    uint32_t ne = 0;
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &ne, nullptr);
    std::vector<VkExtensionProperties> extensions(ne);
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &ne, extensions.data());
    for (const auto& e : extensions)
      export_fd = export_fd || std::string(e.extensionName) == VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
    const char* fd_extension = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &priority;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = &e11;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    dci.enabledExtensionCount = export_fd ? 1 : 0;
    dci.ppEnabledExtensionNames = &fd_extension;
    if (vkCreateDevice(physical, &dci, nullptr, &device) != VK_SUCCESS) {
      skip = "vkCreateDevice failed";
      return;
    }
  }

  ~App() {
    for (auto& b : buffers_) {
      vkDestroyBuffer(device, b.buffer, nullptr);
      vkFreeMemory(device, b.memory, nullptr);
    }
    if (device) vkDestroyDevice(device, nullptr);
    if (messenger_) destroy_messenger_(instance, messenger_, nullptr);
    if (instance) vkDestroyInstance(instance, nullptr);
  }

  // A host-visible, coherent storage buffer (a renderer's would usually be device-local; the
  // filter does not care).
  // `exportable`: its memory can be exported as an opaque fd (export_opaque_fd).
  AppBuffer make_buffer(VkDeviceSize size, VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                        bool exportable = false) {
    AppBuffer b;
    VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.pNext = exportable ? &external : nullptr;
    bci.size = size;
    bci.usage = usage;
    EXPECT_EQ(vkCreateBuffer(device, &bci, nullptr, &b.buffer), VK_SUCCESS);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, b.buffer, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(physical, &mp);
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = 0;
    for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
      if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) {
        type = i;
        break;
      }
    VkExportMemoryAllocateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.pNext = exportable ? &export_info : nullptr;
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = type;
    b.size = req.size;
    EXPECT_EQ(vkAllocateMemory(device, &mai, nullptr, &b.memory), VK_SUCCESS);
    vkBindBufferMemory(device, b.buffer, b.memory, 0);
    void* p = nullptr;
    vkMapMemory(device, b.memory, 0, VK_WHOLE_SIZE, 0, &p);
    b.mapped = static_cast<uint8_t*>(p);
    buffers_.push_back(b);
    return b;
  }

  // A new file descriptor for the buffer's memory (the caller owns it), or -1.
  int export_opaque_fd(const AppBuffer& b) const {
    VkMemoryGetFdInfoKHR info{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    info.memory = b.memory;
    info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    return vkGetMemoryFdKHR(device, &info, &fd) == VK_SUCCESS ? fd : -1;
  }

  VXVulkanDeviceDesc desc(bool with_fp16) const {
    return {instance, physical, device, family, 0, with_fp16};
  }

  std::vector<std::string> messages() {
    std::lock_guard<std::mutex> lock(mutex_);
    return messages_;
  }

  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  uint32_t family = 0;

 private:
  static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                  VkDebugUtilsMessageTypeFlagsEXT,
                                                  const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    auto* self = static_cast<App*>(user);
    std::lock_guard<std::mutex> lock(self->mutex_);
    self->messages_.push_back(data && data->pMessage ? data->pMessage : "?");
    return VK_FALSE;
  }
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger_ = nullptr;
  std::vector<AppBuffer> buffers_;
  std::mutex mutex_;
  std::vector<std::string> messages_;
};

TEST(VulkanExternalDevice, DenoisesTheApplicationsBuffersInPlace) {
  App app;
  if (!app.skip.empty()) GTEST_SKIP() << app.skip;
  const int W = 45, H = 27;
  // Color: RGBA f32 (16-byte pixels) at offset 0. Albedo: RGB halves (6-byte pixels) at an offset
  // that is no multiple of the storage-buffer alignment. Normal: RGB f32 in its own buffer.
  const size_t color_bytes = size_t(W) * H * 16, albedo_offset = color_bytes + 6, albedo_bytes = size_t(W) * H * 6;
  AppBuffer inputs = app.make_buffer(albedo_offset + albedo_bytes + 64);
  AppBuffer normals = app.make_buffer(size_t(W) * H * 12);
  AppBuffer output = app.make_buffer(size_t(W) * H * 16);
  test::DenoiseInputs ref{Image(W, H, 3), Image(W, H, 3), Image(W, H, 3)};
  Tensor noise = test::random_tensor({int64_t(W) * H * 3}, 77, 0.0f, 1.0f);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const size_t p = size_t(y) * W + x;
      for (int c = 0; c < 3; ++c) {
        const float base = 0.5f + 0.4f * std::sin(0.13f * float(x + 3 * c)) * std::cos(0.09f * float(y));
        const float color = base * 3.0f * noise.data<float>()[p * 3 + c];
        const uint16_t albedo = float_to_half(base);
        const float normal = c == 2 ? 0.8f : (c == 0 ? 0.6f * std::sin(0.1f * float(x)) : 0.0f);
        std::memcpy(inputs.mapped + p * 16 + size_t(c) * 4, &color, 4);
        std::memcpy(inputs.mapped + albedo_offset + p * 6 + size_t(c) * 2, &albedo, 2);
        std::memcpy(normals.mapped + p * 12 + size_t(c) * 4, &normal, 4);
        ref.color.pixels[p * 3 + c] = color;
        ref.albedo.pixels[p * 3 + c] = half_to_float(albedo);
        ref.normal.pixels[p * 3 + c] = normal;
      }
      const float alpha = 7.0f;
      std::memcpy(inputs.mapped + p * 16 + 12, &alpha, 4);
      std::memcpy(output.mapped + p * 16 + 12, &alpha, 4);
    }
  const auto blob = test::random_weights_blob(UNetVariant::small, 9, 78);
  const Image cpu = test::denoise_cpu(ref, blob, true);

  auto run = [&](bool fp16) {
    std::memset(output.mapped, 0, size_t(W) * H * 16);
    for (size_t p = 0; p < size_t(W) * H; ++p) {
      const float alpha = 7.0f;
      std::memcpy(output.mapped + p * 16 + 12, &alpha, 4);
    }
    volvox::DeviceRef device(app.desc(fp16));
    volvox::FilterRef filter(device);
    filter.set_vulkan_buffer("color", inputs.buffer, 0, VX_FORMAT_FLOAT3, W, H, 16);
    filter.set_vulkan_buffer("albedo", inputs.buffer, albedo_offset, VX_FORMAT_HALF3, W, H);
    filter.set_vulkan_buffer("normal", reinterpret_cast<uint64_t>(normals.buffer), 0, VX_FORMAT_FLOAT3, W, H);
    filter.set_vulkan_buffer("output", output.buffer, 0, VX_FORMAT_FLOAT3, W, H, 16, size_t(W) * 16);
    filter.set("hdr", true);
    filter.set("precision", fp16 ? 2 : 1);
    filter.set_weights(blob.data(), blob.size());
    filter.commit();
    filter.execute();
    Image out(W, H, 3);
    for (size_t p = 0; p < size_t(W) * H; ++p) {
      std::memcpy(&out.pixels[p * 3], output.mapped + p * 16, 12);
      float alpha;
      std::memcpy(&alpha, output.mapped + p * 16 + 12, 4);
      EXPECT_EQ(alpha, 7.0f) << "alpha of pixel " << p << " was overwritten";
    }
    return out;
  };
  const Image vk32 = run(false);
  const double err = max_rel_diff(cpu, vk32);
  std::printf("external device fp32: max error vs cpu %.3g\n", err);
  EXPECT_LE(err, 1e-4);
  if (app.fp16) {
    const Image vk16 = run(true);
    Tensor a(DType::f32, {int64_t(cpu.pixels.size())}), b(DType::f32, {int64_t(cpu.pixels.size())});
    std::copy(cpu.pixels.begin(), cpu.pixels.end(), a.data<float>());
    std::copy(vk16.pixels.begin(), vk16.pixels.end(), b.data<float>());
    const double psnr = test::psnr_db(a, b);
    std::printf("external device fp16: PSNR vs cpu %.1f dB\n", psnr);
    EXPECT_GE(psnr, 55.0);
  }
  // The input buffers are untouched.
  for (size_t p = 0; p < size_t(W) * H; ++p) {
    float c0;
    std::memcpy(&c0, inputs.mapped + p * 16, 4);
    ASSERT_EQ(c0, ref.color.pixels[p * 3]);
  }
  for (const auto& m : app.messages()) ADD_FAILURE() << "validation: " << m;
}

TEST(VulkanExternalDevice, InPlaceWithSeveralTilesReadsTheOriginalPixels) {
  App app;
  if (!app.skip.empty()) GTEST_SKIP() << app.skip;
  const int W = 300, H = 40;
  AppBuffer image = app.make_buffer(size_t(W) * H * 12,
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  test::DenoiseInputs ref{Image(W, H, 3), {}, {}};
  Tensor noise = test::random_tensor({int64_t(W) * H * 3}, 5, 0.0f, 1.0f);
  for (size_t i = 0; i < size_t(W) * H * 3; ++i) {
    const float v = (0.6f + 0.3f * std::sin(0.05f * float(i / 3 % W))) * 2.0f * noise.data<float>()[i];
    ref.color.pixels[i] = v;
    std::memcpy(image.mapped + i * 4, &v, 4);
  }
  const auto blob = test::random_weights_blob(UNetVariant::small, 3, 6);
  const Image cpu = test::denoise_cpu(ref, blob, true);
  {
    volvox::DeviceRef device(app.desc(false));
    volvox::FilterRef filter(device);
    filter.set_vulkan_buffer("color", image.buffer, 0, VX_FORMAT_FLOAT3, W, H);
    filter.set_vulkan_buffer("output", image.buffer, 0, VX_FORMAT_FLOAT3, W, H);
    filter.set("hdr", true);
    filter.set("precision", 1);
    filter.set("maxTileSize", 208);  // two tiles side by side
    filter.set_weights(blob.data(), blob.size());
    filter.execute();
  }
  Image out(W, H, 3);
  std::memcpy(out.pixels.data(), image.mapped, out.pixels.size() * 4);
  EXPECT_LE(max_rel_diff(cpu, out), 1e-4);
  for (const auto& m : app.messages()) ADD_FAILURE() << "validation: " << m;
}

TEST(VulkanExternalDevice, ImportsMemoryTheApplicationExportsAsAnOpaqueFd) {
  App app;
  if (!app.skip.empty()) GTEST_SKIP() << app.skip;
  if (!app.export_fd) GTEST_SKIP() << "the Vulkan device has no VK_KHR_external_memory_fd";
  auto context = std::make_shared<const vk::VulkanContext>(vk::ContextOptions{});
  const std::shared_ptr<const runtime::ComputeDevice> volvox_device = vk::compute_device(context);
  if (!(volvox_device->external_memory_types() & runtime::kExternalMemoryOpaqueFd))
    GTEST_SKIP() << "Volvox's device cannot import opaque fds";
  const size_t count = 1000;
  AppBuffer shared = app.make_buffer(count * sizeof(float), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true);
  for (size_t i = 0; i < count; ++i) reinterpret_cast<float*>(shared.mapped)[i] = float(i) * 0.5f;
  const int fd = app.export_opaque_fd(shared);
  ASSERT_GE(fd, 0) << "vkGetMemoryFdKHR";
  const std::shared_ptr<runtime::Buffer> imported =
      volvox_device->import_buffer(runtime::kExternalMemoryOpaqueFd, fd, shared.size);  // owns fd now
  ASSERT_NE(imported, nullptr);
  std::vector<float> seen(count);
  imported->read(0, count * sizeof(float), seen.data());
  for (size_t i = 0; i < count; ++i) ASSERT_EQ(seen[i], float(i) * 0.5f) << "element " << i << " read through the import";
  std::vector<float> written(count);
  for (size_t i = 0; i < count; ++i) written[i] = -float(i);
  imported->write(0, count * sizeof(float), written.data());
  for (size_t i = 0; i < count; ++i)
    ASSERT_EQ(reinterpret_cast<const float*>(shared.mapped)[i], -float(i)) << "element " << i << " seen by the application";
  for (const auto& m : app.messages()) ADD_FAILURE() << "validation: " << m;
}

// A descriptor that is not open: one error naming it, no crash (the import duplicates the
// descriptor before each attempt, which fails for it).
TEST(VulkanExternalDevice, ImportOfABadFileDescriptorIsAnError) {
  std::shared_ptr<const vk::VulkanContext> context;
  try {
    context = std::make_shared<const vk::VulkanContext>(vk::ContextOptions{});
  } catch (const Error& e) {
    GTEST_SKIP() << "no Vulkan device: " << e.what();
  }
  const std::shared_ptr<const runtime::ComputeDevice> device = vk::compute_device(context);
  if (!(device->external_memory_types() & runtime::kExternalMemoryOpaqueFd))
    GTEST_SKIP() << "Volvox's device cannot import opaque fds";
  for (int fd : {-1, 1000000}) {
    try {
      device->import_buffer(runtime::kExternalMemoryOpaqueFd, fd, 4096);
      ADD_FAILURE() << "fd " << fd << " was imported";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("cannot be imported"), std::string::npos) << e.what();
    }
  }
}

TEST(VulkanExternalDevice, ModelReadsAndWritesTheApplicationsBuffers) {
  App app;
  if (!app.skip.empty()) GTEST_SKIP() << app.skip;
  const int64_t n = 1000;
  const size_t offset = 256;  // a multiple of every device's storage-buffer offset alignment
  const VkBufferUsageFlags usage =
      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  AppBuffer in = app.make_buffer(offset + n * 4, usage), out = app.make_buffer(offset + n * 4, usage);
  const Tensor x = test::random_tensor({n}, 91, -2.0f, 2.0f);
  std::memcpy(in.mapped + offset, x.raw(), x.nbytes());
  for (bool fp16 : {false, true}) {
    if (fp16 && !app.fp16) continue;
    SCOPED_TRACE(fp16 ? "fp16" : "fp32");
    std::memset(out.mapped, 0, out.size);
    {
      const VXVulkanDeviceDesc desc = app.desc(fp16);
      volvox::DeviceRef device(desc);
      const std::string bytes = test::sigmoid_exp_model();
      volvox::Model model(device, bytes.data(), bytes.size());
      model.set("precision", fp16 ? 2 : 1);
      model.set_input_vulkan_buffer("x", {n}, uint64_t(reinterpret_cast<uintptr_t>(in.buffer)), offset);
      model.set_output_vulkan_buffer("y", uint64_t(reinterpret_cast<uintptr_t>(out.buffer)), offset);
      model.execute();
      const volvox::Model::Output y = model.output("y");
      EXPECT_EQ(y.data, nullptr);
      EXPECT_EQ(y.shape, std::vector<int64_t>{n});
      float worst = 0;
      for (int64_t i = 0; i < n; ++i) {
        const float xi = fp16 ? half_to_float(float_to_half(x.data<float>()[i])) : x.data<float>()[i];
        const float s = 1.0f / (1.0f + std::exp(-xi)), want = s + std::exp(s);
        float got;
        std::memcpy(&got, out.mapped + offset + size_t(i) * 4, 4);
        worst = std::max(worst, std::fabs(got - want) / std::max(1.0f, std::fabs(want)));
      }
      EXPECT_LT(worst, fp16 ? 3e-3f : 1e-5f);
      // A bound output unbound again comes back through the host.
      model.set_output_vulkan_buffer("y", 0, 0);
      model.execute();
      EXPECT_NE(model.output("y").data, nullptr);
      // A value that is not an input: one line, no crash.
      EXPECT_THROW(model.set_input_vulkan_buffer("y", {n}, uint64_t(reinterpret_cast<uintptr_t>(in.buffer)), 0),
                   volvox::Exception);
    }
  }
  EXPECT_TRUE(app.messages().empty()) << app.messages().front();
}

TEST(VulkanExternalDevice, BadHandlesAndDevicelessBuffersAreErrors) {
  App app;
  if (!app.skip.empty()) GTEST_SKIP() << app.skip;
  VXVulkanDeviceDesc bad = app.desc(false);
  bad.queue_family = 99;
  EXPECT_EQ(vxNewVulkanDevice(&bad), nullptr);
  const char* message = nullptr;
  EXPECT_EQ(vxGetDeviceError(nullptr, &message), VX_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(message).find("queue family 99"), std::string::npos) << message;
  EXPECT_EQ(vxNewVulkanDevice(nullptr), nullptr);
  EXPECT_EQ(vxGetDeviceError(nullptr, nullptr), VX_ERROR_INVALID_ARGUMENT);

  // Buffers on a device that runs on the CPU: a clear Unsupported error at execute.
  AppBuffer b = app.make_buffer(16 * 16 * 12);
  const auto blob = test::random_weights_blob(UNetVariant::small, 3, 1);
  VXDevice cpu = vxNewDevice("cpu", 0);
  VXFilter f = vxNewFilter(cpu, "RT");
  vxSetFilterVulkanBuffer(f, "color", reinterpret_cast<uint64_t>(b.buffer), 0, VX_FORMAT_FLOAT3, 16, 16, 0, 0);
  vxSetFilterVulkanBuffer(f, "output", reinterpret_cast<uint64_t>(b.buffer), 0, VX_FORMAT_FLOAT3, 16, 16, 0, 0);
  vxSetFilterWeights(f, blob.data(), blob.size());
  vxExecuteFilter(f);
  EXPECT_EQ(vxGetDeviceError(cpu, &message), VX_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(message).find("device buffers"), std::string::npos) << message;
  vxSetFilterVulkanBuffer(f, "color", 0, 0, VX_FORMAT_FLOAT3, 16, 16, 0, 0);
  EXPECT_EQ(vxGetDeviceError(cpu, &message), VX_ERROR_INVALID_ARGUMENT);
  vxSetFilterFloat(f, "targetTileMs", -1.0f);
  EXPECT_EQ(vxGetDeviceError(cpu, &message), VX_ERROR_INVALID_ARGUMENT);
  vxSetFilterFloat(f, "targetTileMs", 16.0f);
  EXPECT_EQ(vxGetDeviceError(cpu, nullptr), VX_ERROR_NONE);
  vxReleaseFilter(f);
  vxReleaseDevice(cpu);

  // A misaligned offset on the Vulkan device: Unsupported, naming the image.
  volvox::DeviceRef device(app.desc(false));
  volvox::FilterRef filter(device);
  filter.set_vulkan_buffer("color", b.buffer, 2, VX_FORMAT_FLOAT3, 16, 15);
  filter.set_vulkan_buffer("output", b.buffer, 0, VX_FORMAT_FLOAT3, 16, 15);
  filter.set_weights(blob.data(), blob.size());
  try {
    filter.execute();
    FAIL() << "an offset of 2 bytes for float pixels";
  } catch (const volvox::Exception& e) {
    EXPECT_EQ(e.code(), VX_ERROR_UNSUPPORTED) << e.what();
    EXPECT_NE(std::string(e.what()).find("'color'"), std::string::npos) << e.what();
  }
  for (const auto& m : app.messages()) ADD_FAILURE() << "validation: " << m;
}

}  // namespace
}  // namespace vx

// Volvox C++ wrapper over the C API (header-only): RAII handles, exceptions on error.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "volvox/volvox.h"

namespace volvox {

class Exception : public std::runtime_error {
 public:
  Exception(VXError code, const std::string& message) : std::runtime_error(message), code_(code) {}
  VXError code() const { return code_; }

 private:
  VXError code_;
};

class DeviceRef {
 public:
  explicit DeviceRef(const char* kind = "auto", int threads = 0) : device_(vxNewDevice(kind, threads)) { check(); }
  // A renderer's own Vulkan device (see vxNewVulkanDevice for the rules).
  explicit DeviceRef(const VXVulkanDeviceDesc& vulkan) : device_(vxNewVulkanDevice(&vulkan)) { check(); }
#ifdef VK_VERSION_1_2
  DeviceRef(VkInstance instance, VkPhysicalDevice physical_device, VkDevice device, uint32_t queue_family,
            uint32_t queue_index, bool fp16_features_enabled = false)
      : DeviceRef(VXVulkanDeviceDesc{instance, physical_device, device, queue_family, queue_index,
                                     fp16_features_enabled}) {}
#endif
  ~DeviceRef() { vxReleaseDevice(device_); }
  DeviceRef(const DeviceRef&) = delete;
  DeviceRef& operator=(const DeviceRef&) = delete;
  VXDevice get() const { return device_; }
  // Throws the device's pending error, if any.
  void check() const {
    const char* message = nullptr;
    VXError e = vxGetDeviceError(device_, &message);
    if (e != VX_ERROR_NONE) throw Exception(e, message ? message : "volvox error");
  }

 private:
  VXDevice device_;
};

class FilterRef {
 public:
  FilterRef(const DeviceRef& device, const char* type = "RT") : device_(device), filter_(vxNewFilter(device.get(), type)) {
    device_.check();
  }
  ~FilterRef() { vxReleaseFilter(filter_); }
  FilterRef(const FilterRef&) = delete;
  FilterRef& operator=(const FilterRef&) = delete;

  void set_image(const char* name, void* ptr, VXFormat format, size_t w, size_t h, size_t pixel_stride = 0,
                 size_t row_stride = 0) {
    vxSetFilterImage(filter_, name, ptr, format, w, h, pixel_stride, row_stride);
    device_.check();
  }
  // An image in a VkBuffer of the device (see vxSetFilterVulkanBuffer for layout and synchronisation).
  void set_vulkan_buffer(const char* name, uint64_t buffer, size_t byte_offset, VXFormat format, size_t w, size_t h,
                         size_t pixel_stride = 0, size_t row_stride = 0) {
    vxSetFilterVulkanBuffer(filter_, name, buffer, byte_offset, format, w, h, pixel_stride, row_stride);
    device_.check();
  }
#if defined(VK_VERSION_1_0) && defined(VK_USE_64_BIT_PTR_DEFINES) && VK_USE_64_BIT_PTR_DEFINES == 1
  // (Where VkBuffer is a pointer type; elsewhere it is uint64_t and the overload above takes it.)
  void set_vulkan_buffer(const char* name, VkBuffer buffer, size_t byte_offset, VXFormat format, size_t w, size_t h,
                         size_t pixel_stride = 0, size_t row_stride = 0) {
    set_vulkan_buffer(name, (uint64_t)(buffer), byte_offset, format, w, h, pixel_stride, row_stride);
  }
#endif
  void unset_image(const char* name) { vxUnsetFilterImage(filter_, name), device_.check(); }
  void set_progress(VXProgressMonitorFunction fn, void* user_ptr) {
    vxSetFilterProgressMonitorFunction(filter_, fn, user_ptr), device_.check();
  }
  void set(const char* name, bool v) { vxSetFilterBool(filter_, name, v), device_.check(); }
  void set(const char* name, int v) { vxSetFilterInt(filter_, name, v), device_.check(); }
  void set(const char* name, float v) { vxSetFilterFloat(filter_, name, v), device_.check(); }
  void set_weights_file(const char* path) { vxSetFilterWeightsFile(filter_, path), device_.check(); }
  void set_weights(const void* blob, size_t size) { vxSetFilterWeights(filter_, blob, size), device_.check(); }
  void commit() { vxCommitFilter(filter_), device_.check(); }
  void execute() { vxExecuteFilter(filter_), device_.check(); }
  // A cut in an animation ("temporal" 1): the next execute starts a new history.
  void reset_history() { vxResetFilterHistory(filter_), device_.check(); }

 private:
  const DeviceRef& device_;
  VXFilter filter_;
};

// An ONNX model on a device: inputs by name, run, outputs by name.
//   volvox::DeviceRef device("vulkan");
//   volvox::Model model(device, "resnet50.onnx");
//   model.set_input("input", image.data(), {1, 3, 224, 224});
//   model.execute();
//   volvox::Model::Output logits = model.output("logits");  // logits.as<float>()[i]
class Model {
 public:
  struct Output {
    VXDataType type = VX_TYPE_FLOAT32;
    std::vector<int64_t> shape;
    const void* data = nullptr;  // valid until the next execute
    template <class T>
    const T* as() const { return static_cast<const T*>(data); }
    int64_t size() const {
      int64_t n = 1;
      for (int64_t d : shape) n *= d;
      return n;
    }
  };

  Model(const DeviceRef& device, const char* path) : device_(device), model_(vxNewModel(device.get(), path)) {
    device_.check();
  }
  Model(const DeviceRef& device, const void* data, size_t size)
      : device_(device), model_(vxNewModelFromMemory(device.get(), data, size)) {
    device_.check();
  }
  ~Model() { vxReleaseModel(model_); }
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  std::vector<std::string> input_names() const {
    std::vector<std::string> names;
    for (size_t i = 0; i < vxGetModelInputCount(model_); ++i) names.push_back(vxGetModelInputName(model_, i));
    return names;
  }
  std::vector<std::string> output_names() const {
    std::vector<std::string> names;
    for (size_t i = 0; i < vxGetModelOutputCount(model_); ++i) names.push_back(vxGetModelOutputName(model_, i));
    return names;
  }
  void set(const char* name, int value) { vxSetModelInt(model_, name, value), device_.check(); }
  void set_input(const char* name, VXDataType type, const std::vector<int64_t>& shape, const void* data) {
    vxSetModelInput(model_, name, type, shape.data(), shape.size(), data);
    device_.check();
  }
  void set_input(const char* name, const float* data, const std::vector<int64_t>& shape) {
    set_input(name, VX_TYPE_FLOAT32, shape, data);
  }
  // IO binding on a device made from the application's VkDevice (model.h): float32 values in its
  // VkBuffers (as uint64_t); buffer 0 unbinds an output.
  void set_input_vulkan_buffer(const char* name, const std::vector<int64_t>& shape, uint64_t buffer, size_t byte_offset) {
    vxSetModelInputVulkanBuffer(model_, name, shape.data(), shape.size(), buffer, byte_offset);
    device_.check();
  }
  void set_output_vulkan_buffer(const char* name, uint64_t buffer, size_t byte_offset) {
    vxSetModelOutputVulkanBuffer(model_, name, buffer, byte_offset);
    device_.check();
  }
  void execute() { vxExecuteModel(model_), device_.check(); }
  Output output(const char* name) const {
    Output out;
    const int64_t* shape = nullptr;
    size_t rank = 0;
    vxGetModelOutput(model_, name, &out.type, &shape, &rank, &out.data);
    device_.check();
    out.shape.assign(shape, shape + rank);
    return out;
  }

 private:
  const DeviceRef& device_;
  VXModel model_;
};

}  // namespace volvox

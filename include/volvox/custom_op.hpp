// Custom ONNX ops (C++): add an op type (in your own domain) with its output shapes, a CPU kernel and
// optionally a Vulkan kernel (your SPIR-V); models using it then load and run like any other.
//
//   volvox::CustomOp op;
//   op.domain = "com.example";
//   op.op_type = "ScaledSwish";
//   op.infer_outputs = [](const auto& inputs, const auto&) { return std::vector{inputs[0]}; };
//   op.cpu = [](const auto& in, const auto& out, const volvox::OpAttributes& attrs) { ... };
//   op.vulkan.spirv = read_spirv("scaled_swish.spv");
//   op.vulkan.launch = [](const auto& in, const auto& out, const auto& attrs) { ... };
//   volvox::register_custom_op(op);
//
// Vulkan kernel contract: one compute dispatch; storage buffers at set 0, bindings 0..n-1 = the
// inputs in order, then the outputs; each tensor dense row-major; floats as float32 (or float16
// when the model runs at fp16 precision and `supports_fp16`), every integer and bool type as int32;
// push constants (<= 128 bytes) and the workgroup count come from `launch`.
// Registration is global to the process and not thread-safe against running models: register at
// start-up. This header is C++ only (its types are not part of the C ABI).
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "volvox/volvox.hpp"

namespace volvox {

struct TensorInfo {
  VXDataType type = VX_TYPE_FLOAT32;
  std::vector<int64_t> shape;
};

struct TensorRef {
  VXDataType type = VX_TYPE_FLOAT32;
  std::vector<int64_t> shape;
  void* data = nullptr;
  int64_t size() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  template <class T>
  T* as() const { return static_cast<T*>(data); }
};

// The node's attributes (read-only; valid during the call that receives it).
class OpAttributes {
 public:
  explicit OpAttributes(const void* impl) : impl_(impl) {}
  bool has(const std::string& name) const;
  int64_t get_int(const std::string& name, int64_t fallback) const;
  float get_float(const std::string& name, float fallback) const;
  std::string get_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> get_ints(const std::string& name, const std::vector<int64_t>& fallback) const;
  std::vector<float> get_floats(const std::string& name, const std::vector<float>& fallback) const;

 private:
  const void* impl_;
};

struct VulkanLaunch {
  std::vector<uint8_t> push_constants;  // <= 128 bytes
  std::array<uint32_t, 3> groups{1, 1, 1};
};

struct CustomVulkanKernel {
  std::vector<uint32_t> spirv;  // empty: the op runs on the CPU on every device
  bool supports_fp16 = false;   // the SPIR-V reads and writes float16 storage at fp16 precision
  std::function<VulkanLaunch(const std::vector<TensorInfo>& inputs, const std::vector<TensorInfo>& outputs,
                             const OpAttributes& attributes)>
      launch;
};

struct CustomOp {
  std::string domain;   // not "" or "ai.onnx": custom ops live in their own domain
  std::string op_type;
  // Output types and shapes from the inputs' (called when the model is planned for input shapes).
  std::function<std::vector<TensorInfo>(const std::vector<TensorInfo>& inputs, const OpAttributes& attributes)>
      infer_outputs;
  // Computes the outputs (already allocated with the inferred shapes) from the inputs.
  std::function<void(const std::vector<TensorRef>& inputs, const std::vector<TensorRef>& outputs,
                     const OpAttributes& attributes)>
      cpu;
  CustomVulkanKernel vulkan;
};

// Throws volvox::Exception (VX_ERROR_INVALID_ARGUMENT) for an incomplete definition, a reserved
// domain, SPIR-V that is not SPIR-V, or an op already registered.
void register_custom_op(const CustomOp& op);

}  // namespace volvox

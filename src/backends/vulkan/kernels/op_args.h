// Helpers the data-movement and reduction Vulkan ops share when they read a node: axes, integer
// operands that must be graph constants, the shader variant for a storage type, and declining.
// (Namespace vx::vk::opargs keeps them apart from other op families' helpers.)
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backends/vulkan/kernels/op_kernel.h"

namespace vx::vk::opargs {

// "Op 'name'" for messages.
std::string label(const OpInfo& info);

// Throws vx::Error(Unsupported) "<Op 'name'>: <why>": the executor runs the node on the CPU.
[[noreturn]] void decline(const OpInfo& info, const std::string& why);

// An ONNX axis in [-rank, rank) mapped onto [0, rank); InvalidArgument otherwise.
int64_t normalize_axis(const OpInfo& info, int64_t axis, int64_t rank);

// The elements of an integer tensor as int64 (int64 read exactly, so INT64_MAX slice ends survive).
std::vector<int64_t> tensor_ints(const Tensor& t);
std::vector<double> tensor_doubles(const Tensor& t);

// The values of input `i` when it is a graph constant; declines (naming `what`) when it is computed
// at run time; nullopt when the optional input is omitted.
std::optional<std::vector<int64_t>> constant_ints(const OpInfo& info, size_t i, const std::string& what);
std::optional<std::vector<double>> constant_doubles(const OpInfo& info, size_t i, const std::string& what);

// The binding of an integer index tensor (input `input`) that a shader reads as int32: when it is a
// graph constant, a blob of its values range-checked against extent_at(element) (InvalidArgument)
// and made non-negative, added to `plan`; else the input itself (the shader clamps).
Binding index_tensor_binding(const OpInfo& info, OpPlan& plan, size_t input,
                             const std::function<int64_t(size_t)>& extent_at);

// "stem" for 32-bit storage (f32 and i32 share it when a shader only moves bits), "stem.f16".
std::string move_shader(const std::string& stem, DeviceType t);
// "stem" (f32), "stem.f16" or "stem.i32" for shaders that compute.
std::string typed_shader(const std::string& stem, DeviceType t);

// Declines unless `count` elements fit the shaders' 32-bit signed indexing.
void require_int32_elements(const OpInfo& info, int64_t count);

// Row-major strides in elements.
std::vector<int64_t> dense_strides(const std::vector<int64_t>& dims);
int64_t product(const std::vector<int64_t>& dims, size_t begin, size_t end);

}  // namespace vx::vk::opargs

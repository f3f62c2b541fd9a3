// The one helper set every Vulkan op plan uses when it reads its node: labels and declining,
// axes, integer operands that must be graph constants, the 32-bit index check, shader variant
// names by storage type, float storage and constant packing, and the one-dispatch builder.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends/vulkan/kernels/op_kernel.h"
#include "core/error.h"

namespace vx::vk {

// The rank up to which the index-walking shaders (element-wise, gather, scatter, pad, strided
// copy, cumsum, resize) unroll their loops; plans of higher rank merge axes or decline.
constexpr int kMaxRank = 6;

// "Op 'name'" for messages.
std::string label(const OpInfo& info);

// Throws vx::Error(Unsupported) "<Op 'name'>: <reason...>": the executor runs the node on the CPU.
template <class... Args>
[[noreturn]] void decline(const OpInfo& info, Args&&... reason) {
  fail(ErrorCode::Unsupported, cat(label(info), ": ", std::forward<Args>(reason)...));
}

// InvalidArgument unless inputs 0..n-1 are present and the node has an output.
void require_inputs(const OpInfo& info, size_t n);

inline bool is_float(DType t) { return t == DType::f32 || t == DType::f16; }

// An ONNX axis in [-rank, rank) mapped onto [0, rank); InvalidArgument otherwise.
int64_t normalize_axis(const OpInfo& info, int64_t axis, int64_t rank);

// `count` as the shaders' 32-bit index; declines when `what` has more elements than int32 reaches.
uint32_t checked_count32(const OpInfo& info, int64_t count, const char* what = "the tensor");

// The elements of an integer tensor as int64 (int64 read exactly, so INT64_MAX slice ends survive).
std::vector<int64_t> tensor_ints(const Tensor& t);
std::vector<double> tensor_doubles(const Tensor& t);

// The values of input `i` when it is a graph constant; declines (naming `what`) when it is computed
// at run time; nullopt when the optional input is omitted.
std::optional<std::vector<int64_t>> constant_ints(const OpInfo& info, size_t i, const std::string& what);
std::optional<std::vector<double>> constant_doubles(const OpInfo& info, size_t i, const std::string& what);
// As constant_ints, for an input that must be present (declines when it is omitted).
std::vector<int64_t> required_constant_ints(const OpInfo& info, size_t i, const std::string& what);

// A constant index into an axis of `extent` elements, made non-negative; InvalidArgument outside
// [-extent, extent), as the CPU kernels say it.
int64_t checked_constant_index(const OpInfo& info, int64_t index, int64_t extent);

// The binding of an integer index tensor (input `input`) that a shader reads as int32: when it is a
// graph constant, a blob of its values range-checked against extent_at(element) (InvalidArgument)
// and made non-negative, added to `plan`; else the input itself (the shader clamps).
Binding index_tensor_binding(const OpInfo& info, OpPlan& plan, size_t input,
                             const std::function<int64_t(size_t)>& extent_at);

// Shader variant names (docs/ARCHITECTURE.md, "Names"): "stem.<types>[_<feature>]", <types> the
// element type of each typed tensor role in the order the shader's VARIANT lines document (inputs,
// then the output), spelled f32 / f16 / i32 and joined by '_': "eltwise_binary.f16_f16_i32".
const char* type_name(DeviceType t);
std::string shader_variant(std::string_view stem, std::initializer_list<DeviceType> types,
                           std::string_view feature = {});
// The variant of a shader that only moves elements: "stem.f16", or "stem.b32" for every 32-bit type
// (f32 and i32 tensors share its raw 32-bit words).
std::string move_variant(std::string_view stem, DeviceType t, std::string_view feature = {});

// The device storage type of the node's float tensors (f32 or f16); declines when input `i` is not
// an f32/f16 tensor.
DeviceType float_storage(const OpInfo& info, size_t input = 0);

// The values of a float constant (f32 or f16) as f32, in its row-major order.
std::vector<float> constant_values(const Tensor& t);
// Bytes of `values` in the storage type.
std::vector<uint8_t> pack(const std::vector<float>& values, DeviceType storage);

// Workgroups for one invocation per element (256 per workgroup), declining past the device limits.
std::array<uint32_t, 3> element_groups(const OpInfo& info, int64_t count);

// The product of dims[begin, end) (core/shape.h: extents_product).
int64_t product(const std::vector<int64_t>& dims, size_t begin, size_t end);
inline int64_t product(const Shape& s, size_t begin, size_t end) { return product(s.dims(), begin, end); }

// One dispatch of `shader` over `invocations` (256 per workgroup, linear_groups' layout).
template <class Push>
Dispatch make_dispatch(std::string shader, std::vector<Binding> bindings, const Push& push, uint64_t invocations) {
  Dispatch d;
  d.shader = std::move(shader);
  d.bindings = std::move(bindings);
  d.set_push(push);
  d.groups = linear_groups(invocations);
  return d;
}

}  // namespace vx::vk

// Host tensors <-> the Vulkan backend's device storage (kernels/op_kernel.h): floats as f32 or
// f16, every integer and bool as int32. Large float conversions and copies are spread over the
// global pool.
#pragma once
#include <cstdint>

#include "backends/vulkan/kernels/op_kernel.h"
#include "core/tensor.h"

namespace vx::vk {

// Writes `t` as `type` elements to `dst` (t.numel() of them). int64 values beyond int32 are
// clamped (they occur as "to the end" sentinels such as Slice's INT64_MAX).
void to_device(const Tensor& t, DeviceType type, uint8_t* dst);
// Reads `type` elements from `src` into a new host tensor of `dtype` and `shape`.
Tensor from_device(const uint8_t* src, DeviceType type, DType dtype, const Shape& shape);

}  // namespace vx::vk

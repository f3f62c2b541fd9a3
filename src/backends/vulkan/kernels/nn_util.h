// Helpers shared by the Vulkan plans of ONNX's math ops (MatMul, Gemm, Conv, ConvTranspose,
// pooling, normalisations; shaders/nn_*.comp): the storage type of float tensors, packing constant
// tensors into blobs of that type and sliding-window geometry as specialization constants (the
// helpers of every op, labels and declining, are op_args.h).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/vulkan/kernels/op_args.h"
#include "core/error.h"
#include "ops/window_geometry.h"

namespace vx::vk::nn {

// The device storage type of the node's float tensors (f32 or f16); declines when input `i` is not
// an f32/f16 tensor.
DeviceType float_storage(const OpInfo& info, size_t input = 0);

// The values of a float constant (f32 or f16) as f32, in its row-major order.
std::vector<float> constant_values(const Tensor& t);
// Bytes of `values` in the storage type.
std::vector<uint8_t> pack(const std::vector<float>& values, DeviceType storage);

// A 1-D to 3-D window padded to three spatial axes (z, y, x): leading axes get extent 1 and pad 0.
struct Window3 {
  std::array<int32_t, 3> in{1, 1, 1}, kernel{1, 1, 1}, stride{1, 1, 1}, dilation{1, 1, 1}, pad_begin{0, 0, 0},
      pad_end{0, 0, 0}, out{1, 1, 1};
  // in, kernel, stride, dilation, pad_begin, out: 18 values (shaders/window_geometry.glsl order).
  std::vector<int32_t> spec_constants() const;
  int64_t in_size() const { return int64_t(in[0]) * in[1] * in[2]; }
  int64_t out_size() const { return int64_t(out[0]) * out[1] * out[2]; }
  int64_t kernel_size() const { return int64_t(kernel[0]) * kernel[1] * kernel[2]; }
};
Window3 window3(const WindowGeometry& g, const std::vector<int64_t>& input);

// Workgroups for one invocation per element (256 per workgroup), declining past the device limits.
std::array<uint32_t, 3> element_groups(const OpInfo& info, int64_t count);

}  // namespace vx::vk::nn

namespace vx::vk::nn {

enum class PoolMode { max = 0, average = 1, lp = 2 };
// Appends one pool dispatch: `planes` (N * C) planes of window `w` from `x` to `y`; with
// `indices` (max only), also MaxPool's Indices as int32 (storage_order 0 row-major, 1 column-major).
void add_pool_dispatch(OpPlan& plan, const OpInfo& info, Binding x, Binding y, const Window3& w, int64_t planes,
                       PoolMode mode, bool count_include_pad, int p, DeviceType storage,
                       const Binding* indices = nullptr, int storage_order = 0);

}  // namespace vx::vk::nn

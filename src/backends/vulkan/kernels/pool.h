// The pooling dispatch of pool.cpp, which the fused conv's 2x2 max pool (conv.cpp) appends too.
#pragma once
#include <cstdint>

#include "backends/vulkan/kernels/op_args.h"
#include "backends/vulkan/kernels/window3.h"

namespace vx::vk {

enum class PoolMode { max = 0, average = 1, lp = 2 };
// Appends one pool dispatch: `planes` (N * C) planes of window `w` from `x` to `y`; with
// `indices` (max only), also MaxPool's Indices as int32 (storage_order 0 row-major, 1 column-major).
void add_pool_dispatch(OpPlan& plan, const OpInfo& info, Binding x, Binding y, const Window3& w, int64_t planes,
                       PoolMode mode, bool count_include_pad, int p, DeviceType storage,
                       const Binding* indices = nullptr, int storage_order = 0);

}  // namespace vx::vk

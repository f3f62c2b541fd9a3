// The pooling dispatches of pool.cpp, which the fused conv's 2x2 max pool and global mean (conv.cpp)
// append too.
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
// Appends one global pool dispatch (shaders/row_stats.comp): per row of `cols` values of `x`, its
// mean (mode 1), max (2) or Lp norm (3, power p) into `y`.
void add_global_pool_dispatch(OpPlan& plan, Binding x, Binding y, int64_t rows, int64_t cols, int mode, int p,
                              DeviceType storage);

}  // namespace vx::vk

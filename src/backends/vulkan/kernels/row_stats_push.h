// The push constants of row_stats.comp, the per-row statistics kernel that LayerNormalization and
// InstanceNormalization (norm.cpp), vx.LayerNorm's fallback (layer_norm.cpp) and the global pools
// (pool.cpp) dispatch.
#pragma once
#include <cstdint>

namespace vx::vk {

struct RowStatsPush {
  int32_t rows, cols, channels;
  float eps;
  int32_t flags;  // 1: scale, 2: bias, 4: write mean and inv std dev
};

}  // namespace vx::vk

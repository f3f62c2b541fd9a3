// The LayerNorm dispatch of vx.LayerNorm (layer_norm.cpp) and of a vx.FusedMatMul that normalises
// its rows but whose product is not split over K (gemm_plan.cpp).
#pragma once
#include <string>

#include "backends/vulkan/kernels/op_args.h"

namespace vx::vk {

// y = (x - mean) / sqrt(var + eps) * scale (+ bias) over `rows` contiguous rows of `cols` values;
// without a bias, pass has_bias false (the binding is then unread). Appends one dispatch and returns
// its variant: "subgroup" (shaders/layer_norm.comp) where the device has subgroup arithmetic, else
// "reduce" (row_stats.comp).
std::string add_layer_norm(OpPlan& plan, const OpInfo& info, DeviceType storage, Binding x, Binding scale, bool has_bias,
                           Binding bias, Binding y, int64_t rows, int64_t cols, float eps);

}  // namespace vx::vk

// Cutting a tensor into its slices along one axis and stacking slices back: how Loop and Scan pass
// per-iteration values to and from their bodies.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace vx {

// Element `index` of axis `axis`: the tensor without that axis (a copy).
Tensor slice_at(const Tensor& t, size_t axis, int64_t index);

// The parts (one dtype and shape) stacked along a new axis `axis` (0 .. rank), part i at position
// i, or at parts.size() - 1 - i when `reverse`. InvalidArgument names `what` when a part differs.
Tensor stack_along(const std::vector<Tensor>& parts, size_t axis, bool reverse, const char* what);

}  // namespace vx

// vx.Excite's extents (ops/fused_ops.h) from its operands' shapes, checked against each other: the
// one reading of them the CPU reference kernel and the Vulkan plan share.
#pragma once
#include <cstdint>
#include <string>

#include "core/shape.h"

namespace vx {

struct ExciteExtents {
  int64_t batch = 0, channels = 0, pixels = 0, squeezed = 0;  // N, C, the product of X's spatial axes, Rd
};

// InvalidArgument naming `what` unless X has rank >= 3, P is [N, C, 1...], W1 [Rd, C, 1...], W2
// [C, Rd, 1...], B1 (when given) Rd values, B2 C values and R (when given) X's shape.
ExciteExtents excite_extents(const Shape& x, const Shape& p, const Shape& w1, const Shape* b1, const Shape& w2,
                             const Shape* b2, const Shape* residual, const std::string& what);

}  // namespace vx

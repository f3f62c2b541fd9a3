// Einsum's equation (NumPy semantics) resolved against its operands' shapes, for the kernels that
// run it as one generic contraction: every label (a letter, or one axis of an ellipsis) gets an
// extent and, per operand, a stride, and each output element is the product of the operands summed
// over the labels the output lacks. Repeated labels in one operand walk diagonals, ellipses
// broadcast right-aligned, and the implicit output (no "->") is the ellipsis axes, then the
// letters seen once, sorted. The CPU reference and the Vulkan kernel both read it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/shape.h"

namespace vx {

// Label ids: a letter is its char code; axis k of the broadcast ellipsis is kEinsumEllipsis + k.
inline constexpr int kEinsumEllipsis = 1000;

struct EinsumEquation {
  std::vector<int> labels;       // the output's labels in order, then the summed ones
  size_t output_rank = 0;        // how many of `labels` the output has
  std::vector<int64_t> extents;  // per label
  // Per operand, per label: its element stride in the row-major operand, summed over the axes the
  // label names there (diagonals); 0 where the operand lacks the label or broadcasts along it.
  std::vector<std::vector<int64_t>> strides;

  Shape output_shape() const;
  int64_t summed_count() const;  // the product of the summed labels' extents
};

// Spaces in `equation` are ignored. Throws InvalidArgument, its message prefixed by `what`, for a
// malformed equation, an operand count or rank that does not fit it, or label extents that
// disagree (only ellipsis axes broadcast).
EinsumEquation parse_einsum_equation(const std::string& equation, const std::vector<Shape>& operands,
                                     const std::string& what);

}  // namespace vx

// The loops of an element-wise walk over several operands at once, as few as the operands allow:
// extent-1 axes dropped, and an axis merged into the one before it where every operand continues
// it (the previous axis's stride is this extent times this stride; operands that hold still, with
// strides 0, continue too). Shared by the strided copy (one operand), the binary ops (two) and
// Where (three).
#pragma once
#include <cstdint>
#include <vector>

namespace vx::cpu::fast {

struct MergedAxes {
  std::vector<int64_t> dims;                  // extents; empty for a single element
  std::vector<std::vector<int64_t>> strides;  // per operand, one element stride per axis of dims
};

// `strides[k]` holds operand k's element strides, one per entry of `dims`.
inline MergedAxes merge_axes(const std::vector<int64_t>& dims, const std::vector<std::vector<int64_t>>& strides) {
  MergedAxes m;
  m.strides.resize(strides.size());
  for (size_t a = 0; a < dims.size(); ++a) {
    if (dims[a] == 1) continue;  // no loop: its strides never matter
    bool continues = !m.dims.empty();
    for (size_t k = 0; k < strides.size() && continues; ++k) continues = m.strides[k].back() == strides[k][a] * dims[a];
    if (continues) m.dims.back() *= dims[a];
    else m.dims.push_back(dims[a]);
    for (size_t k = 0; k < strides.size(); ++k) {
      if (continues) m.strides[k].back() = strides[k][a];
      else m.strides[k].push_back(strides[k][a]);
    }
  }
  return m;
}

}  // namespace vx::cpu::fast

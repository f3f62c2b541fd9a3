// Four floats as one SSE register (GCC / Clang vector extension), for the fast kernels that keep
// partial results in registers (global_pool.cpp, pool.cpp): g++ does not vectorise a float max loop
// without -ffast-math, as it may not reorder a max that must keep NaN and -0 rules.
#pragma once
#include <cstring>

namespace vx::cpu::fast {

using Float4 = float __attribute__((vector_size(16)));

// Four floats from p, any alignment.
inline Float4 load4(const float* p) {
  Float4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace vx::cpu::fast

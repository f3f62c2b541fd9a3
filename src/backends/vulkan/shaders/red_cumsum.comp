#version 450
// VARIANT f16 -DFP16=1
// VARIANT i32 -DI32=1
// CumSum along one axis: one invocation per row (outer, inner position) scans its n elements
// `inner` apart in order (reversed with reverse=1; excluding the current element with exclusive=1),
// accumulating in fp32 (int for I32) like the CPU reference.
#include "mv_common.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params { int rows, n, inner, exclusive, reverse; } p;
layout(std430, binding = 0) readonly buffer Src { elem_t src[]; };
layout(std430, binding = 1) writeonly buffer Dst { elem_t dst[]; };

void main() {
  int row = global_index();
  if (row >= p.rows) return;
  int base = (row / p.inner) * p.n * p.inner + row % p.inner;
  acc_t acc = acc_t(0);
  for (int j = 0; j < p.n; ++j) {
    int at = base + (p.reverse != 0 ? p.n - 1 - j : j) * p.inner;
    acc_t v = acc_t(src[at]);
    if (p.exclusive != 0) {
      dst[at] = elem_t(acc);
      acc += v;
    } else {
      acc += v;
      dst[at] = elem_t(acc);
    }
  }
}

#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT i32 -DTX=2
// VARIANT f32_axis_input -DTX=0 -DAXIS_INPUT=1
// VARIANT f16_axis_input -DTX=1 -DAXIS_INPUT=1
// VARIANT i32_axis_input -DTX=2 -DAXIS_INPUT=1
// CumSum along one axis: one invocation per row (outer, inner position) scans its n elements
// `inner` apart in order (reversed with reverse=1; excluding the current element with exclusive=1),
// accumulating in fp32 (int for i32) like the CPU reference. AXIS_INPUT: the axis is read from a
// device tensor (computed at run time; negative counts from the end, out of range is clamped), and
// rows, n and inner follow from the extents; `rows` is then the element count (an upper bound).
#include "element_types.glsl"
#include "tensor_index.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params {
  int rows, n, inner, exclusive, reverse, rank;
  int dims[kMaxRank];
} p;
layout(std430, binding = 0) readonly buffer Src { elem_t src[]; };
layout(std430, binding = 1) writeonly buffer Dst { elem_t dst[]; };
#if AXIS_INPUT
layout(std430, binding = 2) readonly buffer Axis { int axis_value[]; };
#endif

void main() {
  int row = global_index();
  int rows = p.rows, n = p.n, inner = p.inner;
#if AXIS_INPUT
  int axis = axis_value[0];
  if (axis < 0) axis += p.rank;
  axis = clamp(axis, 0, p.rank - 1);
  n = p.dims[axis];
  inner = 1;
  for (int k = axis + 1; k < p.rank; ++k) inner *= p.dims[k];
  if (n == 0) return;
  rows = p.rows / n;
#endif
  if (row >= rows) return;
  int base = (row / inner) * n * inner + row % inner;
  acc_t acc = acc_t(0);
  for (int j = 0; j < n; ++j) {
    int at = base + (p.reverse != 0 ? n - 1 - j : j) * inner;
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

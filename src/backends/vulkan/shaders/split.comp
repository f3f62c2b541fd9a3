#version 450
// NO_DEFAULT_VARIANT
// VARIANT b32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT b32_vec4 -DTX=0 -DVEC4=1
// VARIANT f16_vec4 -DTX=1 -DVEC4=1
// Split in one dispatch (instead of one strided copy per output): the input seen as
// [outer, axis, inner]; element (o, a, i) goes to output j, the one whose range off[j] <= a <
// off[j + 1] holds a, at (o, a - off[j], i). Up to 7 outputs (bindings 1..7; unused ones alias
// output 0 and are never written). VEC4 variants move groups of 4 elements (movement.cpp divides
// the extents when inner, or every range along a last axis, is a multiple of 4).
#include "element_types.glsl"
#include "tensor_index.glsl"
#if VEC4
#undef move_t
#if TX == 1
#define move_t uvec2
#else
#define move_t uvec4
#endif
#endif

layout(local_size_x = 256) in;
// Matches SplitPush in movement.cpp.
layout(push_constant) uniform Params {
  int count, axis, inner, outputs;
  int off[8];
} p;
layout(std430, binding = 0) readonly buffer Src { move_t src[]; };
layout(std430, binding = 1) writeonly buffer Dst0 { move_t dst0[]; };
layout(std430, binding = 2) writeonly buffer Dst1 { move_t dst1[]; };
layout(std430, binding = 3) writeonly buffer Dst2 { move_t dst2[]; };
layout(std430, binding = 4) writeonly buffer Dst3 { move_t dst3[]; };
layout(std430, binding = 5) writeonly buffer Dst4 { move_t dst4[]; };
layout(std430, binding = 6) writeonly buffer Dst5 { move_t dst5[]; };
layout(std430, binding = 7) writeonly buffer Dst6 { move_t dst6[]; };

void main() {
  int i = global_index();
  if (i >= p.count) return;
  int in_axis = i / p.inner, inner = i - in_axis * p.inner;
  int o = in_axis / p.axis, a = in_axis - o * p.axis;
  int j = 0;
  while (j + 1 < p.outputs && a >= p.off[j + 1]) ++j;
  int len = p.off[j + 1] - p.off[j];
  int d = (o * len + a - p.off[j]) * p.inner + inner;
  move_t v = src[i];
  switch (j) {
    case 0: dst0[d] = v; break;
    case 1: dst1[d] = v; break;
    case 2: dst2[d] = v; break;
    case 3: dst3[d] = v; break;
    case 4: dst4[d] = v; break;
    case 5: dst5[d] = v; break;
    case 6: dst6[d] = v; break;
  }
}

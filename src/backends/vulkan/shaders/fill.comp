#version 450
// NO_DEFAULT_VARIANT
// VARIANT b32 -DTX=0
// VARIANT f16 -DTX=1
// Fills the output with one value (its bits: a float for float storage, an int for int32).
#include "element_types.glsl"
#include "tensor_index.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params { int count; uint bits; } p;
layout(std430, binding = 0) writeonly buffer Dst { move_t dst[]; };

void main() {
  int i = global_index();
  if (i >= p.count) return;
#if TX == 1
  dst[i] = float16_t(uintBitsToFloat(p.bits));
#else
  dst[i] = p.bits;
#endif
}

#version 450
// NO_DEFAULT_VARIANT
// VARIANT b32
// VARIANT f16 -DFP16=1
// Fills the output with one value (its bits: a float for float storage, an int for int32).
#include "mv_common.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params { int count; uint bits; } p;
layout(std430, binding = 0) writeonly buffer Dst { move_t dst[]; };

void main() {
  int i = global_index();
  if (i >= p.count) return;
#if FP16
  dst[i] = float16_t(uintBitsToFloat(p.bits));
#else
  dst[i] = p.bits;
#endif
}

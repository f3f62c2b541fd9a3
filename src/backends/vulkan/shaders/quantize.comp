#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// Linear (de)quantization; integers (int8 / uint8 / int32 values) live as int32 on the device.
// (x / s is quotient(): correctly rounded, float_division.glsl.)
//   mode 0 QuantizeLinear:   y_int = clamp(roundEven(x / scale) + zero, lo, hi)
//   mode 1 DequantizeLinear: y = (x_int - zero) * scale
//   mode 2 DynamicQuantizeLinear statistics (one workgroup): scale = (max(x, 0) - min(x, 0)) / 255
//          and zero = clamp(roundEven(-min / scale), 0, 255) into stats[0..1] and outputs 1, 2
//   mode 3 DynamicQuantizeLinear values from stats
// Scale and zero point are scalars or per-axis (index (i / inner) % params).
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"
#include "float_division.glsl"

layout(std430, binding = 0) readonly buffer XF { elem_t x_float[]; };
layout(std430, binding = 1) readonly buffer XI { int x_int[]; };
layout(std430, binding = 2) buffer S { elem_t scale[]; };
layout(std430, binding = 3) buffer Z { int zero[]; };
layout(std430, binding = 4) writeonly buffer YF { elem_t y_float[]; };
layout(std430, binding = 5) writeonly buffer YI { int y_int[]; };
layout(std430, binding = 6) buffer Stats { float stats[]; };

// Matches QuantPush in quantize.cpp.
layout(push_constant) uniform Push {
  uint count;
  int mode;
  uint params;  // 1: scalar scale / zero point
  uint inner;
  int has_zero;
  int lo;
  int hi;
} p;

shared float lo_part[256];
shared float hi_part[256];

int saturate(float v) {
  if (v >= float(p.hi)) return p.hi;  // also int32's upper end, which float cannot hold exactly
  if (v <= float(p.lo)) return p.lo;
  return int(v);
}

void main() {
  if (p.mode == 2) {
    uint t = gl_LocalInvocationID.x;
    float lo = 0.0, hi = 0.0;  // the range always includes 0
    for (uint i = t; i < p.count; i += 256u) {
      float v = float(x_float[i]);
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    lo_part[t] = lo;
    hi_part[t] = hi;
    barrier();
    for (uint half_size = 128u; half_size > 0u; half_size >>= 1) {
      if (t < half_size) {
        lo_part[t] = min(lo_part[t], lo_part[t + half_size]);
        hi_part[t] = max(hi_part[t], hi_part[t + half_size]);
      }
      barrier();
    }
    if (t == 0u) {
      float s = (hi_part[0] - lo_part[0]) / 255.0;
      float z = s == 0.0 ? 0.0 : clamp(roundEven(quotient(0.0 - lo_part[0], s)), 0.0, 255.0);
      stats[0] = s;
      stats[1] = z;
      scale[0] = elem_t(s);
      zero[0] = int(z);
    }
    return;
  }
  uint i = linear_index();
  if (i >= p.count) return;
  if (p.mode == 3) {
    float s = stats[0], z = stats[1];
    y_int[i] = int(s == 0.0 ? z : clamp(roundEven(quotient(float(x_float[i]), s)) + z, 0.0, 255.0));
    return;
  }
  uint at = p.params == 1u ? 0u : (i / p.inner) % p.params;
  int zp = p.has_zero != 0 ? zero[at] : 0;
  if (p.mode == 0) {
    y_int[i] = saturate(roundEven(quotient(float(x_float[i]), float(scale[at]))) + float(zp));
  } else {
    y_float[i] = elem_t(float(x_int[i] - zp) * float(scale[at]));
  }
}

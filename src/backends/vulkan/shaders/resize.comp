#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT i32 -DTX=2
// Resize / Upsample as a separable filter: every resized axis has, per output index, `taps`
// (input index, weight) pairs planned on the host (any mode: nearest, linear, cubic; any
// coordinate transformation); an output element sums weight products over the taps of its
// resized axes. Index -1 in a tap table marks tf_crop_and_resize's outside (extrapolation value).
// Axes with table offset -1 map 1:1. Nearest (taps == 1) copies the element exactly.
#include "element_types.glsl"
#include "tensor_index.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params {
  int count, rank, taps;
  float extrapolation;
  int out_dims[kMaxRank];
  int in_strides[kMaxRank];
  int table_offset[kMaxRank];  // first entry of axis k's table, -1 for an identity axis
} p;
layout(std430, binding = 0) readonly buffer Src { elem_t src[]; };
layout(std430, binding = 1) readonly buffer Table { ivec2 table[]; };  // (index, float bits of weight)
layout(std430, binding = 2) writeonly buffer Dst { elem_t dst[]; };

void main() {
  int i = global_index();
  if (i >= p.count) return;
  int base = 0, rest = i, m = 0;
  int axis_entry[kMaxRank], axis_stride[kMaxRank];
  bool outside = false;
  for (int k = p.rank - 1; k >= 0; --k) {
    int c = rest % p.out_dims[k];
    rest /= p.out_dims[k];
    if (p.table_offset[k] < 0) {
      base += c * p.in_strides[k];
    } else {
      int e = p.table_offset[k] + c * p.taps;
      outside = outside || table[e].x < 0;
      axis_entry[m] = e;
      axis_stride[m] = p.in_strides[k];
      ++m;
    }
  }
  if (outside) {
#if TX == 2
    dst[i] = int(roundEven(p.extrapolation));
#else
    dst[i] = elem_t(p.extrapolation);
#endif
    return;
  }
  if (p.taps == 1) {  // nearest: an exact copy
    for (int a = 0; a < m; ++a) base += table[axis_entry[a]].x * axis_stride[a];
    dst[i] = src[base];
    return;
  }
  int combos = 1;
  for (int a = 0; a < m; ++a) combos *= p.taps;
  float sum = 0.0;
  for (int c = 0; c < combos; ++c) {
    int r = c, offset = base;
    float w = 1.0;
    for (int a = 0; a < m; ++a) {
      ivec2 e = table[axis_entry[a] + r % p.taps];
      r /= p.taps;
      w *= intBitsToFloat(e.y);
      offset += e.x * axis_stride[a];
    }
    if (w != 0.0) sum += w * float(src[offset]);
  }
#if TX == 2
  dst[i] = int(roundEven(sum));
#else
  dst[i] = elem_t(sum);
#endif
}

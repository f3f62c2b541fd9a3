#version 450
// NO_DEFAULT_VARIANT
// VARIANT b32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT b32_pads_input -DTX=0 -DPADS_INPUT=1
// VARIANT f16_pads_input -DTX=1 -DPADS_INPUT=1
// Pad (modes constant, reflect, edge, wrap; negative pads crop) and Tile (wrap with no begin pad):
// output coordinate c reads input coordinate c - begin mapped into [0, in_dims) per mode, or the
// fill value (constant mode) when outside on any axis. Rank <= 6. PADS_INPUT: the begin pads are
// read from an int32 tensor computed at run time (begin[k] is then the slot of axis k, or -1), and
// with mode bit 4 the fill value from a tensor too.
#include "element_types.glsl"
#include "tensor_index.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params {
  int count, rank, mode;  // mode & 3: 0 constant, 1 reflect, 2 edge, 3 wrap; mode & 4: fill from `value`
  uint fill;              // the constant's bits: float (f32 and f16 storage) or int (i32 storage)
  int out_dims[kMaxRank];
  int in_dims[kMaxRank];
  int begin[kMaxRank];
} p;
layout(std430, binding = 0) readonly buffer Src { move_t src[]; };
layout(std430, binding = 1) writeonly buffer Dst { move_t dst[]; };
#if PADS_INPUT
layout(std430, binding = 2) readonly buffer Pads { int pads[]; };
layout(std430, binding = 3) readonly buffer Value { move_t value[]; };
#endif

void main() {
  int i = global_index();
  if (i >= p.count) return;
  int s = 0, in_stride = 1, rest = i;
  bool outside = false;
  for (int k = p.rank - 1; k >= 0; --k) {
    int c = rest % p.out_dims[k];
    rest /= p.out_dims[k];
    int b = p.begin[k];
#if PADS_INPUT
    b = b >= 0 ? pads[b] : 0;
#endif
    int d = p.in_dims[k], x = c - b;
    if (x < 0 || x >= d) {
      const int mode = p.mode & 3;
      if (mode == 0) {
        outside = true;
      } else if (mode == 2) {
        x = clamp(x, 0, d - 1);
      } else if (mode == 3) {
        x = positive_mod(x, d);
      } else if (d == 1) {
        x = 0;
      } else {  // reflect without repeating the edge: period 2(d-1)
        int period = 2 * (d - 1);
        x = positive_mod(x, period);
        if (x >= d) x = period - x;
      }
    }
    s += x * in_stride;
    in_stride *= d;
  }
#if PADS_INPUT
  if (outside && (p.mode & 4) != 0) {
    dst[i] = value[0];
    return;
  }
#endif
#if TX == 1
  dst[i] = outside ? float16_t(uintBitsToFloat(p.fill)) : src[s];
#else
  dst[i] = outside ? p.fill : src[s];
#endif
}

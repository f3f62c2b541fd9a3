#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT i32 -DTX=2
// ArgMax (op 0) / ArgMin (op 1) along one axis (the reduced group), int32 indices out. Ties go to
// the first index, or the last with select_last; `threads` invocations per output meet in shared
// memory.
#include "element_types.glsl"
#include "reduce_groups.glsl"

layout(std430, binding = 0) readonly buffer Src { elem_t src[]; };
layout(std430, binding = 1) writeonly buffer Dst { int dst[]; };

shared acc_t best_value[256];
shared int best_index[256];

// Does (v, i) beat (bv, bi)? Index -1 marks "nothing yet".
bool better(acc_t v, int i, acc_t bv, int bi) {
  if (i < 0) return false;
  if (bi < 0) return true;
  if (v == bv) return p.select_last != 0 ? i > bi : i < bi;
  return p.op == 0 ? v > bv : v < bv;
}

void main() {
  int gid = global_index();
  int o = gid / p.threads, lane = gid % p.threads, l = int(gl_LocalInvocationID.x);
  bool valid = o < p.outputs;
  int base = valid ? kept_offset(o) : 0, n = valid ? p.group : 0;
  acc_t bv = acc_t(0);
  int bi = -1;
  for (int r = lane; r < n; r += p.threads) {
    acc_t v = acc_t(src[base + red_offset(r)]);
    if (better(v, r, bv, bi)) {
      bv = v;
      bi = r;
    }
  }
  best_value[l] = bv;
  best_index[l] = bi;
  barrier();
  for (int s = p.threads / 2; s > 0; s >>= 1) {
    if (lane < s && better(best_value[l + s], best_index[l + s], best_value[l], best_index[l])) {
      best_value[l] = best_value[l + s];
      best_index[l] = best_index[l + s];
    }
    barrier();
  }
  if (valid && lane == 0) dst[o] = max(best_index[l], 0);
}

#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT i32 -DTX=2
// ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare over any set of axes: `threads`
// invocations per output stride through its group, then combine in shared memory (a tree).
// op: 0 sum, 1 mean, 2 max, 3 min, 4 prod, 5 l1, 6 l2, 7 log_sum, 8 log_sum_exp, 9 sum_square.
// LogSumExp first reduces the max (for stability), then sums exp(v - max).
#include "element_types.glsl"
#include "reduce_groups.glsl"

layout(std430, binding = 0) readonly buffer Src { elem_t src[]; };
layout(std430, binding = 1) writeonly buffer Dst { elem_t dst[]; };

shared acc_t partial[256];

// kind: 0 sum, 2 max, 3 min, 4 prod
acc_t combine(int kind, acc_t a, acc_t b) {
  if (kind == 2) return max_nan(a, b);
  if (kind == 3) return min_nan(a, b);
  if (kind == 4) return a * b;
  return a + b;
}

// Combines the `threads` values of each output's invocations; every invocation gets the result.
acc_t reduce_group(int kind, acc_t a, int lane) {
  int l = int(gl_LocalInvocationID.x);
  partial[l] = a;
  barrier();
  for (int s = p.threads / 2; s > 0; s >>= 1) {
    if (lane < s) partial[l] = combine(kind, partial[l], partial[l + s]);
    barrier();
  }
  acc_t r = partial[l - lane];
  barrier();
  return r;
}

void main() {
  int gid = global_index();
  int o = gid / p.threads, lane = gid % p.threads;
  bool valid = o < p.outputs;  // the others still take part in the barriers
  int base = valid ? kept_offset(o) : 0, n = valid ? p.group : 0;
  int kind = p.op == 2 || p.op == 3 || p.op == 4 ? p.op : 0;

  acc_t m = acc_t(0);
  if (p.op == 8) {
    acc_t a = kLowest;
    for (int r = lane; r < n; r += p.threads) a = max_nan(a, acc_t(src[base + red_offset(r)]));
    m = reduce_group(2, a, lane);
  }
  acc_t a = kind == 2 ? kLowest : kind == 3 ? kHighest : kind == 4 ? acc_t(1) : acc_t(0);
  for (int r = lane; r < n; r += p.threads) {
    acc_t v = acc_t(src[base + red_offset(r)]);
    if (p.op == 5) v = abs(v);
    else if (p.op == 6 || p.op == 9) v = v * v;
#if TX != 2
    else if (p.op == 8) v = isinf(m) ? exp(v) : exp(v - m);
#endif
    a = combine(kind, a, v);
  }
  a = reduce_group(kind, a, lane);
  if (!valid || lane != 0) return;
#if TX == 2
  if (p.op == 1) a = p.group != 0 ? a / p.group : 0;
  dst[o] = a;
#else
  if (p.op == 1) a = a / float(p.group);
  else if (p.op == 6) a = sqrt(a);
  else if (p.op == 7) a = log(a);
  else if (p.op == 8) a = isinf(m) ? log(a) : m + log(a);
  dst[o] = elem_t(a);
#endif
}

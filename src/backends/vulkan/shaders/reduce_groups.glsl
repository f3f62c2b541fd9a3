// Shared by the reduction shaders (reduce, reduce_arg): the reduction groups of an input seen as kept axes and
// reduced axes (both rank <= 6 after merging neighbours on the host), and `threads` (a power of two
// dividing 256) invocations per output that meet in shared memory. Accumulation is fp32 for float
// storage (int for i32).
#include "tensor_index.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params {
  int outputs, group, kept_rank, red_rank;
  int kept_dims[kMaxRank];
  int kept_strides[kMaxRank];
  int red_dims[kMaxRank];
  int red_strides[kMaxRank];
  int op, threads, select_last, unused;
} p;

// Input offset of output o's group (its kept coordinates).
int kept_offset(int o) {
  int s = 0;
  for (int k = p.kept_rank - 1; k >= 0; --k) {
    s += (o % p.kept_dims[k]) * p.kept_strides[k];
    o /= p.kept_dims[k];
  }
  return s;
}

// Offset of the r-th element of a group from the group's start.
int red_offset(int r) {
  int s = 0;
  for (int k = p.red_rank - 1; k >= 0; --k) {
    s += (r % p.red_dims[k]) * p.red_strides[k];
    r /= p.red_dims[k];
  }
  return s;
}

#if TX == 2
#define kLowest int(0x80000000)
#define kHighest 0x7fffffff
acc_t max_nan(acc_t a, acc_t b) { return max(a, b); }
acc_t min_nan(acc_t a, acc_t b) { return min(a, b); }
#else
#define kLowest uintBitsToFloat(0xff800000u)
#define kHighest uintBitsToFloat(0x7f800000u)
// max / min that propagate NaN (as the CPU reference does).
acc_t max_nan(acc_t a, acc_t b) { return (isnan(b) || b > a) ? b : a; }
acc_t min_nan(acc_t a, acc_t b) { return (isnan(b) || b < a) ? b : a; }
#endif

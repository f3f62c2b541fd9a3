#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// Softmax (kind 0), LogSoftmax (1) and Hardmax (2) along rows: row r = (outer, inner position)
// holds n elements `inner` apart. `threads` invocations per row find the max (NaN ignored, as the
// CPU reference does), then the sum of exp(v - max), in shared memory; fp32 arithmetic.
#include "element_types.glsl"
#include "tensor_index.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params { int rows, n, inner, threads, kind; } p;
layout(std430, binding = 0) readonly buffer Src { elem_t src[]; };
layout(std430, binding = 1) writeonly buffer Dst { elem_t dst[]; };

shared float part_value[256];
shared int part_index[256];

void main() {
  int gid = global_index();
  int row = gid / p.threads, lane = gid % p.threads, l = int(gl_LocalInvocationID.x);
  bool valid = row < p.rows;
  int n = valid ? p.n : 0;
  int base = valid ? (row / p.inner) * p.n * p.inner + row % p.inner : 0;
  // Max and the first index holding it (strictly greater than -inf; else index 0).
  float m = uintBitsToFloat(0xff800000u);
  int arg = 0x7fffffff;
  for (int k = lane; k < n; k += p.threads) {
    float v = float(src[base + k * p.inner]);
    if (v > m) {
      m = v;
      arg = k;
    }
  }
  part_value[l] = m;
  part_index[l] = arg;
  barrier();
  for (int s = p.threads / 2; s > 0; s >>= 1) {
    if (lane < s) {
      float ov = part_value[l + s];
      int oi = part_index[l + s];
      if (ov > part_value[l] || (ov == part_value[l] && oi < part_index[l])) {
        part_value[l] = ov;
        part_index[l] = oi;
      }
    }
    barrier();
  }
  m = part_value[l - lane];
  arg = part_index[l - lane];
  barrier();
  if (p.kind == 2) {
    if (arg == 0x7fffffff) arg = 0;
    for (int k = lane; k < n; k += p.threads) dst[base + k * p.inner] = elem_t(k == arg ? 1.0 : 0.0);
    return;
  }
  float sum = 0.0;
  for (int k = lane; k < n; k += p.threads) sum += exp(float(src[base + k * p.inner]) - m);
  part_value[l] = sum;
  barrier();
  for (int s = p.threads / 2; s > 0; s >>= 1) {
    if (lane < s) part_value[l] += part_value[l + s];
    barrier();
  }
  sum = part_value[l - lane];
  float log_sum = log(sum);
  for (int k = lane; k < n; k += p.threads) {
    float v = float(src[base + k * p.inner]) - m;
    dst[base + k * p.inner] = elem_t(p.kind == 0 ? exp(v) / sum : v - log_sum);
  }
}

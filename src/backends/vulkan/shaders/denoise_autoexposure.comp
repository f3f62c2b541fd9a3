#version 450
// NO_DEFAULT_VARIANT
// VARIANT bins -DBINS=1
// VARIANT reduce -DREDUCE=1
// OIDN's autoexposure on the device, in two passes.
//   bins:   one workgroup per bin (ceil(H/16) x ceil(W/16) bins, edges i*H/bins_h by integer
//           division, so a bin has at most 16x16 pixels): the mean luminance of the sanitised colour
//           (non-finite -> 0, clamp to [0, FLT_MAX]); writes (log2 mean, 1) for bins above 1e-8, else (0, 0).
//           Sums are taken scaled by 2^-32 so that FLT_MAX pixels cannot overflow a float.
//   reduce: one workgroup: inputScale = 0.18 / 2^(mean log2 of the kept bins), or 1 when none.
#include "denoise_io.glsl"

const float FLT_MAX = 3.402823466e+38;
const float SUM_SCALE = 2.3283064365386963e-10;  // 2^-32
shared float partial[256];
shared float partial_count[256];

#if BINS
layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;
layout(std430, binding = 0) readonly buffer Color { uint color_words[]; };
layout(std430, binding = 4) writeonly buffer Bins { vec2 bins[]; };

float sanitize(float v) { return clamp(finite_or_zero(v), 0.0, FLT_MAX); }

void main() {
  int j = int(gl_WorkGroupID.x), i = int(gl_WorkGroupID.y);
  int H = job.height, W = job.width;
  int y0 = int(i * H / job.bins_h), y1 = int((i + 1) * H / job.bins_h);
  int x0 = int(j * W / job.bins_w), x1 = int((j + 1) * W / job.bins_w);
  int x = x0 + int(gl_LocalInvocationID.x), y = y0 + int(gl_LocalInvocationID.y);
  float l = 0.0;
  if (x < x1 && y < y1) {
    vec3 rgb;
    LOAD_RGB(color_words, job.images[0], x, y, rgb);
    l = (0.212671 * SUM_SCALE) * sanitize(rgb.r) + (0.715160 * SUM_SCALE) * sanitize(rgb.g) +
        (0.072169 * SUM_SCALE) * sanitize(rgb.b);
  }
  uint lid = gl_LocalInvocationIndex;
  partial[lid] = l;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (lid < s) partial[lid] += partial[lid + s];
    barrier();
  }
  if (lid == 0u) {
    float mean = partial[0] / float((y1 - y0) * (x1 - x0));  // scaled by 2^-32
    bins[i * job.bins_w + j] = mean > 1e-8 * SUM_SCALE ? vec2(log2(mean) + 32.0, 1.0) : vec2(0.0);
  }
}
#endif

#if REDUCE
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
layout(std430, binding = 0) readonly buffer Bins { vec2 bins[]; };

void main() {
  uint lid = gl_LocalInvocationIndex;
  int n = job.bins_h * job.bins_w;
  float sum = 0.0, count = 0.0;
  for (int b = int(lid); b < n; b += 256) {
    sum += bins[b].x;
    count += bins[b].y;
  }
  partial[lid] = sum;
  partial_count[lid] = count;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (lid < s) {
      partial[lid] += partial[lid + s];
      partial_count[lid] += partial_count[lid + s];
    }
    barrier();
  }
  // As the CPU (denoise/autoexposure.cpp): 0.18 / 2^mean without overflowing 2^mean, never below
  // the smallest normal float (images of pixels near FLT_MAX; GPUs flush denormals to 0).
  if (lid == 0u)
    job.input_scale = partial_count[0] > 0.0 ? max(exp2(log2(0.18) - partial[0] / partial_count[0]), 1.17549435e-38) : 1.0;
}
#endif

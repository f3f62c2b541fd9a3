#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT f16_quads -DTX=1 -DQUADS=1
// VARIANT f32_lanes -DTX=0 -DSPLIT_LANES=8
// VARIANT f16_lanes -DTX=1 -DSPLIT_LANES=8
// The second pass of a split-K GEMM (gemm_io.glsl): one invocation per output element of the
// dispatch's batches adds the `splits` fp32 partial sums and applies the epilogue (alpha,
// beta * C, ReLU) as the one-pass kernels do. QUADS (fp16, where gemm_io.glsl's Y_QUADS holds):
// four consecutive elements an invocation, loaded and stored as words (store_y_quad). SPLIT_LANES
// (many splits): SPLIT_LANES invocations an element, each adding every SPLIT_LANES-th split, then
// one adds their sums from shared memory; a workgroup's elements are consecutive, so each split's
// loads stay whole lines (ResNet-50's layer 4: 29 splits of 49-pixel rows).
#include "element_types.glsl"
#include "gemm_io.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#if SPLIT_LANES
#define ELEMENTS (256 / SPLIT_LANES)  // a workgroup's
shared float lane_sums[SPLIT_LANES][ELEMENTS];
#endif

void main() {
#if SPLIT_LANES
  const int local = int(gl_LocalInvocationIndex), e = local % ELEMENTS, lane = local / ELEMENTS;
  const int idx = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * ELEMENTS + e;
  const int mn = p.M * p.N, z = idx / mn, r = idx - z * mn;
  float acc = 0.0;
  if (z < p.batches)
    for (int s = lane; s < p.splits; s += SPLIT_LANES) acc += part_data[(z * p.splits + s) * mn + r];
  lane_sums[lane][e] = acc;
  barrier();
  if (lane != 0 || z >= p.batches) return;
  [[unroll]] for (int l = 1; l < SPLIT_LANES; ++l) acc += lane_sums[l][e];
  const int m = r / p.N;
  store_y(batch_offsets(z), m, r - m * p.N, acc);
#else
#if QUADS
  int idx = int(linear_index(256)) * 4;
#else
  int idx = int(linear_index(256));
#endif
  int mn = p.M * p.N, z = idx / mn;
  if (z >= p.batches) return;
  int r = idx - z * mn, m = r / p.N, n = r - m * p.N;
#if QUADS
  vec4 acc = vec4(0.0);
  for (int s = 0; s < p.splits; ++s) acc += part_quad[(((z * p.splits + s) * p.M + m) * p.N + n) / 4];
  store_y_quad(batch_offsets(z), m, n, float[4](acc.x, acc.y, acc.z, acc.w));
#else
  float acc = 0.0;
  for (int s = 0; s < p.splits; ++s) acc += part_data[((z * p.splits + s) * p.M + m) * p.N + n];
  store_y(batch_offsets(z), m, n, acc);
#endif
#endif
}

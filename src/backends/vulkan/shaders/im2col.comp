#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// A convolution input's im2col matrix, materialised: B[image][k][n] with k = (c, kz, ky, kx) and
// n = output pixel (oz, oy, ox), 0 where the window reads padding (gemm_io.glsl's B_MODE 1 order).
// Large convolutions then run on the staged tensor-core GEMM over plain rows of B, where gathering
// the matrix inside the GEMM's K loop bounds them (kernels/conv.cpp). An invocation writes one
// 16-byte word of a row (VEC pixels; the rows are whole words, zeros past N), the words of all rows
// numbered along x (a workgroup a row left most lanes idle on rows of 49-200 pixels: ResNet-50's
// last two stages), images along z.
#extension GL_EXT_control_flow_attributes : require
#define WINDOW_ID0 0
#include "element_types.glsl"
#include "window_geometry.glsl"
#if TX == 1
#define VEC 8
#else
#define VEC 4
#endif
#include "im2col_word.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params {
  int rows, columns, channels;  // K, N and the input's channels
  int stride;                   // of a row: N rounded up to whole 16-byte words (zeros past N)
} p;
layout(std430, binding = 0) readonly buffer Src { elem_t src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };

void main() {
  const int words = p.stride / VEC, word = int(gl_GlobalInvocationID.x), image = int(gl_WorkGroupID.z);
  if (word >= p.rows * words) return;
  const int k = word / words, n0 = (word - k * words) * VEC;
  const int c = k / (KZ * KY * KX);
  const ivec3 tap = im2col_tap(k - c * (KZ * KY * KX));
  const int base = (image * p.channels + c) * (IZ * IY * IX);
  float v[VEC];
  [[unroll]] for (int i = 0; i < VEC; ++i) {
    const int from = im2col_source(tap, n0 + i, p.columns);
    v[i] = from >= 0 ? float(src[base + from]) : 0.0;
  }
  dst[(image * p.rows * p.stride) / VEC + word] = im2col_pack(v);
}

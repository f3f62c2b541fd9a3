#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// A split-K GEMM's second pass (gemm_reduce.comp) for a 1x1 convolution whose output only the next
// convolution reads (vx.ConvPair): instead of writing that output, it writes the next
// convolution's im2col matrix (im2col.comp's layout: row k = (channel, kz, ky, kx), rows of
// `im_stride` values, zeros where the window reads padding). A workgroup per channel of the first
// convolution's output and image: it adds the partial sums of the channel's pixels and runs the
// epilogue once each, into shared memory, then writes the channel's KZ * KY * KX rows of the matrix
// from there, a 16-byte word an invocation. (Gathering each matrix entry's sum from the partials
// instead read them up to 9 times: ResNet-50 0.81 -> 0.86 ms on the H100, session 38.)
// The GEMM's push block, partials, bias and post-ops as gemm_reduce's (gemm_io.glsl: M = the
// first convolution's output channels, N = its pixels, at most MAX_PIXELS, a batch per image);
// the window constants (ids 3..19) are the second convolution's. Binding 3 (Y) is the matrix.
#define GEMM_IM2COL_PUSH
#include "element_types.glsl"
#include "gemm_io.glsl"
#include "im2col_word.glsl"
#define MAX_PIXELS 4096  // kernels/conv.cpp: kReduceIm2colMaxPixels
layout(local_size_x = 256) in;
layout(std430, binding = 3) writeonly buffer BufMatrix { uvec4 matrix[]; };
shared float first_output[MAX_PIXELS];

void main() {
  const int c = int(gl_WorkGroupID.x), image = int(gl_WorkGroupID.z), lane = int(gl_LocalInvocationID.x);
  const BatchOffsets off = batch_offsets(image);
  for (int n = lane; n < p.N; n += 256) {
    float acc = 0.0;
    for (int s = 0; s < p.splits; ++s) acc += part_data[((image * p.splits + s) * p.M + c) * p.N + n];
    first_output[n] = epilogue(off, c, n, acc);
  }
  barrier();
  const int taps = KZ * KY * KX, words = p.im_stride / VEC;
  const int row0 = image * p.im_rows + c * taps;  // the channel's first row
  for (int word = lane; word < taps * words; word += 256) {
    const int t = word / words, n0 = (word - t * words) * VEC;
    const ivec3 tap = im2col_tap(t);
    float v[VEC];
    [[unroll]] for (int i = 0; i < VEC; ++i) {
      const int from = im2col_source(tap, n0 + i, p.im_columns);
      v[i] = from >= 0 ? first_output[from] : 0.0;
    }
    matrix[(row0 * p.im_stride) / VEC + word] = im2col_pack(v);
  }
}

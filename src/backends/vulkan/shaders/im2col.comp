#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// A convolution input's im2col matrix, materialised: B[image][k][n] with k = (c, kz, ky, kx) and
// n = output pixel (oz, oy, ox), 0 where the window reads padding (gemm_io.glsl's B_MODE 1 order).
// Large convolutions then run on the staged tensor-core GEMM over plain rows of B, where gathering
// the matrix inside the GEMM's K loop bounds them (kernels/conv.cpp). A workgroup writes 256
// pixels of one row k (coalesced); rows along y, images along z.
#define WINDOW_ID0 0
#include "element_types.glsl"
#include "window_geometry.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params {
  int rows, columns, channels;  // K, N and the input's channels
  int stride;                   // of a row: N rounded up to whole 16-byte words (zeros past N)
} p;
layout(std430, binding = 0) readonly buffer Src { elem_t src[]; };
layout(std430, binding = 1) writeonly buffer Dst { elem_t dst[]; };

void main() {
  const int n = int(gl_GlobalInvocationID.x), k = int(gl_WorkGroupID.y), image = int(gl_WorkGroupID.z);
  if (n >= p.stride) return;
  if (n >= p.columns) {
    dst[(image * p.rows + k) * p.stride + n] = elem_t(0.0);
    return;
  }
  const int c = k / (KZ * KY * KX), r = k - c * (KZ * KY * KX);
  const int kz = r / (KY * KX), kyx = r - kz * (KY * KX), ky = kyx / KX, kx = kyx - ky * KX;
  const int oz = n / (OY * OX), oyx = n - oz * (OY * OX), oy = oyx / OX, ox = oyx - oy * OX;
  const int iz = oz * SZ - PZ + kz * DZ, iy = oy * SY - PY + ky * DY, ix = ox * SX - PX + kx * DX;
  const bool inside = iz >= 0 && iy >= 0 && ix >= 0 && iz < IZ && iy < IY && ix < IX;
  const int from = (((image * p.channels + c) * IZ + iz) * IY + iy) * IX + ix;
  dst[(image * p.rows + k) * p.stride + n] = inside ? src[from] : elem_t(0.0);
}

// Operands of the nn_gemm* shaders: per batch z (gl_WorkGroupID.z),
//   Y[z](m, n) = act(alpha * sum_k A[z](m, k) * B[z](k, n) + beta * C[z](m, n)),  m < M, n < N, k < K,
// with A, B and C read through element strides (transposes, broadcasts with stride 0), Y dense
// row-major M x N. The batch index splits into z1 = z / z0_count and z0 = z % z0_count, and each
// operand's batch offset is base + z1 * s_z1 + z0 * s_z0 (two levels cover MatMul broadcasting
// after merging axes, and Conv's batch x group).
// B_MODE (spec constant 0): 0 = B read through strides; 1 = B is the implicit im2col matrix of a
// convolution input (k = (c, kz, ky, kx), n = output pixel (oz, oy, ox)), geometry in spec
// constants 3.. (1-D and 2-D convolutions use extent 1 on the leading axes).
//   binding 0: A, binding 1: B, binding 2: C (any buffer when flags & 1 == 0), binding 3: Y.
#include "nn_common.glsl"

layout(constant_id = 0) const int B_MODE = 0;
layout(constant_id = 1) const int A_M_FAST = 0;  // A's m stride is 1 (not k's): load tiles m-fastest
layout(constant_id = 2) const int B_K_FAST = 0;  // B's k stride is 1 (not n's): load tiles k-fastest
layout(constant_id = 3) const int IZ = 1;
layout(constant_id = 4) const int IY = 1;
layout(constant_id = 5) const int IX = 1;
layout(constant_id = 6) const int KZ = 1;
layout(constant_id = 7) const int KY = 1;
layout(constant_id = 8) const int KX = 1;
layout(constant_id = 9) const int SZ = 1;
layout(constant_id = 10) const int SY = 1;
layout(constant_id = 11) const int SX = 1;
layout(constant_id = 12) const int DZ = 1;
layout(constant_id = 13) const int DY = 1;
layout(constant_id = 14) const int DX = 1;
layout(constant_id = 15) const int PZ = 0;
layout(constant_id = 16) const int PY = 0;
layout(constant_id = 17) const int PX = 0;
layout(constant_id = 18) const int OY = 1;  // output extents (OZ follows from N)
layout(constant_id = 19) const int OX = 1;

layout(push_constant) uniform Params {
  int M, N, K;
  int sam, sak, sbk, sbn;  // element strides of A (m, k) and B (k, n); B's unused with B_MODE 1
  int scm, scn;            // element strides of C (0 where it broadcasts)
  int z0_count;
  int a_z1, a_z0, b_z1, b_z0, c_z1, c_z0, o_z1, o_z0;
  int a_base, b_base, c_base, o_base;
  float alpha, beta;
  int flags;  // 1: add beta * C; 2: ReLU at the end
} p;

layout(std430, binding = 0) readonly buffer BufA { sfp a_data[]; };
layout(std430, binding = 1) readonly buffer BufB { sfp b_data[]; };
layout(std430, binding = 2) readonly buffer BufC { sfp c_data[]; };
layout(std430, binding = 3) writeonly buffer BufY { sfp y_data[]; };

struct BatchOffsets {
  int a, b, c, o;
};

BatchOffsets batch_offsets() {
  int z = int(gl_WorkGroupID.z), z1 = z / p.z0_count, z0 = z - z1 * p.z0_count;
  BatchOffsets r;
  r.a = p.a_base + z1 * p.a_z1 + z0 * p.a_z0;
  r.b = p.b_base + z1 * p.b_z1 + z0 * p.b_z0;
  r.c = p.c_base + z1 * p.c_z1 + z0 * p.c_z0;
  r.o = p.o_base + z1 * p.o_z1 + z0 * p.o_z0;
  return r;
}

// Callers check m < M, k < K, n < N.
float load_a(int base, int m, int k) { return float(a_data[base + m * p.sam + k * p.sak]); }

float load_b(int base, int k, int n) {
  if (B_MODE == 0) return float(b_data[base + k * p.sbk + n * p.sbn]);
  const int ksize = KZ * KY * KX;
  int c = k / ksize, r = k - c * ksize;
  int kz = r / (KY * KX), kyx = r - kz * (KY * KX), ky = kyx / KX, kx = kyx - ky * KX;
  int oz = n / (OY * OX), oyx = n - oz * (OY * OX), oy = oyx / OX, ox = oyx - oy * OX;
  int iz = oz * SZ - PZ + kz * DZ, iy = oy * SY - PY + ky * DY, ix = ox * SX - PX + kx * DX;
  if (iz < 0 || iy < 0 || ix < 0 || iz >= IZ || iy >= IY || ix >= IX) return 0.0;
  return float(b_data[base + ((c * IZ + iz) * IY + iy) * IX + ix]);
}

void store_y(BatchOffsets off, int m, int n, float acc) {
  float v = p.alpha * acc;
  if ((p.flags & 1) != 0) v += p.beta * float(c_data[off.c + m * p.scm + n * p.scn]);
  if ((p.flags & 2) != 0) v = max(v, 0.0);
  y_data[off.o + m * p.N + n] = sfp(v);
}

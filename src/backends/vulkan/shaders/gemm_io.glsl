// Operands of the gemm*.comp shaders: per batch z (gl_WorkGroupID.z),
//   Y[z](m, n) = act(alpha * sum_k A[z](m, k) * B[z](k, n) + beta * C[z](m, n)),  m < M, n < N, k < K,
// with A, B and C read through element strides (transposes, broadcasts with stride 0), Y dense
// row-major M x N. The batch index splits into z1 = z / z0_count and z0 = z % z0_count, and each
// operand's batch offset is base + z1 * s_z1 + z0 * s_z0 (two levels cover MatMul broadcasting
// after merging axes, and Conv's batch x group).
// B_MODE (spec constant 0): 0 = B read through strides; 1 = B is the implicit im2col matrix of a
// convolution input (k = (c, kz, ky, kx), n = output pixel (oz, oy, ox)), geometry in spec
// constants 3.. (1-D and 2-D convolutions use extent 1 on the leading axes).
// Split K (splits > 1): workgroup z = batch * splits + split sums k in [split * k_chunk,
// (split + 1) * k_chunk) and writes its raw fp32 sums to the partials buffer at [z][m][n];
// gemm_reduce then adds the splits and applies the epilogue (more workgroups for products with
// few output tiles, e.g. a decoder's M = 1..128 rows), or gemm_reduce_layer_norm, which then also
// normalises each row (vx.FusedMatMul's LnScale / LnBias).
// B_MODE 2: B holds int8 values (weight-only quantization, vx.MatMulInt8W), packed 4 per 32-bit
// word, read through B's strides in bytes; their per-column scales apply in the epilogue.
// Epilogue (every kernel, or gemm_reduce after split K):
//   Y = post_ops(act(alpha * acc * scale[n] + bias[n] + beta * C(m, n)))  (post_ops.glsl)
// flags: 1 = add beta * C (Gemm's C, or a residual), 4 = add bias (per column n), bits 3..4 = act
// (0 none, 1 ReLU, 2 GELU with erf, 3 GELU with the tanh approximation), 32 = multiply by the
// fp32 scale[n] (int8 weights), 64 = the bias is per row m instead, M values per z0 (a
// convolution's per-output-channel bias, per group, when C holds its residual).
//   binding 0: A, binding 1: B, binding 2: C (any buffer when flags & 1 == 0), binding 3: Y,
//   binding 4: fp32 partials (any buffer when splits == 1), binding 5: bias (any buffer when
//   flags & 4 == 0), binding 6: fp32 scales (any buffer when flags & 32 == 0).
#extension GL_EXT_control_flow_attributes : require
#include "linear_index.glsl"

layout(constant_id = 0) const int B_MODE = 0;  // 0 strided, 1 im2col, 2 int8 values (see above)
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
// 16-byte loads (VEC elements): A_VEC when A's rows are K-contiguous (sak 1) and every row start
// and K are multiples of VEC; B_VEC when B's rows are N-contiguous (sbn 1, B_MODE 0) and every
// row start and N are multiples of VEC. Tiles then stage whole vectors (never straddling K / N).
// B_VEC 2 (gemm.comp and gemm_coopmat_staged.comp): 8-byte loads of VEC / 2 values where B's row
// starts and N are multiples of VEC / 2 only (fp16 at 14 x 14 pixels: N 196).
layout(constant_id = 20) const int A_VEC = 0;
layout(constant_id = 21) const int B_VEC = 0;
#define POST_OPS_ID0 22  // ids 22 .. 34: vx.FusedConv's post-ops, after the activation
#include "post_ops.glsl"
// Y_QUADS (fp16): N and every batch's output offset are multiples of 4, so results may be stored 4
// at a time (store_result_quad). A constant, not a test of the push block: the kernels where it is
// 0 then compile as without the quad path (an H100 ran DeepLabV3's unaligned GEMMs 1 us slower
// each with the path present).
layout(constant_id = 39) const int Y_QUADS = 0;
#if TX == 1
#define VEC 8
#else
#define VEC 4
#endif

layout(push_constant) uniform Params {
  int M, N, K;
  int sam, sak, sbk, sbn;  // element strides of A (m, k) and B (k, n); B's unused with B_MODE 1
  int scm, scn;            // element strides of C (0 where it broadcasts)
  int z0_count;
  int a_z1, a_z0, b_z1, b_z0, c_z1, c_z0, o_z1, o_z0;
  int a_base, b_base, c_base, o_base;
  float alpha, beta;
  int flags;  // 1: add beta * C; 4: add bias (64: per row); (flags >> 3) & 3: activation (see above)
  int splits, k_chunk;
  int batches;  // batches in this dispatch (gemm_reduce)
#ifdef GEMM_IM2COL_PUSH
  int im_rows, im_columns, im_stride;  // gemm_reduce_im2col.comp: the matrix's K, N and row stride
#endif
} p;

layout(std430, binding = 0) readonly buffer BufA { elem_t a_data[]; };
layout(std430, binding = 1) readonly buffer BufB { elem_t b_data[]; };
layout(std430, binding = 0) readonly buffer BufAVec { uvec4 a_vec[]; };  // 16-byte views of A and B
layout(std430, binding = 1) readonly buffer BufBVec { uvec4 b_vec[]; };
layout(std430, binding = 1) readonly buffer BufBHalfVec { uvec2 b_half_vec[]; };  // B_VEC 2
layout(std430, binding = 1) readonly buffer BufBInt8 { uint b_u32[]; };  // B_MODE 2: 4 int8 per word
layout(std430, binding = 2) readonly buffer BufC { elem_t c_data[]; };
layout(std430, binding = 3) writeonly buffer BufY { elem_t y_data[]; };
// PARTIALS_COHERENT (a kernel whose last split of a tile reads the others' partials,
// gemm_split_arrival.glsl): coherent partials, so that those stores are visible to other workgroups.
#ifdef PARTIALS_COHERENT
#define PARTIALS_QUALIFIER coherent
#else
#define PARTIALS_QUALIFIER
#endif
layout(std430, binding = 4) PARTIALS_QUALIFIER buffer BufPart { float part_data[]; };
layout(std430, binding = 5) readonly buffer BufBias { elem_t bias_data[]; };
layout(std430, binding = 6) readonly buffer BufScale { float scale_data[]; };
// 8-byte views of C, Y and the bias, and 16-byte views of the partials (store_result_quad: fp16).
layout(std430, binding = 2) readonly buffer BufCQuad { uvec2 c_quad[]; };
layout(std430, binding = 3) writeonly buffer BufYQuad { uvec2 y_quad[]; };
layout(std430, binding = 4) PARTIALS_QUALIFIER buffer BufPartQuad { vec4 part_quad[]; };
layout(std430, binding = 5) readonly buffer BufBiasQuad { uvec2 bias_quad[]; };

struct BatchOffsets {
  int a, b, c, o;
  int z0;
};

// Offsets of batch z (in this dispatch).
BatchOffsets batch_offsets(int z) {
  int z1 = z / p.z0_count, z0 = z - z1 * p.z0_count;
  BatchOffsets r;
  r.a = p.a_base + z1 * p.a_z1 + z0 * p.a_z0;
  r.b = p.b_base + z1 * p.b_z1 + z0 * p.b_z0;
  r.c = p.c_base + z1 * p.c_z1 + z0 * p.c_z0;
  r.o = p.o_base + z1 * p.o_z1 + z0 * p.o_z0;
  r.z0 = z0;
  return r;
}

// Callers check m < M, k < K, n < N.
float load_a(int base, int m, int k) { return float(a_data[base + m * p.sam + k * p.sak]); }

// The input position of kernel tap 0 for output pixel n (im2col: B_MODE 1): hoisted out of the K
// loop by the kernels, whose threads each stage one fixed column of B.
ivec3 im2col_origin(int n) {
  int oz = n / (OY * OX), oyx = n - oz * (OY * OX), oy = oyx / OX, ox = oyx - oy * OX;
  return ivec3(oz * SZ - PZ, oy * SY - PY, ox * SX - PX);
}

// Where B(k, n) of the im2col matrix lies, for n's origin, and whether inside the input: outside
// (padding) the index is still a valid one, and the value is 0 (callers select).
int im2col_index(int base, int k, ivec3 origin, out bool inside) {
  const int ksize = KZ * KY * KX;
  int c = k / ksize, r = k - c * ksize;
  int kz = r / (KY * KX), kyx = r - kz * (KY * KX), ky = kyx / KX, kx = kyx - ky * KX;
  int iz = origin.x + kz * DZ, iy = origin.y + ky * DY, ix = origin.z + kx * DX;
  inside = iz >= 0 && iy >= 0 && ix >= 0 && iz < IZ && iy < IY && ix < IX;
  return base + ((c * IZ + clamp(iz, 0, IZ - 1)) * IY + clamp(iy, 0, IY - 1)) * IX + clamp(ix, 0, IX - 1);
}

// B(k, n) of the im2col matrix, for n's origin.
float load_b_im2col(int base, int k, ivec3 origin) {
  bool inside;
  int i = im2col_index(base, k, origin, inside);
  return inside ? float(b_data[i]) : 0.0;
}

float load_b(int base, int k, int n) {
  if (B_MODE == 0) return float(b_data[base + k * p.sbk + n * p.sbn]);
  if (B_MODE == 2) {
    int i = base + k * p.sbk + n * p.sbn;
    return float(bitfieldExtract(int(b_u32[i >> 2]), (i & 3) * 8, 8));
  }
  return load_b_im2col(base, k, im2col_origin(n));
}

// The K range of this workgroup: [k_begin, k_end).
void k_range(out int k_begin, out int k_end) {
  int split = int(gl_WorkGroupID.z) % p.splits;
  k_begin = split * p.k_chunk;
  k_end = p.splits == 1 ? p.K : min(p.K, k_begin + p.k_chunk);
}

// VEC consecutive values from 16 bytes.
void unpack_vec(uvec4 u, out float v[VEC]) {
#if TX == 1
  vec2 h0 = unpackHalf2x16(u.x), h1 = unpackHalf2x16(u.y), h2 = unpackHalf2x16(u.z), h3 = unpackHalf2x16(u.w);
  v[0] = h0.x; v[1] = h0.y; v[2] = h1.x; v[3] = h1.y; v[4] = h2.x; v[5] = h2.y; v[6] = h3.x; v[7] = h3.y;
#else
  v[0] = uintBitsToFloat(u.x); v[1] = uintBitsToFloat(u.y); v[2] = uintBitsToFloat(u.z); v[3] = uintBitsToFloat(u.w);
#endif
}
// VEC / 2 consecutive values from 8 bytes.
void unpack_half_vec(uvec2 u, out float v[VEC / 2]) {
#if TX == 1
  vec2 h0 = unpackHalf2x16(u.x), h1 = unpackHalf2x16(u.y);
  v[0] = h0.x; v[1] = h0.y; v[2] = h1.x; v[3] = h1.y;
#else
  v[0] = uintBitsToFloat(u.x); v[1] = uintBitsToFloat(u.y);
#endif
}
// A(m, k .. k + VEC) (A_VEC; k a multiple of VEC) and B(k, n .. n + VEC) (B_VEC).
void load_a_vec(int base, int m, int k, out float v[VEC]) { unpack_vec(a_vec[(base + m * p.sam + k) / VEC], v); }
void load_b_vec(int base, int k, int n, out float v[VEC]) { unpack_vec(b_vec[(base + k * p.sbk + n) / VEC], v); }

// erf to ~1.5e-7 absolute (Abramowitz & Stegun 7.1.26): enough for GELU, where it is added to 1.
float gemm_erf(float x) {
  float a = min(abs(x), 9.0);
  float t = 1.0 / (1.0 + 0.3275911 * a);
  float y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t *
                      exp(-a * a);
  return sign(x) * y;
}

// tanh without the overflow of exp(2x) for large |x|.
float gemm_tanh(float x) {
  float e = exp(-2.0 * abs(x));
  return sign(x) * (1.0 - e) / (1.0 + e);
}

float gemm_activation(float v, int act) {
  if (act == 1) return max(v, 0.0);
  if (act == 2) return 0.5 * v * (1.0 + gemm_erf(v * 0.7071067811865476));
  if (act == 3) return 0.5 * v * (1.0 + gemm_tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
  return v;
}

// The epilogue of Y(m, n) for the sum acc (in fp32).
float epilogue(BatchOffsets off, int m, int n, float acc) {
  float v = p.alpha * acc;
  if ((p.flags & 32) != 0) v *= scale_data[n];
  if ((p.flags & 4) != 0) v += float(bias_data[(p.flags & 64) != 0 ? off.z0 * p.M + m : n]);
  if ((p.flags & 1) != 0) v += p.beta * float(c_data[off.c + m * p.scm + n * p.scn]);
  return apply_post_ops(gemm_activation(v, (p.flags >> 3) & 3));
}

void store_y(BatchOffsets off, int m, int n, float acc) { y_data[off.o + m * p.N + n] = elem_t(epilogue(off, m, n, acc)); }

// The GEMM kernels' result for (m, n): the epilogue, or the raw partial sum when splitting K.
void store_result(BatchOffsets off, int m, int n, float acc) {
  if (p.splits > 1) part_data[(int(gl_WorkGroupID.z) * p.M + m) * p.N + n] = acc;
  else store_y(off, m, n, acc);
}

#if TX == 1
// The epilogue of the 4 results (m, n .. n + 3), n a multiple of 4, under Y_QUADS: one load of C
// where its row is a contiguous aligned quad or one value, and one of the bias (per column: a quad,
// per row: a value), instead of 4 of each. Latency-bound small GEMMs spend much of their time in the
// epilogue's loads and stores.
void epilogue_quad(BatchOffsets off, int m, int n, float acc[4], out float v[4]) {
  [[unroll]] for (int i = 0; i < 4; ++i) v[i] = p.alpha * acc[i];
  if ((p.flags & 32) != 0) [[unroll]] for (int i = 0; i < 4; ++i) v[i] *= scale_data[n + i];
  if ((p.flags & 4) != 0) {
    float b[4];
    if ((p.flags & 64) != 0) {
      const float row_bias = float(bias_data[off.z0 * p.M + m]);
      [[unroll]] for (int i = 0; i < 4; ++i) b[i] = row_bias;
    } else {
      unpack_half_vec(bias_quad[n / 4], b);
    }
    [[unroll]] for (int i = 0; i < 4; ++i) v[i] += b[i];
  }
  if ((p.flags & 1) != 0) {
    float c[4];
    const int ci = off.c + m * p.scm + n * p.scn;
    if (p.scn == 1 && ci % 4 == 0) {
      unpack_half_vec(c_quad[ci / 4], c);
    } else if (p.scn == 0) {  // one value along the row: a convolution's bias as C
      const float row_c = float(c_data[ci]);
      [[unroll]] for (int i = 0; i < 4; ++i) c[i] = row_c;
    } else {
      [[unroll]] for (int i = 0; i < 4; ++i) c[i] = float(c_data[ci + i * p.scn]);
    }
    [[unroll]] for (int i = 0; i < 4; ++i) v[i] += p.beta * c[i];
  }
  [[unroll]] for (int i = 0; i < 4; ++i) v[i] = apply_post_ops(gemm_activation(v[i], (p.flags >> 3) & 3));
}

// Y's 4 values (m, n .. n + 3) as one 8-byte store (Y_QUADS).
void store_y_values_quad(BatchOffsets off, int m, int n, float v[4]) {
  y_quad[(off.o + m * p.N + n) / 4] = uvec2(packHalf2x16(vec2(v[0], v[1])), packHalf2x16(vec2(v[2], v[3])));
}

// store_y for the 4 results (m, n .. n + 3) under Y_QUADS.
void store_y_quad(BatchOffsets off, int m, int n, float acc[4]) {
  float v[4];
  epilogue_quad(off, m, n, acc, v);
  store_y_values_quad(off, m, n, v);
}

// store_result for 4 results as store_y_quad, or as one 16-byte store of partials when K is split.
void store_result_quad(BatchOffsets off, int m, int n, float acc[4]) {
  if (p.splits > 1) part_quad[((int(gl_WorkGroupID.z) * p.M + m) * p.N + n) / 4] = vec4(acc[0], acc[1], acc[2], acc[3]);
  else store_y_quad(off, m, n, acc);
}
#endif

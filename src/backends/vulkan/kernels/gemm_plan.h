// The one GEMM of the Vulkan backend (shaders/gemm*.comp), shared by
// MatMul, Gemm and Conv (implicit im2col):
//   Y[z](m, n) = act(alpha * scale(n) * sum_k A[z](m, k) B[z](k, n) + bias(n) + beta * C[z](m, n))
// with every operand read through element strides and a two-level batch (z = z1 * z0_count + z0;
// each operand's batch offset is base + z1 * s_z1 + z0 * s_z0). Y is dense row-major M x N per batch.
#pragma once
#include <string>

#include <vector>

#include "backends/vulkan/kernels/op_args.h"
#include "backends/vulkan/kernels/window3.h"
#include "ops/post_ops.h"

namespace vx::vk {

// The epilogue's activation (vx.FusedMatMul's "activation" attribute).
enum class GemmActivation { none, relu, gelu_erf, gelu_tanh };
// "none" | "relu" | "gelu_erf" | "gelu_tanh"; declines the node on anything else.
GemmActivation parse_gemm_activation(const OpInfo& info, const std::string& name);

struct GemmDesc {
  int64_t m = 0, n = 0, k = 0;
  int64_t sam = 0, sak = 1, sbk = 0, sbn = 1, scm = 0, scn = 0;
  int64_t z1_count = 1, z0_count = 1;
  int64_t a_z1 = 0, a_z0 = 0, b_z1 = 0, b_z0 = 0, c_z1 = 0, c_z0 = 0, o_z1 = 0, o_z0 = 0;
  int64_t a_base = 0, b_base = 0, c_base = 0, o_base = 0;
  float alpha = 1.0f, beta = 0.0f;
  bool has_c = false;
  GemmActivation act = GemmActivation::none;
  // bias: a vector of N values (storage type) added to every row before beta * C and act; with
  // bias_per_row, M values per z0 batch added to every column instead (a convolution's bias per
  // output channel and group, when C holds its residual).
  bool has_bias = false, bias_per_row = false;
  Binding a, b, c, y, bias;
  // B is the implicit im2col matrix of a convolution input (k = (channel, kernel tap), n = output
  // pixel) with this window; B's strides are then unused.
  bool b_im2col = false;
  Window3 conv;
  // B's rows (N-contiguous) may be read in whole 16-byte words past N: their stride is a multiple
  // of them and the words past N are allocated (the staged kernel's 16-byte loads at a ragged N).
  bool b_rows_padded = false;
  // A's rows (K-contiguous) likewise, with zeros past K: the staged kernel loads the word that
  // straddles K whole (B's rows past K read as zeros there; a convolution's weights at K 147).
  bool a_rows_padded = false;
  // B holds int8 values (4 per 32-bit word; B's strides and offsets count bytes), each column n
  // scaled by the fp32 `scale` [N] in the epilogue: weight-only int8 (vx.MatMulInt8W).
  bool b_int8 = false;
  Binding scale;
  // vx.FusedConv's post-ops, after the activation (shaders/post_ops.glsl: at most kMaxPostOps).
  std::vector<PostOp> post_ops;
  // Each row of Y normalised after the epilogue (vx.FusedMatMul's LnScale / LnBias: a LayerNorm
  // over N): Y = (Y - mean) / sqrt(var + epsilon) * ln_scale (+ ln_bias). Y must be one dense
  // block from offset 0 and one dispatch's batches.
  bool layer_norm = false, has_ln_bias = false;
  float ln_epsilon = 1e-5f;
  Binding ln_scale, ln_bias;
};

// shaders/gemm_io.glsl's window constants (ids kGemmWindowConstantsId ..): in, kernel, stride,
// dilation and pad_begin of three axes, then the output's y and x extents (17 values; OZ follows
// from N).
constexpr size_t kGemmWindowConstantsId = 3;
std::vector<int32_t> gemm_window_constants(const Window3& w);

constexpr size_t kMaxPostOps = 4;
// The specialization constants of shaders/post_ops.glsl (count, kinds, alphas, betas as bits),
// appended to a shader's `first` constants (ids 0 .. first - 1); nothing without post-ops.
void add_post_op_constants(std::vector<int32_t>& spec, size_t first, const std::vector<PostOp>& ops);

// The GEMM kernels:
//   tiled      gemm.{f32,f16}: 64 x 64 tiles, 4 x 4 outputs per thread, any precision and device;
//   simt       gemm_simt.{f32,f16}: 128 x 128 tiles, 8 x 8 outputs per thread, double-buffered staging;
//   tiled_m32  gemm.{f32,f16}_m32: the same kernel on 32 x 128 tiles (products of <= 32 rows);
//   simt_n64   gemm_simt.{f32,f16}_n64: 128 x 64 tiles (products with few 128 x 128 tiles);
//   coopmat    gemm_coopmat.f16: tensor cores, 64 x 64 tiles, any layout;
//   coopmat128 gemm_coopmat.f16_large: 128 x 128 tiles;
//   staged     gemm_coopmat_staged.f16: tensor cores, 64 x 128 tiles, double-buffered staging
//              (16-byte loads where rows allow, else gathered), any layout but im2col (this tile
//              only where VOLVOX_VK_STAGED_TILE asks for it);
//   staged_large gemm_coopmat_staged.f16_large: 128 x 128 tiles (products with >= 256 of them);
//   staged_n64, staged_m32n64 gemm_coopmat_staged.f16_{n64,m32n64}: 64 x 64 and 32 x 64 tiles
//              (products with fewer 128 x 128 tiles; gemm_plan.cpp's choose_staged_tile);
//   rows       gemm_rows.{f32,f16}: 16 outputs of one row per workgroup, K over 16 slices of
//              threads, never split (products of few rows);
//   gemv       gemm_gemv.{f32,f16}: 8 outputs of one row per workgroup, K over 256 slices of
//              threads, B read in 16-byte words (products of few rows whose B rows allow them).
// VOLVOX_VK_GEMM chooses: "tiled" (the old 64 x 64 kernel everywhere: the baseline of
// measurements), "simt" (simt / simt_n64 everywhere), "coopmat" | "coopmat128" | "staged" (where
// the device has fp16 16x16x16 cooperative matrices and the storage is fp16; staged also needs B
// to be no im2col matrix), "rows", "gemv" (where B's rows load as words), "tiled_m32", or "auto"
// (the default): gemv for M <= 4 where B's rows load as words, else rows for M <= 4, K <= 1536,
// both without im2col; tiled_m32 for M <= 32 over >= 4096 columns; staged (its tile by tile count and
// how B loads) where it can run and the product has at least 2^22 multiply-adds (below, it loses to
// the 64 x 64 kernel with split K); else simt for M >= 1024 with >= 128 tiles of 128 x 128; else tiled.
enum class GemmKernel {
  tiled, tiled_m32, simt, simt_n64, coopmat, coopmat128, staged, staged_large, staged_n64, staged_m32n64, rows, gemv
};
struct GemmLayout {
  // Rows of A / B load as 16-byte vectors (B: counting rows padded for the staged kernel's loads).
  bool a_vec = false, b_vec = false;
  bool b_im2col = false;
  int64_t batches = 1;
};
GemmKernel choose_gemm_kernel(const OpInfo& info, DeviceType storage, int64_t m, int64_t n, int64_t k,
                              const GemmLayout& layout);

// Split K: a product with fewer than 128 output tiles of 64 x 64 (over all batches) and K >= 256
// is cut into K chunks of >= 64 run as separate workgroups (up to 384 in all; the staged kernel
// by its own cost model, up to 256) that write fp32 partial sums to a scratch buffer; a second dispatch
// (gemm_reduce) adds them and applies the epilogue, or, for few splits on the 64 x 64 kernel where
// VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS allows it, the last split of each tile to finish does
// ("+reduceByLastSplit": arrival counts in OpPlan::counter_words, shaders/gemm_split_arrival.glsl).
// VOLVOX_VK_SPLITK = N forces N splits (tests,
// measurements; 1 = never). With layer_norm, a split product's second dispatch also normalises
// the rows (gemm_reduce_layer_norm, rows of at most kLayerNormMaxColumns, subgroup arithmetic);
// otherwise the product goes to a scratch buffer and a LayerNorm dispatch (layer_norm.h) follows.
//
// Appends the dispatches of one GEMM (several when the batch exceeds one dispatch's workgroup
// count) and returns the variant ("tiled", "coopmat", "coopmat128", "tiled_splitk4", with "+vecA" / "+vecB" when
// A's rows (K-contiguous) / B's rows (N-contiguous) are staged with 16-byte loads).
// With `deferred_reduce`, a split product's gemm_reduce dispatch (one dispatch's batches, no layer
// norm) is not appended but returned there, with the GEMM's whole list of specialization
// constants, for the caller to record later or to turn into a gemm_reduce_im2col pass
// (kernels/conv.cpp, vx.ConvPair); its shader stays empty where nothing was deferred.
std::string add_gemm(OpPlan& plan, const OpInfo& info, const GemmDesc& d, DeviceType storage,
                     Dispatch* deferred_reduce = nullptr);

}  // namespace vx::vk

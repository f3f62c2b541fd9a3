#include "backends/vulkan/kernels/gemm_plan.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <type_traits>

#include "backends/vulkan/context.h"
#include "backends/vulkan/kernels/layer_norm.h"
#include "backends/vulkan/knobs.h"

namespace vx::vk {
namespace {

// Mirrors the push-constant block of shaders/gemm_io.glsl.
struct GemmPush {
  int32_t m, n, k;
  int32_t sam, sak, sbk, sbn, scm, scn;
  int32_t z0_count;
  int32_t a_z1, a_z0, b_z1, b_z0, c_z1, c_z0, o_z1, o_z0;
  int32_t a_base, b_base, c_base, o_base;
  float alpha, beta;
  int32_t flags;
  int32_t splits, k_chunk, batches;
};
static_assert(sizeof(GemmPush) == 112);

constexpr int64_t kMaxGroups = 65535;
// Split K when a product has fewer output tiles than kFewTiles (a big GPU runs over a hundred
// workgroups at once) and K is at least kMinSplitK, into up to kTargetGroups workgroups in all with
// chunks of at least kMinChunk. At batch 1 a K step of 16 costs a lone 64 x 64 workgroup ~1.5 us on
// the H200 and a split ~5-10 us (partial sums and the reduce dispatch): ResNet-50's, MobileNetV3's
// and a transformer's products measured best at 130-470 workgroups with chunks of 64-160, and
// unsplit at K <= 128 (bench/onnx/results/vulkan_gemm_h200_2026-12-04/). Adding the splits in the
// GEMM's own dispatch instead (the last split of a tile to finish reads the others) made every split
// product 1.3-2x slower there: one workgroup a tile then reads all the partials
// (bench/onnx/results/vulkan_splitk_h200_2026-12-04/).
constexpr int64_t kFewTiles = 128, kTargetGroups = 384, kMinChunk = 64, kMinSplitK = 256;
// Products of at most kM32MaxM rows and at least kM32MinN columns (batches included) take the 32 x 128
// tile of the 64 x 64 kernel's shader.
constexpr int64_t kM32MaxM = 32, kM32MinN = 4096;
// Products of at most this many rows run on the gemv kernel (shaders/gemm_gemv.comp) where B's rows
// load as 16-byte words, else, up to this many terms, on the rows kernel (shaders/gemm_rows.comp).
constexpr int64_t kRowsMaxM = 4, kRowsMaxK = 1536;
// Rows gemm_reduce_layer_norm normalises: its 128 threads hold 8 values each.
constexpr int64_t kLayerNormMaxColumns = 1024;
constexpr size_t kYQuadsConstantId = 39;  // shaders/gemm_io.glsl: Y_QUADS
// gemm_reduce_layer_norm's specialization constants LN_EPSILON and LN_BIAS.
constexpr size_t kLayerNormConstantsId = 40;

// K splits for the 64 x 64 and SIMT kernels: VOLVOX_VK_SPLITK = N forces N (tests), else by tile count.
int64_t choose_splits(int64_t tiles, int64_t k) {
  if (const char* env = std::getenv("VOLVOX_VK_SPLITK"); env && *env) return std::max<int64_t>(1, std::atoll(env));
  if (tiles >= kFewTiles || k < kMinSplitK) return 1;
  return std::min((kTargetGroups + tiles - 1) / tiles, k / kMinChunk);
}

// K splits for the staged tensor-core kernel. Fitted to an H200 sweep at M = 128 (1, 2 and up to
// 20 splits; bench/onnx/results/gemm_h200.md): a run costs about 16 us + 0.6 us per K step of 32
// of one workgroup + 1.7 us per MB of fp32 partial sums (written and reduced), which is least at
// splits = sqrt(2824 K / (batches M N)); measured best: 2 for [128x768]x[768x2304] and
// [128x768]x[768x3072] (-25 to -30% against 8 and 6), ~10-20 for [128x3072]x[3072x768]. Products
// with kFewTiles tiles or more stay whole only up to kStagedUnsplitMaxK: on 32 x 64 tiles DeepLabV3's
// ASPP layers (K 8640) took 0.23 ms unsplit against 0.13 split 9 on 64 x 64 tiles, its 1x1 layers of
// K 960-1280 0.04-0.05 against 0.025-0.029 split 3 (H100, session 31). Nor more workgroups than
// kMaxSplitGroups: in session 32 a cap of 256 (twice the GPU's 132 SMs) took ResNet-50 0.922 ->
// 0.874 ms and DeepLabV3 1.406 -> 1.382 (H100), the formula's 9 splits of DeepLabV3's ASPP product
// on 72 tiles having taken 0.089 ms against 0.076 for 3 (H200).
// Since then the models run fewer, shorter dispatches, and in session 46 (H100, two interleaved
// rounds, bench/onnx/results/session46_2026-12-07/call6/) twice the formula's constant (5648), a cap
// of 512 workgroups and products of >= kFewTiles tiles split from K 257 on (the encoder's products
// at 128 tokens: QKV and the FFN up-projection, K 512, in 3, the out-projection in 6, the
// down-projection in 13) took the encoder 0.411-0.413 -> 0.390-0.391 ms of GPU time, ResNet-50
// 0.719-0.720 -> 0.706-0.707 and DeepLabV3 1.109-1.110 -> 1.077-1.079, MobileNetV3 unchanged (0.489);
// the cap alone or the constant alone moved the encoder by 0.001-0.002, 1024 and 11296 were slower
// on ResNet-50 (0.712). The constant traded ResNet-50 against the others (call 7): at 4000 / 5648 /
// 8000 ResNet-50 0.696 / 0.705 / 0.710 ms, the encoder 0.395 / 0.390 / 0.387, DeepLabV3 1.092 /
// 1.076 / 1.067; caps of 384 and 768, and a K bound of 128, were level with 512 and 256. ResNet-50's
// loss at 8000 was its 3x3 layers at 14 x 14 reaching kFullGroups (64 x 64 tiles); with that bound at
// 384, 8000 serves all three (session 48, H100, two interleaved rounds,
// bench/onnx/results/session48_2026-12-07/call1/): ResNet-50 0.684-0.692 -> 0.674-0.675 ms,
// DeepLabV3 1.077 -> 1.063-1.067, the encoder 0.364-0.368 -> 0.359-0.363. At 11000 the encoder took
// 0.315-0.318 -> 0.311-0.313 ms, ResNet-50, MobileNetV3 and DeepLabV3 level (session 51, H100,
// interleaved rounds, bench/onnx/results/session51_2026-12-07/call{1,2}/).
constexpr int64_t kStagedUnsplitMaxK = 256, kMaxSplitGroups = 4 * kFewTiles;
// Products of K >= kFullSplitMinK split over this many workgroups or more (by the formula, on 64 x 64
// tiles) take 64 x 64 tiles rather than 32 x 64 (choose_staged_tile; the K bound was
// kStagedUnsplitMaxK's before session 46 and stays as measured). 2 * kFewTiles until session 48:
// ResNet-50's 3x3 layers at 14 x 14 (16 tiles) reached it at 16 splits and ran 1-2 us slower each on
// 64 x 64 tiles than on 32 x 64 (session 47's profiles); DeepLabV3's 3x3 classifier (72 tiles x 8)
// stays above 3 * kFewTiles.
constexpr int64_t kFullGroups = 3 * kFewTiles, kFullSplitMinK = 513;
// The measurement knobs: environment variable `name` where it holds a positive number, else
// `fallback`. VOLVOX_VK_STAGED_SPLIT_COST sets the formula's constant, VOLVOX_VK_STAGED_MAX_GROUPS
// and VOLVOX_VK_STAGED_UNSPLIT_MAX_K replace kMaxSplitGroups and kStagedUnsplitMaxK.
template <typename T>
T positive_env_or(const char* name, T fallback) {
  const char* env = std::getenv(name);
  T v = 0;
  if (env && *env) v = std::is_integral_v<T> ? T(std::atoll(env)) : T(std::atof(env));
  return v > 0 ? v : fallback;
}
// A count knob where 0 means never: environment variable `name` where set, else `fallback`
// (VOLVOX_VK_REDUCE_LANES_MIN_SPLITS, VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS).
int64_t env_or(const char* name, int64_t fallback) {
  const char* env = std::getenv(name);
  return env && *env ? int64_t(std::atoll(env)) : fallback;
}
constexpr double kStagedSplitCost = 11000.0;  // 2824 before session 46, 5648 in 46-47, 8000 in 48-50
int64_t staged_splits_by_cost(int64_t batches, int64_t m, int64_t n, int64_t k) {
  const double cost = positive_env_or("VOLVOX_VK_STAGED_SPLIT_COST", kStagedSplitCost);
  const double best = std::sqrt(cost * double(k) / (double(batches) * double(m) * double(n)));
  return std::clamp<int64_t>(int64_t(best), 1, std::max<int64_t>(1, k / kMinChunk));
}
// A vx.ConvPair's first convolution (add_gemm's `deferred_reduce`) over fewer output channels than
// this (batches included) stays whole on the staged kernel: its split-K reduce pass would become the
// second convolution's im2col pass, a workgroup per channel (gemm_reduce_im2col). With the splits of
// session 46 ResNet-50's layer1.1 and 1.2 pairs (64 channels of 3136 pixels) split their first conv
// in 2 and lost 5-6 us each (call 6's profiles); layers 2-4 (>= 128 channels) gained.
// VOLVOX_VK_PAIR_SPLIT_MIN_CHANNELS replaces it (1: as before; measurements).
constexpr int64_t kPairSplitMinChannels = 128;
// Whether gemm_reduce_layer_norm loads each split's partial sums 4 columns at a time (its quads
// variant, where Y's rows are quads: Y_QUADS). VOLVOX_VK_REDUCE_LN_QUADS=0 loads them one at a time
// (measurements).
bool reduce_ln_quads(bool y_quads) { return y_quads && !knob_off("VOLVOX_VK_REDUCE_LN_QUADS"); }
// A split-K reduce pass of at least this many splits over rows that are not quads spreads each
// element's splits over 8 invocations (gemm_reduce's lanes variant, SPLIT_LANES), where one
// invocation added them in turn: ResNet-50's layer-4 products (49 pixels, 8-29 splits) took
// 0.667-0.668 -> 0.664 ms of GPU time on an H100 (session 49). VOLVOX_VK_REDUCE_LANES_MIN_SPLITS
// replaces it (0: never; measurements).
constexpr int64_t kReduceLanesMinSplits = 8;
constexpr int64_t kReduceSplitLanes = 8;  // gemm_reduce.comp's SPLIT_LANES
bool reduce_split_lanes(int64_t splits, bool y_quads) {
  const int64_t min_splits = env_or("VOLVOX_VK_REDUCE_LANES_MIN_SPLITS", kReduceLanesMinSplits);
  return !y_quads && min_splits > 0 && splits >= min_splits;
}
// A split product on the 64 x 64 FMA kernel (and its 32 x 128 tile) cut in at most this many splits
// may add them in its own dispatch: the last split of each tile to finish reads the others' partials
// and runs the epilogue (shaders/gemm_split_arrival.glsl), which saves the gemm_reduce dispatch and
// the dependency before it (~4 us each on an H100), at the cost of one workgroup a tile reading
// splits x tile partials (session 21's version, which read them one split after the other, made the
// encoder's 64 x 128 products 19-27 -> 39-47 us on the H200). 0 (never) until measured on NVIDIA
// hardware: session 52 had no device. VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS replaces it (tests,
// measurements).
constexpr int64_t kReduceByLastSplitMaxSplits = 0;
constexpr size_t kReduceByLastSplitConstantId = 40;  // shaders/gemm_split_arrival.glsl
bool reduce_by_last_split(int64_t splits) {
  const int64_t max_splits = env_or("VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS", kReduceByLastSplitMaxSplits);
  return splits > 1 && splits <= max_splits;
}
// `max_groups`: kMaxSplitGroups, or kFewTiles for the 128 x 128 tile (below).
int64_t choose_splits_staged(int64_t tiles, int64_t batches, int64_t m, int64_t n, int64_t k, int64_t max_groups) {
  if (const char* env = std::getenv("VOLVOX_VK_SPLITK"); env && *env) return std::max<int64_t>(1, std::atoll(env));
  if ((tiles >= kFewTiles && k <= positive_env_or<int64_t>("VOLVOX_VK_STAGED_UNSPLIT_MAX_K", kStagedUnsplitMaxK)) ||
      k < 2 * kMinChunk)
    return 1;
  return std::clamp<int64_t>(max_groups / tiles, 1, staged_splits_by_cost(batches, m, n, k));
}

// The staged kernel's tile, all of four subgroups. At batch 1 the 64 x 128 tile left products with
// few tiles to split K over (a transformer's 128-row products: 24-32 workgroups for 132 SMs); smaller
// tiles run more workgroups of fewer MMAs each. Measured on an H100 at fp16 (GPU time,
// bench/onnx/results/session31_2026-12-05/): the transformer encoder 0.572 ms on 64 x 128 tiles,
// 0.504 on 64 x 64, 0.479 on 32 x 64; ResNet-50's 1x1 layers 1-8 us faster on 32 x 64 than on
// 64 x 64. But where B's rows do not load as vectors and are long (DeepLabV3's 1x1 layers over 33 x
// 33 pixels) each workgroup gathers its B slice element by element, and 32-row tiles gather it twice
// as often: 5-8 us slower there. And where K is split over so many workgroups that 64 x 64 tiles
// fill the GPU three times over (kFullGroups; DeepLabV3's ASPP layers, K 8640, and its 3x3 classifier),
// the larger tile's fewer loads per multiply-add win: DeepLabV3 1.476 -> 1.406 ms (H100, session
// 32). With every split product of K > 512 on 64 x 64 the encoder's feed-forward down-projection
// (16 tiles x 9 splits) lost (0.463 -> 0.477 ms, H200). So 128 x 128 for products of >= 256 such
// tiles; 64 x 64 where that makes >= kFewTiles workgroups unsplit, or >= kFullGroups split by the
// cost formula, or B is gathered from rows of >= kGatherWideN; else 32 x 64.
// Products of >= kLargeTileMinMacs multiply-adds over K >= kLargeTileMinK whose B rows load as
// words take the 128 x 128 tile too, K split so that the tiles fill the GPU once (kFewTiles
// workgroups, not kMaxSplitGroups): DeepLabV3's ASPP product (256 x 8640 x 1089, 18 tiles) took 0.062 ms
// split 6 there (108 workgroups) against 0.080 on 64 x 64 split 3 and 0.082 split 9 (162: a second
// wave; H100, bench/onnx/results/session38_2026-12-06/). VOLVOX_VK_LARGE_MIN_MACS overrides the
// bound (measurements).
// VOLVOX_VK_STAGED_TILE = 128x128 | 64x128 | 64x64 | 32x64 forces one (tests, measurements; 64 x 128,
// main's tile before session 31, is no longer chosen by itself; >= 256 tiles of 128 x 128 keep it);
// VOLVOX_VK_STAGED_FULL_GROUPS replaces kFullGroups (measurements).
constexpr int64_t kGatherWideN = 1024, kLargeTileMinK = 2048;
constexpr double kLargeTileMinMacs = 0x1p30;
GemmKernel choose_staged_tile(int64_t m, int64_t n, int64_t k, const GemmLayout& layout, uint32_t shared_bytes) {
  auto tiles = [&](int64_t bm, int64_t bn) { return (m + bm - 1) / bm * ((n + bn - 1) / bn) * layout.batches; };
  // gemm_coopmat_staged.f16_large takes 46080 bytes of shared memory.
  const bool large_fits = shared_bytes >= 46080;
  if (tiles(128, 128) >= 256 && large_fits) return GemmKernel::staged_large;
  if (const char* env = std::getenv("VOLVOX_VK_STAGED_TILE"); env && *env) {
    const std::string tile = env;
    if (tile == "128x128" && large_fits) return GemmKernel::staged_large;
    if (tile == "64x128") return GemmKernel::staged;
    if (tile == "64x64") return GemmKernel::staged_n64;
    if (tile == "32x64") return GemmKernel::staged_m32n64;
  }
  const char* large_env = std::getenv("VOLVOX_VK_LARGE_MIN_MACS");
  const double large_min_macs = large_env ? std::atof(large_env) : kLargeTileMinMacs;
  if (large_fits && layout.b_vec && k >= kLargeTileMinK &&
      double(m) * double(n) * double(k) * double(layout.batches) >= large_min_macs)
    return GemmKernel::staged_large;
  const bool wide_gather = !layout.b_vec && n >= kGatherWideN;
  const bool split_full = k >= kFullSplitMinK && tiles(64, 64) * staged_splits_by_cost(layout.batches, m, n, k) >=
                                                     positive_env_or("VOLVOX_VK_STAGED_FULL_GROUPS", kFullGroups);
  return tiles(64, 64) >= kFewTiles || split_full || wide_gather ? GemmKernel::staged_n64 : GemmKernel::staged_m32n64;
}

// How a kernel reads the rows of A and B: element by element (the rows kernel), 16-byte vectors
// where the layout allows (A_VEC / B_VEC), and also 8-byte ones of B (B_VEC 2: gemm.comp and the
// staged tensor-core kernel), or A element by element and B in 16-byte vectors (the gemv kernel).
enum class RowLoads { elements, vectors, vectors_and_half_b, b_vectors };

struct KernelShape {
  const char* shader;   // the stem
  const char* feature;  // of the variant, after its element type ("" for none)
  bool f16_only;        // the tensor-core kernels: their variant is f16 whatever the storage
  int64_t tile_m, tile_n;
  const char* family;  // the variant's prefix
  const char* suffix;  // after "@"; empty for the older kernels
  RowLoads loads;
  bool splits_k;  // K may be split over workgroups (gemm_reduce adds the partial sums)
};

KernelShape kernel_shape(GemmKernel kernel) {
  constexpr RowLoads vectors = RowLoads::vectors, half_b = RowLoads::vectors_and_half_b;
  switch (kernel) {
    case GemmKernel::tiled: return {"gemm", "", false, 64, 64, "tiled", "", half_b, true};
    case GemmKernel::tiled_m32: return {"gemm", "m32", false, 32, 128, "tiled", "m32x128", half_b, true};
    case GemmKernel::simt: return {"gemm_simt", "", false, 128, 128, "tiled", "simt128x128", vectors, true};
    case GemmKernel::simt_n64: return {"gemm_simt", "n64", false, 128, 64, "tiled", "simt128x64", vectors, true};
    case GemmKernel::coopmat: return {"gemm_coopmat", "", true, 64, 64, "coopmat", "", vectors, true};
    case GemmKernel::coopmat128: return {"gemm_coopmat", "large", true, 128, 128, "coopmat128", "", vectors, true};
    case GemmKernel::staged: return {"gemm_coopmat_staged", "", true, 64, 128, "coopmat", "staged64x128", half_b, true};
    case GemmKernel::staged_large:
      return {"gemm_coopmat_staged", "large", true, 128, 128, "coopmat", "staged128x128", half_b, true};
    case GemmKernel::staged_n64: return {"gemm_coopmat_staged", "n64", true, 64, 64, "coopmat", "staged64x64", half_b, true};
    case GemmKernel::staged_m32n64:
      return {"gemm_coopmat_staged", "m32n64", true, 32, 64, "coopmat", "staged32x64", half_b, true};
    case GemmKernel::rows: return {"gemm_rows", "", false, 1, 16, "rows", "", RowLoads::elements, false};
    case GemmKernel::gemv: return {"gemm_gemv", "", false, 1, 8, "gemv", "", RowLoads::b_vectors, false};
  }
  return {"gemm", "", false, 64, 64, "tiled", "", half_b, true};
}

std::string shader_name(const KernelShape& ks, DeviceType storage) {
  return shader_variant(ks.shader, {ks.f16_only ? DeviceType::f16 : storage}, ks.feature);
}

// The gemv kernel adds its threads' sums with subgroup reductions where the device has them
// (VOLVOX_VK_GEMV_SUBGROUP=0: the shared-memory tree, for measurements).
bool gemv_subgroup_sum(const OpInfo& info) {
  return info.device.has_subgroup_arithmetic() && !knob_off("VOLVOX_VK_GEMV_SUBGROUP");
}

int32_t i32(const OpInfo& info, int64_t v, const char* what) {
  if (v < INT_MIN || v > INT_MAX) decline(info, what, " ", v, " does not fit 32-bit indexing");
  return int32_t(v);
}

}  // namespace

GemmActivation parse_gemm_activation(const OpInfo& info, const std::string& name) {
  if (name == "none" || name.empty()) return GemmActivation::none;
  if (name == "relu") return GemmActivation::relu;
  if (name == "gelu_erf") return GemmActivation::gelu_erf;
  if (name == "gelu_tanh") return GemmActivation::gelu_tanh;
  decline(info, "unknown activation '", name, "'");
}

GemmKernel choose_gemm_kernel(const OpInfo& info, DeviceType storage, int64_t m, int64_t n, int64_t k,
                              const GemmLayout& layout) {
  const char* env = std::getenv("VOLVOX_VK_GEMM");
  const std::string mode = env ? env : "auto";
  const bool tensor_cores = storage == DeviceType::f16 && info.coopmat;
  const bool staged_fits = tensor_cores && !layout.b_im2col;
  const int64_t tiles128 = (m + 127) / 128 * ((n + 127) / 128) * layout.batches;
  // Shared memory: gemm_simt (BN 128) takes 32768 bytes.
  const uint32_t shared = info.device.max_shared_memory;
  const GemmKernel staged = choose_staged_tile(m, n, k, layout, shared);
  const GemmKernel simt = tiles128 >= kFewTiles && shared >= 32768 ? GemmKernel::simt : GemmKernel::simt_n64;
  if (mode == "rows") return GemmKernel::rows;
  const bool gemv_fits = layout.b_vec && !layout.b_im2col;
  if (mode == "gemv" && gemv_fits) return GemmKernel::gemv;
  const bool gemv_auto = gemv_fits && !knob_off("VOLVOX_VK_GEMV");  // "0": not chosen by itself (measurements)
  if (mode == "tiled") return GemmKernel::tiled;
  if (mode == "tiled_m32") return GemmKernel::tiled_m32;
  if (mode == "simt") return simt;
  if (tensor_cores && mode == "coopmat") return GemmKernel::coopmat;
  if (tensor_cores && mode == "coopmat128") return GemmKernel::coopmat128;
  if (staged_fits && mode == "staged") return staged;
  // "auto" (the default). Measured on the H200 (bench/onnx/results/gemm_h200.md,
  // vulkan_gemm_choice_h200_2026-12-03/, vulkan_gemm_h200_2026-12-04/): the staged tensor-core
  // kernel beats the 64 x 64 kernel at fp16 by 1.1-1.4x at a decoder's M = 128 products of 226-302 M
  // multiply-adds and 4.6x at 2048^3. On its 64 x 128 tile it lost to the 64 x 64 kernel with K split
  // below 2^26 multiply-adds; on the smaller tiles (choose_staged_tile) it wins down to ResNet-50's
  // and MobileNetV3's 1x1 layers of 2^23-2^26 (H100, session 31: ResNet-50 1.166 -> 1.139 ms with
  // every product staged, MobileNetV3 0.570 -> 0.549, the encoder 0.504 -> 0.490), hence 2^22.
  // At fp32 the register-tiled SIMT kernel only wins on large products (1.04x at 2048^3; 0.85-0.93x
  // at M = 128, where split K dominates), so it is taken for M >= 1024 with many tiles.
  // A product of at most kRowsMaxM rows (a classifier head at batch 1) on the gemv kernel where B's
  // rows load as 16-byte words: ResNet-50's head (K 2048) 9 us there against 19 on the 64 x 64
  // kernel with K split 22, MobileNetV3's (K 1280 and 960) 8 against 9 and 8 on the rows kernel
  // (H100, bench/onnx/results/session36_2026-12-06/, call 4). Else on the rows kernel up to
  // kRowsMaxK terms: MobileNetV3's heads 8-9 us there against 15 on the 64 x 64 kernel with K
  // split; ResNet-50's 21 against 16 (bench/onnx/results/gemm_rows_h200_2026-12-04/).
  if (m <= kRowsMaxM && gemv_auto) return GemmKernel::gemv;
  if (m <= kRowsMaxM && k <= kRowsMaxK && !layout.b_im2col) return GemmKernel::rows;
  // At most 32 rows over many columns (a detection head's 3x3 conv of 24 outputs at 160 x 160
  // pixels): the 32 x 128 tile, where the 64 x 64 one would compute rows past M for nothing (and the
  // staged kernel's tiles, 128 x 128 for so many columns, more: DeepLabV3's 16-channel 1x1 layer at
  // 260 x 260 pixels 58 us there against 18).
  if (m <= kM32MaxM && n * layout.batches >= kM32MinN) return GemmKernel::tiled_m32;
  const double macs = double(m) * double(n) * double(layout.batches) * double(k);  // in double: no overflow
  if (staged_fits && macs >= 0x1p22) return staged;
  if (m >= 1024 && simt == GemmKernel::simt) return simt;
  return GemmKernel::tiled;
}

std::vector<int32_t> gemm_window_constants(const Window3& w) {
  std::vector<int32_t> spec = w.spec_constants();  // in, kernel, stride, dilation, pad_begin, out (z, y, x)
  spec.erase(spec.begin() + 15);                   // OZ
  return spec;
}

void add_post_op_constants(std::vector<int32_t>& spec, size_t first, const std::vector<PostOp>& ops) {
  if (ops.empty()) return;
  if (ops.size() > kMaxPostOps) fail(ErrorCode::Internal, cat(ops.size(), " post-ops for a shader that takes ", kMaxPostOps));
  if (spec.size() != first)
    fail(ErrorCode::Internal, cat("post-op constants from id ", first, " after ", spec.size(), " constants"));
  spec.push_back(int32_t(ops.size()));
  for (size_t i = 0; i < kMaxPostOps; ++i) spec.push_back(i < ops.size() ? int32_t(ops[i].kind) : 0);
  for (size_t i = 0; i < kMaxPostOps; ++i) spec.push_back(i < ops.size() ? std::bit_cast<int32_t>(ops[i].alpha) : 0);
  for (size_t i = 0; i < kMaxPostOps; ++i) spec.push_back(i < ops.size() ? std::bit_cast<int32_t>(ops[i].beta) : 0);
}

std::string add_gemm(OpPlan& plan, const OpInfo& info, const GemmDesc& d, DeviceType storage, Dispatch* deferred_reduce) {
  if (d.m <= 0 || d.n <= 0) decline(info, "empty product");
  if (d.post_ops.size() > kMaxPostOps) decline(info, d.post_ops.size(), " post-ops (the GEMM takes ", kMaxPostOps, ")");
  const int64_t vec = storage == DeviceType::f16 ? 8 : 4;  // elements per 16 bytes
  auto aligned = [](int64_t width, std::initializer_list<int64_t> values) {
    for (int64_t v : values)
      if (v % width != 0) return false;
    return true;
  };
  const bool a_rows_on_words = d.sak == 1 && aligned(vec, {d.sam, d.a_base, d.a_z1, d.a_z0});
  const bool a_vec_exact = a_rows_on_words && d.k % vec == 0;
  const bool b_rows = !d.b_im2col && !d.b_int8 && d.sbn == 1;  // B's rows are N-contiguous elements
  const bool b_rows_on_words = b_rows && aligned(vec, {d.sbk, d.b_base, d.b_z1, d.b_z0});  // each row starts a word
  const bool b_vec_exact = b_rows_on_words && d.n % vec == 0;
  // Rows padded to whole words: the staged kernel loads a word at any n < N (gemm.comp's loads clamp
  // to N - VEC instead, which needs N a multiple of VEC).
  const bool b_vec_padded = b_rows_on_words && d.b_rows_padded;
  const bool a_vec_padded = a_rows_on_words && d.a_rows_padded;  // likewise for A, zeros past K
  GemmLayout layout;
  layout.a_vec = a_vec_exact || a_vec_padded;
  layout.b_vec = b_vec_exact || b_vec_padded;
  layout.b_im2col = d.b_im2col;
  layout.batches = d.z1_count * d.z0_count;
  const GemmKernel kernel = choose_gemm_kernel(info, storage, d.m, d.n, d.k, layout);
  const KernelShape shape = kernel_shape(kernel);
  const bool staged = std::string_view(shape.shader) == "gemm_coopmat_staged";  // any of its tiles
  const bool gemv = kernel == GemmKernel::gemv;
  const bool gemv_subgroup = gemv && gemv_subgroup_sum(info);  // its sums by subgroup reductions
  const bool a_vec = a_vec_exact || (staged && a_vec_padded);
  const bool b_vec = b_vec_exact || ((staged || gemv) && b_vec_padded);
  // Failing 16-byte loads, the 64 x 64 and staged kernels load B 8 bytes at a time where they can: at
  // fp16 a 14 x 14 image's 196 pixels are a multiple of 4, not 8 (MobileNetV3's and ResNet-50's 1x1
  // layers; on the staged kernel ResNet-50's third-stage ones took 13-14 us instead of 15-18, the
  // model 0.865 -> 0.834 ms: H100, bench/onnx/results/session37_2026-12-06/).
  const bool b_half_vec = !b_vec && b_rows && shape.loads == RowLoads::vectors_and_half_b &&
                          aligned(vec / 2, {d.sbk, d.b_base, d.b_z1, d.b_z0, d.n});
  const int64_t groups_x = (d.n + shape.tile_n - 1) / shape.tile_n, groups_y = (d.m + shape.tile_m - 1) / shape.tile_m;
  if (groups_x > kMaxGroups || groups_y > kMaxGroups || d.z0_count > kMaxGroups)
    decline(info, "product of ", d.m, " x ", d.n, " in ", d.z1_count * d.z0_count, " batches exceeds the dispatch limits");
  // The largest offset each operand is read at must fit 32 bits.
  auto last = [&](int64_t base, int64_t s1, int64_t s0, int64_t rows, int64_t sr, int64_t cols, int64_t sc) {
    return base + (d.z1_count - 1) * s1 + (d.z0_count - 1) * s0 + (rows - 1) * sr + (cols - 1) * sc;
  };
  i32(info, last(d.a_base, d.a_z1, d.a_z0, d.m, d.sam, std::max<int64_t>(d.k, 1), d.sak), "A offset");
  if (!d.b_im2col) i32(info, last(d.b_base, d.b_z1, d.b_z0, std::max<int64_t>(d.k, 1), d.sbk, d.n, d.sbn), "B offset");
  else i32(info, d.b_base + (d.z1_count - 1) * d.b_z1 + (d.z0_count - 1) * d.b_z0 + d.k / std::max<int64_t>(d.conv.kernel_size(), 1) * d.conv.in_size(), "B offset");
  i32(info, last(d.o_base, d.o_z1, d.o_z0, d.m, d.n, d.n, 1), "Y offset");

  // Spec constants (shaders/gemm_io.glsl): modes, the im2col window (defaults without one), and
  // whether A / B rows can be staged with 16-byte loads.
  if (d.b_im2col && d.b_int8) decline(info, "int8 weights as an im2col matrix");
  std::vector<int32_t> spec = {d.b_im2col ? 1 : d.b_int8 ? 2 : 0, d.sam == 1 && d.sak != 1 ? 1 : 0,
                               !d.b_im2col && d.sbk == 1 && d.sbn != 1 ? 1 : 0};
  const std::vector<int32_t> w = gemm_window_constants(d.b_im2col ? d.conv : Window3{});
  spec.insert(spec.end(), w.begin(), w.end());
  spec.push_back(a_vec ? 1 : 0);
  spec.push_back(b_vec ? 1 : b_half_vec ? 2 : 0);
  add_post_op_constants(spec, 22, d.post_ops);  // shaders/gemm_io.glsl: POST_OPS_ID0
  // Y_QUADS (id 39; ids 35-38 unused): every row of Y starts on a multiple of 4 values, in every
  // batch. At id 35, lavapipe gave the FMA kernels (which do not declare it) wrong sums for a
  // residual broadcast along rows (test_parity's FusedMatMulResidual, fp16); cause not found.
  const bool y_quads =
      storage == DeviceType::f16 && d.n % 4 == 0 && d.o_base % 4 == 0 && d.o_z1 % 4 == 0 && d.o_z0 % 4 == 0;
  spec.resize(kYQuadsConstantId, 0);
  spec.push_back(y_quads ? 1 : 0);
  // Batches per dispatch: whole z0 rows, as many z1 as fit the workgroup-count limit.
  const int64_t z1_per_dispatch = std::max<int64_t>(1, kMaxGroups / d.z0_count);
  const int64_t batches = d.z1_count * d.z0_count;
  const int64_t tiles = groups_x * groups_y * batches;
  int64_t splits = 1;
  if (z1_per_dispatch >= d.z1_count && shape.splits_k)
    splits = staged ? choose_splits_staged(tiles, batches, d.m, d.n, d.k,
                                           kernel == GemmKernel::staged_large ? kFewTiles
                                                                           : positive_env_or<int64_t>("VOLVOX_VK_STAGED_MAX_GROUPS", kMaxSplitGroups))
                    : choose_splits(tiles, d.k);
  const char* forced = std::getenv("VOLVOX_VK_SPLITK");
  if (staged && deferred_reduce && !(forced && *forced) &&
      d.m * batches < positive_env_or("VOLVOX_VK_PAIR_SPLIT_MIN_CHANNELS", kPairSplitMinChannels))
    splits = 1;
  int64_t k_chunk = d.k;
  if (splits > 1) {
    k_chunk = (d.k + splits - 1) / splits;
    k_chunk = (k_chunk + 31) / 32 * 32;  // whole K steps of either kernel
    splits = std::max<int64_t>(1, (d.k + k_chunk - 1) / k_chunk);
    const int64_t partials = batches * splits * d.m * d.n;
    if (splits > 1 && (batches * splits > kMaxGroups || partials > INT_MAX)) splits = 1;
    if (splits == 1) k_chunk = d.k;
  }
  // A product whose rows are normalised: in the reduce pass when split (and the rows fit it), else
  // written to a scratch buffer that a LayerNorm dispatch then reads.
  const bool norm_in_reduce =
      d.layer_norm && splits > 1 && d.n <= kLayerNormMaxColumns && info.device.has_subgroup_arithmetic();
  const bool ln_quads = norm_in_reduce && reduce_ln_quads(y_quads);
  // A deferred reduce pass may become another pass (vx.ConvPair's im2col one).
  const bool fma_64 = std::string_view(shape.shader) == "gemm";  // the 64 x 64 kernel and its 32 x 128 tile
  const bool by_last_split = fma_64 && !norm_in_reduce && !deferred_reduce && reduce_by_last_split(splits);
  // Only for a reduce pass this product records itself.
  const bool reduce_lanes =
      splits > 1 && !norm_in_reduce && !by_last_split && !deferred_reduce && reduce_split_lanes(splits, y_quads);
  if (d.layer_norm && (z1_per_dispatch < d.z1_count || d.o_base != 0 || (d.z0_count > 1 && d.o_z0 != d.m * d.n) ||
                       (d.z1_count > 1 && d.o_z1 != d.z0_count * d.m * d.n)))
    decline(info, "rows normalised after a product that is not one dense block");
  Binding y = d.y;
  if (d.layer_norm && !norm_in_reduce) {
    y = Binding::scratch_buffer(int(plan.scratch_bytes.size()));
    plan.scratch_bytes.push_back(uint64_t(batches * d.m * d.n) * device_type_bytes(storage));
  }
  // Unsplit, the partials binding is never accessed; it names Y, which the dispatch writes anyway
  // (not an input: the binding is writable, and validation would count it as a write to it).
  Binding partials = y;
  if (splits > 1) {
    partials = Binding::scratch_buffer(int(plan.scratch_bytes.size()));
    plan.scratch_bytes.push_back(uint64_t(batches * splits * d.m * d.n) * 4);
  }
  for (int64_t z1 = 0; z1 < d.z1_count; z1 += z1_per_dispatch) {
    const int64_t count = std::min(z1_per_dispatch, d.z1_count - z1);
    GemmPush push{};
    push.m = int32_t(d.m);
    push.n = int32_t(d.n);
    push.k = i32(info, d.k, "K");
    push.sam = i32(info, d.sam, "stride");
    push.sak = i32(info, d.sak, "stride");
    push.sbk = i32(info, d.sbk, "stride");
    push.sbn = i32(info, d.sbn, "stride");
    push.scm = i32(info, d.scm, "stride");
    push.scn = i32(info, d.scn, "stride");
    push.z0_count = int32_t(d.z0_count);
    push.a_z1 = i32(info, d.a_z1, "stride");
    push.a_z0 = i32(info, d.a_z0, "stride");
    push.b_z1 = i32(info, d.b_z1, "stride");
    push.b_z0 = i32(info, d.b_z0, "stride");
    push.c_z1 = i32(info, d.c_z1, "stride");
    push.c_z0 = i32(info, d.c_z0, "stride");
    push.o_z1 = i32(info, d.o_z1, "stride");
    push.o_z0 = i32(info, d.o_z0, "stride");
    push.a_base = i32(info, d.a_base + z1 * d.a_z1, "offset");
    push.b_base = i32(info, d.b_base + z1 * d.b_z1, "offset");
    push.c_base = i32(info, d.c_base + z1 * d.c_z1, "offset");
    push.o_base = i32(info, d.o_base + z1 * d.o_z1, "offset");
    push.alpha = d.alpha;
    push.beta = d.beta;
    push.flags = (d.has_c ? 1 : 0) | (d.has_bias ? 4 : 0) | (int32_t(d.act) << 3) | (d.b_int8 ? 32 : 0) |
                 (d.bias_per_row ? 64 : 0);
    push.splits = int32_t(splits);
    push.k_chunk = int32_t(k_chunk);
    push.batches = int32_t(count * d.z0_count);
    Dispatch dispatch;
    dispatch.shader = shader_name(shape, storage);
    if (gemv_subgroup) dispatch.shader += "_subgroup";
    dispatch.spec_constants = spec;
    dispatch.bindings = {d.a, d.b, d.has_c ? d.c : d.a, y, partials, d.has_bias ? d.bias : d.a, d.b_int8 ? d.scale : d.a};
    if (by_last_split) {  // one arrival count per output tile of this dispatch
      dispatch.spec_constants.resize(kReduceByLastSplitConstantId, 0);
      dispatch.spec_constants.push_back(1);
      dispatch.bindings.push_back(Binding::counter_words(int(plan.counter_words.size())));
      plan.counter_words.push_back(uint64_t(groups_x * groups_y * count * d.z0_count));
    }
    dispatch.set_push(push);
    dispatch.groups = {uint32_t(groups_x), uint32_t(groups_y), uint32_t(count * d.z0_count * splits)};
    plan.dispatches.push_back(dispatch);
    if (by_last_split) continue;
    if (norm_in_reduce) {
      dispatch.shader = shader_variant("gemm_reduce_layer_norm", {storage}, ln_quads ? "quads" : "");
      dispatch.spec_constants.resize(kLayerNormConstantsId, 0);  // ids past the post-ops unused
      dispatch.spec_constants.push_back(std::bit_cast<int32_t>(d.ln_epsilon));
      dispatch.spec_constants.push_back(d.has_ln_bias ? 1 : 0);
      dispatch.bindings[0] = d.ln_scale;  // in place of A and B, which the reduce pass never reads
      dispatch.bindings[1] = d.has_ln_bias ? d.ln_bias : d.ln_scale;
      dispatch.groups = linear_groups(uint64_t(count * d.z0_count * d.m), 1);  // a workgroup a row
      plan.dispatches.push_back(std::move(dispatch));
    } else if (splits > 1) {
      dispatch.shader = shader_variant("gemm_reduce", {storage}, reduce_lanes ? "lanes" : y_quads ? "quads" : "");
      const uint64_t elements = uint64_t(count * d.z0_count * d.m * d.n);
      dispatch.groups = linear_groups(reduce_lanes ? elements * kReduceSplitLanes : elements / (y_quads ? 4 : 1), 256);
      if (deferred_reduce && count == d.z1_count) {
        *deferred_reduce = std::move(dispatch);
      } else {
        // The reduce runs the epilogue: it needs the post-ops (and then takes the GEMM's constants).
        if (d.post_ops.empty()) dispatch.spec_constants = {};
        plan.dispatches.push_back(std::move(dispatch));
      }
    }
  }
  std::string variant = shape.family;
  if (splits > 1) variant += "_splitk" + std::to_string(splits);
  if (reduce_lanes) variant += "+reduceLanes";
  if (by_last_split) variant += "+reduceByLastSplit";
  if (norm_in_reduce) variant += ln_quads ? "+reduce_layer_norm_quads" : "+reduce_layer_norm";
  else if (d.layer_norm)
    variant += "+layer_norm_" + add_layer_norm(plan, info, storage, y, d.ln_scale, d.has_ln_bias, d.ln_bias, d.y,
                                               batches * d.m, d.n, d.ln_epsilon);
  if (a_vec && shape.loads != RowLoads::elements && shape.loads != RowLoads::b_vectors) variant += "+vecA";
  if (b_vec && shape.loads != RowLoads::elements) variant += "+vecB";
  if (b_half_vec) variant += "+halfVecB";
  if (gemv_subgroup) variant += "+subgroupSum";
  if (d.b_int8) variant += "+int8B";
  if (*shape.suffix) variant += std::string("@") + shape.suffix;
  return variant;
}

}  // namespace vx::vk

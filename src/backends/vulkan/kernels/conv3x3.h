// The C++ side of the fused 3x3 conv kernels (vx.FusedConv): the descriptor a layer is planned
// from, the variant choice by shape and device, weight repacking for each variant's layout, the
// push constants and the dispatch geometry. The shaders are shaders/conv_{direct,tiled,coopmat}.comp.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/precision.h"
#include "core/tensor.h"

namespace vx::vk {


// coopmat: 4 subgroups per workgroup; coopmat_w: 8 (more warps in flight, fewer accumulators each);
// coopmat_p: coopmat_w with the next K chunk's global loads in flight during the MMAs (register
// prefetch); coopmat_t: coopmat_p with 32 x 16 pixel tiles (8 subgroups of 4 rows), up to 64
// outputs; coopmat_u: 16 subgroups of 2 rows with the prefetch (32 x 16 tiles), up to 64 outputs.
// N split: coopmat_ps / coopmat_us are p / u with the outputs split over 2 workgroups along z (half
// the accumulators per workgroup, the halo staged by each), up to 192 / 128 outputs. coopmat_e:
// p with 16x8x16 fragments (N blocks of 8 outputs, for <= 8 outputs such as the final 3-channel
// conv); coopmat_em: e in runs of 4 tiles along x per workgroup (the register prefetch crossing
// tiles; conv_coopmat.comp's MULTI). 16-byte epilogue stores (EPI16): coopmat_pv / tv / uv / psv /
// usv = p / t / u / ps / us with them; coopmat_uqv / tqv: uv / tv in runs of 4 tiles.
// coopmat_tvr / tqvr: tv / tqv with the tap loop by column offset, each A fragment loaded once for
// the three row offsets (conv_coopmat.comp's REUSE).
// fp32 on tensor cores, "3xFP16" (conv_coopmat.comp's X3): each fp32 operand split into fp16 hi +
// unscaled fp16 lo (weights stored times 256), three MMAs per product, one fp32 accumulator set;
// coopmat_x3c (16 outputs per workgroup) / coopmat_x3cw (32, the fp32 default) add each tap's
// three products to the accumulator by fp32 adds (the MMA accumulation truncates);
// coopmat_x3sw (opt-in) accumulates in the MMAs: faster, less accurate.
// Upsample + concat layers by phase decomposition (conv_coopmat_up.comp, fp16): each output phase
// of the upsampled part is a 2x2 conv at the low resolution with folded weights (4 taps instead of
// 9); coopmat_up: all outputs (<= 64) in one workgroup, coopmat_ups: halves over 2 workgroups along
// z (<= 128), coopmat_upn: 32 outputs per workgroup, as many along z as needed; coopmat_x3up: fp32
// by 3xFP16 with per-tap fp32 adds (as coopmat_x3cw), 32 outputs per workgroup.
// Variants measured and dropped are listed in bench/vulkan/NOTES.md ("Pruned").
enum class ConvVariant {
  direct, tiled, coopmat, coopmat_w, coopmat_p, coopmat_t, coopmat_u, coopmat_ps, coopmat_us, coopmat_e,
  coopmat_em, coopmat_pv, coopmat_tv, coopmat_uv, coopmat_psv, coopmat_usv, coopmat_uqv, coopmat_tqv,
  coopmat_x3c, coopmat_x3cw, coopmat_x3sw, coopmat_up, coopmat_ups, coopmat_upn, coopmat_x3up,
  coopmat_tvr, coopmat_tqvr  // keep last: tests loop up to it
};
const char* variant_name(ConvVariant v);
// "direct" | "tiled" | "coopmat" | "coopmat_w" | "coopmat_p" | "coopmat_t" | "coopmat_u" |
// "coopmat_ps" | "coopmat_us" | "coopmat_e" | "coopmat_em" | "coopmat_pv" | "coopmat_tv" | "coopmat_uv" |
// "coopmat_psv" | "coopmat_usv" | "coopmat_uqv" | "coopmat_tqv" | "coopmat_x3c" | "coopmat_x3cw" |
// "coopmat_x3sw" | "coopmat_up" | "coopmat_ups" | "coopmat_upn" | "coopmat_x3up" | "coopmat_tvr" |
// "coopmat_tqvr"; throws InvalidArgument otherwise.
ConvVariant parse_variant(const std::string& name);

// One fused conv as the kernels see it (OIDN's ConvDesc): 3x3, pad 1, stride 1.
struct ConvDesc {
  int height = 0, width = 0;  // conv resolution (that of the skip input when upsample_concat)
  int cin_a = 0;              // channels of source A (the low-resolution input when upsample_concat)
  int cin_b = 0;              // channels of the skip input (0 without upsample_concat)
  int cout = 0;
  bool relu = false, pool = false, upsample_concat = false;
  // OIDN's fastMath (quality below HIGH): the fp16 tensor-core variants accumulate in fp16 (their
  // h twins); ignored by fp32 and by the direct and tiled kernels.
  bool fast_math = false;

  int cin4_a() const { return (cin_a + 3) / 4; }
  int cin4_b() const { return (cin_b + 3) / 4; }
  int cin4() const { return cin4_a() + cin4_b(); }
  int cout4() const { return (cout + 3) / 4; }
  int out_height() const { return pool ? height / 2 : height; }
  int out_width() const { return pool ? width / 2 : width; }
  double flops() const { return 2.0 * 9 * (cin_a + cin_b) * cout * double(height) * width; }
};

// Whether the variant can run this conv on a device with/without fp16 cooperative matrices.
bool variant_supports(ConvVariant v, const ConvDesc& d, Precision p, bool device_has_coopmat);
// The default: coopmat for fp16 where the device has it, else tiled.
ConvVariant choose_variant(const ConvDesc& d, Precision p, bool device_has_coopmat);

// Weights (f32 [cout, cin_a + cin_b, 3, 3]) repacked for the variant, in the storage precision
// (coopmat is always fp16; coopmat_x3*: an fp16 hi plane of 256 w, then the lo plane, see conv_coopmat.comp;
// coopmat_up*: the folded phase weights of the upsampled part, then the skip part's, see
// conv_coopmat_up.comp). Bias (f32 [cout]) padded to vec4 blocks, always fp32.
std::vector<uint8_t> pack_weights(ConvVariant v, const ConvDesc& d, Precision p, const Tensor& weights);
std::vector<uint8_t> pack_bias(const ConvDesc& d, const Tensor& bias);

// The embedded shader a variant uses ("conv_tiled.f16", "conv_coopmat.n4"; "conv_coopmat.n4h" with fast_math).
std::string shader_name(ConvVariant v, const ConvDesc& d, Precision p);
// Push constants in the order of shaders/conv3x3_io.glsl's Params block.
std::array<int32_t, 12> push_constants(ConvVariant v, const ConvDesc& d);
std::array<uint32_t, 3> dispatch_size(ConvVariant v, const ConvDesc& d);

}  // namespace vx::vk

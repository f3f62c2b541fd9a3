#include "backends/vulkan/kernels/conv3x3.h"

#include <cstring>

#include "core/half.h"

namespace vx::vk {
namespace {

constexpr int kCoopMaxFragments = 8;  // shaders/conv_coopmat.comp variants n1..n8

bool is_coopmat(ConvVariant v) {
  return v == ConvVariant::coopmat || v == ConvVariant::coopmat_w || v == ConvVariant::coopmat_p ||
         v == ConvVariant::coopmat_t || v == ConvVariant::coopmat_p16 || v == ConvVariant::coopmat_t16 ||
         v == ConvVariant::coopmat_k || v == ConvVariant::coopmat_r || v == ConvVariant::coopmat_u;
}

int coop_fragments(const ConvDesc& d) { return (d.cout + 15) / 16; }
int coop_k_chunks(const ConvDesc& d) { return (d.cin4() + 3) / 4; }
uint32_t div_up(int a, int b) { return uint32_t((a + b - 1) / b); }

// Original input channel of padded-concat channel c (blocks of 4 per source), or -1 for padding.
int source_channel(const ConvDesc& d, int c) {
  int pa = d.cin4_a() * 4;
  if (c < pa) return c < d.cin_a ? c : -1;
  int cb = c - pa;
  return cb < d.cin_b ? d.cin_a + cb : -1;
}

void store(std::vector<uint8_t>& out, size_t index, float v, bool half) {
  if (half) {
    uint16_t h = float_to_half(v);
    std::memcpy(out.data() + index * 2, &h, 2);
  } else {
    std::memcpy(out.data() + index * 4, &v, 4);
  }
}

}  // namespace

const char* precision_name(Precision p) { return p == Precision::fp16 ? "fp16" : "fp32"; }

const char* variant_name(ConvVariant v) {
  switch (v) {
    case ConvVariant::direct: return "direct";
    case ConvVariant::tiled: return "tiled";
    case ConvVariant::coopmat: return "coopmat";
    case ConvVariant::coopmat_w: return "coopmat_w";
    case ConvVariant::coopmat_p: return "coopmat_p";
    case ConvVariant::coopmat_t: return "coopmat_t";
    case ConvVariant::coopmat_p16: return "coopmat_p16";
    case ConvVariant::coopmat_t16: return "coopmat_t16";
    case ConvVariant::coopmat_k: return "coopmat_k";
    case ConvVariant::coopmat_r: return "coopmat_r";
    case ConvVariant::coopmat_u: return "coopmat_u";
  }
  return "?";
}

ConvVariant parse_variant(const std::string& name) {
  if (name == "direct") return ConvVariant::direct;
  if (name == "tiled") return ConvVariant::tiled;
  if (name == "coopmat") return ConvVariant::coopmat;
  if (name == "coopmat_w") return ConvVariant::coopmat_w;
  if (name == "coopmat_p") return ConvVariant::coopmat_p;
  if (name == "coopmat_t") return ConvVariant::coopmat_t;
  if (name == "coopmat_p16") return ConvVariant::coopmat_p16;
  if (name == "coopmat_t16") return ConvVariant::coopmat_t16;
  if (name == "coopmat_k") return ConvVariant::coopmat_k;
  if (name == "coopmat_r") return ConvVariant::coopmat_r;
  if (name == "coopmat_u") return ConvVariant::coopmat_u;
  fail(ErrorCode::InvalidArgument, cat("unknown Vulkan conv kernel '", name,
                                       "' (direct, tiled, coopmat, coopmat_w, coopmat_p, coopmat_t, coopmat_p16, coopmat_t16, coopmat_k, coopmat_r, coopmat_u)"));
}

bool variant_supports(ConvVariant v, const ConvDesc& d, Precision p, bool device_has_coopmat) {
  if (!is_coopmat(v)) return true;
  // Shared memory (halo + all-tap weights of one chunk) fits 48 KiB up to 96 outputs with 8
  // subgroups of 2 rows (coopmat_w/p), up to 64 with 8 subgroups of 4 rows (coopmat_t; at 64 outputs
  // with unpadded halo pixels).
  // coopmat_k (32-channel K steps, 16-row tiles) fits up to 32 outputs; coopmat_r (4 subgroups of 4
  // rows) is limited by registers (4 x NFRAG fp32 accumulators plus the prefetch) to 64, coopmat_u
  // (16 subgroups of 2 rows, 32-row tiles) by shared memory to 64 (unpadded halo pixels at 64).
  int max_fragments = 6;
  if (v == ConvVariant::coopmat_t || v == ConvVariant::coopmat_t16 || v == ConvVariant::coopmat_r ||
      v == ConvVariant::coopmat_u)
    max_fragments = 4;
  if (v == ConvVariant::coopmat_k) max_fragments = 2;
  if (v == ConvVariant::coopmat) max_fragments = kCoopMaxFragments;
  return p == Precision::fp16 && device_has_coopmat && coop_fragments(d) <= max_fragments;
}

ConvVariant choose_variant(const ConvDesc& d, Precision p, bool device_has_coopmat) {
  if (!variant_supports(ConvVariant::coopmat, d, p, device_has_coopmat)) return ConvVariant::tiled;
  // Per-layer medians on an H200 (bench/vulkan/results/v5{a,b}_vulkan.md, v6b_vulkan.md; 1080p and
  // 4K): 32 x 16 tiles win for 32/48 outputs and for 64 outputs with >= 4 chunks; of those, 16
  // subgroups of 2 rows (coopmat_u) beat 8 of 4 rows (coopmat_t) at 48 outputs, at 32 outputs with
  // one chunk and at 64 outputs with 4-7 chunks (dec_conv1a -7%); the register prefetch pays where
  // there are many chunks to overlap, while for few chunks at 80/96 outputs its extra registers
  // cost more than it hides (coopmat_w); 112/128 outputs only fit coopmat.
  const int fragments = coop_fragments(d), chunks = coop_k_chunks(d);
  if (fragments == 3 || (fragments == 2 && chunks == 1) || (fragments == 4 && chunks >= 4 && chunks < 8))
    return ConvVariant::coopmat_u;
  if (fragments == 2 || (fragments == 4 && chunks >= 8)) return ConvVariant::coopmat_t;
  if (fragments <= 4 || (fragments <= 6 && chunks > 6)) return ConvVariant::coopmat_p;
  if (fragments <= 6) return ConvVariant::coopmat_w;
  return ConvVariant::coopmat;
}

std::vector<uint8_t> pack_weights(ConvVariant v, const ConvDesc& d, Precision p, const Tensor& weights) {
  Tensor w = weights.dtype() == DType::f32 ? weights : weights.to(DType::f32);
  const int cin = d.cin_a + d.cin_b;
  VX_CHECK(w.rank() == 4 && w.dim(0) == d.cout && w.dim(1) == cin && w.dim(2) == 3 && w.dim(3) == 3, InvalidArgument,
           "conv weights have shape ", w.shape().str(), ", expected [", d.cout, ", ", cin, ", 3, 3]");
  const float* src = w.data<float>();
  auto weight = [&](int o, int c, int tap) { return src[(size_t(o) * cin + c) * 9 + tap]; };

  if (is_coopmat(v)) {
    const int n_pad = coop_fragments(d) * 16, kc = coop_k_chunks(d);
    std::vector<uint8_t> out(size_t(9) * kc * 16 * n_pad * 2, 0);
    for (int t = 0; t < 9; ++t)
      for (int k = 0; k < kc * 16; ++k) {
        int c = k < d.cin4() * 4 ? source_channel(d, k) : -1;
        if (c < 0) continue;
        for (int o = 0; o < d.cout; ++o) store(out, (size_t(t) * kc * 16 + k) * n_pad + o, weight(o, c, t), true);
      }
    return out;
  }
  // vec4 w[((o4 * 9 + tap) * cin4 + i) * 4 + k][lane] = weight(4 * o4 + lane, channel 4i + k, tap)
  const bool half = p == Precision::fp16;
  const int cin4 = d.cin4(), cout4 = d.cout4();
  std::vector<uint8_t> out(size_t(cout4) * 9 * cin4 * 16 * (half ? 2 : 4), 0);
  for (int o = 0; o < d.cout; ++o)
    for (int t = 0; t < 9; ++t)
      for (int k = 0; k < cin4 * 4; ++k) {
        int c = source_channel(d, k);
        if (c < 0) continue;
        size_t index = ((size_t(o / 4) * 9 + t) * cin4 * 4 + k) * 4 + o % 4;
        store(out, index, weight(o, c, t), half);
      }
  return out;
}

std::vector<uint8_t> pack_bias(const ConvDesc& d, const Tensor& bias) {
  Tensor b = bias.dtype() == DType::f32 ? bias : bias.to(DType::f32);
  VX_CHECK(b.numel() == d.cout, InvalidArgument, "conv bias has ", b.numel(), " values, expected ", d.cout);
  std::vector<uint8_t> out(size_t(d.cout4()) * 16, 0);
  std::memcpy(out.data(), b.data<float>(), size_t(d.cout) * 4);
  return out;
}

std::string shader_name(ConvVariant v, const ConvDesc& d, Precision p) {
  switch (v) {
    case ConvVariant::direct: return p == Precision::fp16 ? "conv_direct.fp16" : "conv_direct";
    case ConvVariant::tiled: return p == Precision::fp16 ? "conv_tiled.fp16" : "conv_tiled";
    case ConvVariant::coopmat: return cat("conv_coopmat.n", coop_fragments(d));
    case ConvVariant::coopmat_w: return cat("conv_coopmat.w", coop_fragments(d));
    case ConvVariant::coopmat_p: return cat("conv_coopmat.p", coop_fragments(d));
    case ConvVariant::coopmat_t: return cat("conv_coopmat.t", coop_fragments(d));
    case ConvVariant::coopmat_p16: return cat("conv_coopmat.q", coop_fragments(d));
    case ConvVariant::coopmat_t16: return cat("conv_coopmat.h", coop_fragments(d));
    case ConvVariant::coopmat_k: return cat("conv_coopmat.k", coop_fragments(d));
    case ConvVariant::coopmat_r: return cat("conv_coopmat.r", coop_fragments(d));
    case ConvVariant::coopmat_u: return cat("conv_coopmat.u", coop_fragments(d));
  }
  return "";
}

std::array<int32_t, 12> push_constants(ConvVariant v, const ConvDesc& d) {
  return {d.height,         d.width,         d.cin4_a(),       d.cin4_b(),       d.cout4(),          d.out_height(),
          d.out_width(),    int(d.relu),     int(d.pool),      int(d.upsample_concat), coop_k_chunks(d), coop_fragments(d) * 16};
}

std::array<uint32_t, 3> dispatch_size(ConvVariant v, const ConvDesc& d) {
  switch (v) {
    case ConvVariant::direct: return {div_up(d.out_width(), 8), div_up(d.out_height(), 8), uint32_t(d.cout4())};
    case ConvVariant::tiled: return {div_up(d.width, 16), div_up(d.height, 16), div_up(d.cout4(), 4)};
    case ConvVariant::coopmat:  // tile rows: 4 subgroups x (4 rows up to 64 outputs, else 2)
      return {div_up(d.width, 16), div_up(d.height, coop_fragments(d) <= 4 ? 16 : 8), 1};
    case ConvVariant::coopmat_w:  // 8 subgroups x 2 rows
    case ConvVariant::coopmat_p:
    case ConvVariant::coopmat_p16:
    case ConvVariant::coopmat_k:
    case ConvVariant::coopmat_r:  // 4 subgroups x 4 rows
      return {div_up(d.width, 16), div_up(d.height, 16), 1};
    case ConvVariant::coopmat_t:  // 8 subgroups x 4 rows
    case ConvVariant::coopmat_t16:
    case ConvVariant::coopmat_u:  // 16 subgroups x 2 rows
      return {div_up(d.width, 16), div_up(d.height, 32), 1};
  }
  return {0, 0, 0};
}

}  // namespace vx::vk

#include "backends/vulkan/kernels/conv3x3.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/half.h"

namespace vx::vk {
namespace {

// The cooperative-matrix variants: shader prefix (conv_coopmat.<prefix><fragments per workgroup>),
// fragment width along N, the most fragments one workgroup's shader handles (shared memory and
// registers, see variant_supports), how many workgroups along z share the N blocks (0: one per
// fragment group of max_wg), the tile rows, the precision it runs and whether it runs it by
// 3xFP16 (X3 in the shader: an fp16 hi and lo plane each, the weights stored times 256).
struct CoopShape {
  ConvVariant variant;
  const char* name;
  const char* prefix;
  int nw, max_wg, split, rows;
  Precision precision;
  bool x3 = false;
  int tiles = 1;  // tiles along x per workgroup (MULTI shaders: the dispatch sets the run length)
  bool phase = false;  // conv_coopmat_up.comp: upsample + concat by phase decomposition (rows x 32 tiles)
};
// split: 1 = all outputs in one workgroup, 2 = halves over 2 workgroups, 0 = max_wg outputs per
// workgroup and as many workgroups as needed.
constexpr CoopShape kCoopShapes[] = {
    {ConvVariant::coopmat, "coopmat", "n", 16, 8, 1, 0, Precision::fp16},
    {ConvVariant::coopmat_w, "coopmat_w", "w", 16, 6, 1, 16, Precision::fp16},
    {ConvVariant::coopmat_p, "coopmat_p", "p", 16, 6, 1, 16, Precision::fp16},
    {ConvVariant::coopmat_t, "coopmat_t", "t", 16, 4, 1, 32, Precision::fp16},
    {ConvVariant::coopmat_u, "coopmat_u", "u", 16, 4, 1, 32, Precision::fp16},
    {ConvVariant::coopmat_ps, "coopmat_ps", "p", 16, 6, 2, 16, Precision::fp16},
    {ConvVariant::coopmat_us, "coopmat_us", "u", 16, 4, 2, 32, Precision::fp16},
    {ConvVariant::coopmat_e, "coopmat_e", "e", 8, 1, 1, 16, Precision::fp16},
    {ConvVariant::coopmat_em, "coopmat_em", "em", 8, 1, 1, 16, Precision::fp16, false, 4},
    {ConvVariant::coopmat_pv, "coopmat_pv", "pv", 16, 6, 1, 16, Precision::fp16},
    {ConvVariant::coopmat_tv, "coopmat_tv", "tv", 16, 4, 1, 32, Precision::fp16},
    {ConvVariant::coopmat_uv, "coopmat_uv", "uv", 16, 4, 1, 32, Precision::fp16},
    {ConvVariant::coopmat_psv, "coopmat_psv", "pv", 16, 6, 2, 16, Precision::fp16},
    {ConvVariant::coopmat_usv, "coopmat_usv", "uv", 16, 4, 2, 32, Precision::fp16},
    {ConvVariant::coopmat_uqv, "coopmat_uqv", "uqv", 16, 4, 1, 32, Precision::fp16, false, 4},
    {ConvVariant::coopmat_tqv, "coopmat_tqv", "tqv", 16, 4, 1, 32, Precision::fp16, false, 4},
    {ConvVariant::coopmat_tvr, "coopmat_tvr", "tvr", 16, 4, 1, 32, Precision::fp16},
    {ConvVariant::coopmat_tqvr, "coopmat_tqvr", "tqvr", 16, 4, 1, 32, Precision::fp16, false, 4},
    {ConvVariant::coopmat_x3c, "coopmat_x3c", "c", 16, 1, 0, 16, Precision::fp32, true},
    {ConvVariant::coopmat_x3cw, "coopmat_x3cw", "c", 16, 2, 0, 16, Precision::fp32, true},
    {ConvVariant::coopmat_x3sw, "coopmat_x3sw", "g", 16, 2, 0, 16, Precision::fp32, true},
    {ConvVariant::coopmat_up, "coopmat_up", "n", 16, 4, 1, 16, Precision::fp16, false, 1, true},
    {ConvVariant::coopmat_ups, "coopmat_ups", "n", 16, 4, 2, 16, Precision::fp16, false, 1, true},
    {ConvVariant::coopmat_upn, "coopmat_upn", "n", 16, 2, 0, 16, Precision::fp16, false, 1, true},
    {ConvVariant::coopmat_x3up, "coopmat_x3up", "c", 16, 2, 0, 8, Precision::fp32, true, 1, true},
};

const CoopShape* coop_shape(ConvVariant v) {
  for (const auto& s : kCoopShapes)
    if (s.variant == v) return &s;
  return nullptr;
}

uint32_t div_up(int a, int b) { return uint32_t((a + b - 1) / b); }
int coop_k_chunks(const ConvDesc& d) { return (d.cin4() + 3) / 4; }
// Phase-decomposed upsample + concat (conv_coopmat_up.comp): 16-channel chunks of the upsampled
// source A and of the skip source B, counted apart (a chunk never mixes the two).
int phase_chunks_a(const ConvDesc& d) { return (d.cin4_a() + 3) / 4; }
int phase_chunks_b(const ConvDesc& d) { return (d.cin4_b() + 3) / 4; }
// Kernel rows dy (or columns dx) of a 3x3 conv over upsample2x(A) that read A's row i - 1 + a + u
// for output row 2i + a (phase a, 2x2 window tap u): the weights of these rows are added.
std::vector<int> phase_taps(int a, int u) {
  if (a == 0) return u == 0 ? std::vector<int>{0} : std::vector<int>{1, 2};
  return u == 0 ? std::vector<int>{0, 1} : std::vector<int>{2};
}
int coop_fragments(const CoopShape& s, const ConvDesc& d) { return (d.cout + s.nw - 1) / s.nw; }  // all outputs
// Fragments one workgroup computes, and workgroups along z.
int coop_wg_fragments(const CoopShape& s, const ConvDesc& d) {
  int f = coop_fragments(s, d);
  if (s.split == 0) return std::min(f, s.max_wg);
  return (f + s.split - 1) / s.split;
}
int coop_groups_z(const CoopShape& s, const ConvDesc& d) {
  return int(div_up(coop_fragments(s, d), coop_wg_fragments(s, d)));
}
int coop_n_pad(const CoopShape& s, const ConvDesc& d) { return coop_groups_z(s, d) * coop_wg_fragments(s, d) * s.nw; }

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

constexpr float kWeightScale = 256.0f;  // 1 / W_SCALE_INV (X3)

// A cooperative-matrix weight at `at` (fp16): w itself, or with x3 256 w split into an fp16 hi there
// and the rest (256 w - hi) as an fp16 lo `plane` values further (the lo plane).
void store_coop_weight(std::vector<uint8_t>& out, size_t at, size_t plane, float w, bool x3) {
  if (!x3) return store(out, at, w, true);
  const float x = w * kWeightScale;
  store(out, at, x, true);
  store(out, plane + at, x - half_to_float(float_to_half(x)), true);
}

}  // namespace

const char* variant_name(ConvVariant v) {
  if (v == ConvVariant::direct) return "direct";
  if (v == ConvVariant::tiled) return "tiled";
  const CoopShape* s = coop_shape(v);
  return s ? s->name : "?";
}

ConvVariant parse_variant(const std::string& name) {
  if (name == "direct") return ConvVariant::direct;
  if (name == "tiled") return ConvVariant::tiled;
  std::string known = "direct, tiled";
  for (const auto& s : kCoopShapes) {
    if (name == s.name) return s.variant;
    known += cat(", ", s.name);
  }
  fail(ErrorCode::InvalidArgument, cat("unknown Vulkan conv kernel '", name, "' (", known, ")"));
}

bool variant_supports(ConvVariant v, const ConvDesc& d, Precision p, bool device_has_coopmat) {
  const CoopShape* s = coop_shape(v);
  if (!s) return true;
  // Shared memory (halo + all-tap weights of one chunk) fits 48 KiB up to 6 fragments per
  // workgroup with 8 subgroups of 2 rows (coopmat_w/p), up to 4 with 8 subgroups of 4 rows
  // (coopmat_t; at 4 with unpadded halo pixels) or 16 of 2 rows (coopmat_u, likewise).
  // The split variants hold half the fragments per workgroup; the x3 ones take any count. The phase
  // variants (48 KiB at 4 fragments) run only upsample + concat layers without a pool, whose
  // resolution is twice the low-resolution input's (even, as the executable checks).
  if (s->phase && (!d.upsample_concat || d.pool || d.height % 2 != 0 || d.width % 2 != 0)) return false;
  return p == s->precision && device_has_coopmat && coop_wg_fragments(*s, d) <= s->max_wg;
}

namespace {

// The v8 rule (fp16 on a device with cooperative matrices). Per-layer medians on an H200
// (bench/vulkan/results/v5{a,b}_vulkan.md, v6b_vulkan.md; 1080p and 4K): 32 x 16 tiles win for 32/48
// outputs and for 64 outputs with >= 4 chunks; of those, 16 subgroups of 2 rows (coopmat_u) beat 8
// of 4 rows (coopmat_t) at 48 outputs, at 32 outputs with one chunk and at 64 outputs with 4-7
// chunks (dec_conv1a -7%); the register prefetch pays where there are many chunks to overlap, while
// for few chunks at 80/96 outputs its extra registers cost more than it hides (coopmat_w);
// 112/128 outputs only fit coopmat.
ConvVariant choose_coop_v8(const ConvDesc& d) {
  const int fragments = (d.cout + 15) / 16, chunks = coop_k_chunks(d);
  // v8 (results/v8a_vulkan.md): 16x8x16 fragments for <= 8 outputs (-20%); the outputs split over
  // 2 workgroups for 112/128 (-20-57%) and for 96 with <= 6 chunks (-4-30%).
  if (d.cout <= 8) return ConvVariant::coopmat_e;
  if (fragments >= 7) return ConvVariant::coopmat_ps;
  if (fragments == 6 && chunks <= 6) return ConvVariant::coopmat_us;
  if (fragments == 3 || (fragments == 2 && chunks == 1) || (fragments == 4 && chunks >= 4 && chunks < 8))
    return ConvVariant::coopmat_u;
  if (fragments == 2 || (fragments == 4 && chunks >= 8)) return ConvVariant::coopmat_t;
  if (fragments <= 4 || (fragments <= 6 && chunks > 6)) return ConvVariant::coopmat_p;
  if (fragments <= 6) return ConvVariant::coopmat_w;
  return ConvVariant::coopmat;
}

}  // namespace

ConvVariant choose_variant(const ConvDesc& d, Precision p, bool device_has_coopmat) {
  // fp32 on tensor cores (results/v8d_vulkan.md): 3xFP16 with per-tap fp32 adds is as accurate as
  // the fp32 tiled kernel (max abs error 2.2e-6 vs 2.7e-6 against the CPU reference) and 3.3x
  // faster; coopmat_x3sw is 12% faster still but 25x less accurate (5.8e-5), so it stays opt-in.
  // The upsample + concat layers by phase decomposition (v10, results/v10b_vulkan.md).
  if (p == Precision::fp32 && variant_supports(ConvVariant::coopmat_x3up, d, p, device_has_coopmat))
    return ConvVariant::coopmat_x3up;
  if (p == Precision::fp32 && variant_supports(ConvVariant::coopmat_x3cw, d, p, device_has_coopmat))
    return ConvVariant::coopmat_x3cw;
  if (!variant_supports(ConvVariant::coopmat, d, p, device_has_coopmat)) return ConvVariant::tiled;
  // v10 (results/v10a_vulkan.md): upsample + concat layers by phase decomposition (4 taps instead
  // of 9 over the upsampled channels): 4K dec_conv1a 3.97 -> 2.60 ms, dec_conv2a 1.73 -> 1.04,
  // dec_conv3a 0.89 -> 0.61 (outputs split over 2 workgroups), dec_conv4a 0.35 -> 0.19; all
  // outputs in one workgroup beat the split for 64 outputs (2.60 vs 3.52 ms).
  if (variant_supports(ConvVariant::coopmat_up, d, p, device_has_coopmat)) return ConvVariant::coopmat_up;
  if (variant_supports(ConvVariant::coopmat_ups, d, p, device_has_coopmat)) return ConvVariant::coopmat_ups;
  const ConvVariant v8 = choose_coop_v8(d);
  // v9 (results/v9b_vulkan.md, v9c_vulkan.md; same-call medians vs the v8 rule). Runs of 4 tiles
  // per workgroup (the prefetch crossing tiles) pay on layers with 1-2 K chunks and up to 48 outputs
  // at >= 1000 tiles of 32 x 16, where the start-up and epilogue per tile are a large share
  // (4K: enc_conv0 0.669 -> 0.609, enc_conv1 0.982 -> 0.920, dec_conv0 0.576 -> 0.558 ms; 1080p
  // enc_conv2 (1020 tiles) 0.095 -> 0.091); with more chunks, 64 outputs (u4/t4 at the register
  // limit) or fewer tiles they lose (dec_conv1a +7%, enc_conv3 at 1080p +35%, enc_conv5a/5b x2-4).
  // The 16-byte stores of the staged epilogue (EPI16, the *v variants) win 0.5-3% on every layer
  // without a pool (dec_conv1b 1.873 -> 1.821 ms at 4K). Net: 3.662 -> 3.590 ms at 1080p, 13.347 ->
  // 13.082 ms at 4K; errors unchanged (fp32 accumulators, same sums).
  const int chunks = coop_k_chunks(d), tiles = int(div_up(d.width, 16) * div_up(d.height, 32));
  const bool runs = chunks <= 2 && d.cout <= 48 && tiles >= 1000;
  switch (v8) {
    case ConvVariant::coopmat_e: return runs ? ConvVariant::coopmat_em : v8;
    case ConvVariant::coopmat_u: return runs ? ConvVariant::coopmat_uqv : ConvVariant::coopmat_uv;
    // v10r/v10e (results/v10r_vulkan.json, v10e_vulkan.json): the t shapes (4 rows per subgroup) with each A fragment loaded
    // once for the three row offsets (REUSE): dec_conv1b 1.846 -> 1.734 ms, enc_conv1 0.929 -> 0.910
    // at 4K; on the 2-row shapes (u, p) it gains nothing.
    case ConvVariant::coopmat_t: return runs ? ConvVariant::coopmat_tqvr : ConvVariant::coopmat_tvr;
    case ConvVariant::coopmat_p: return ConvVariant::coopmat_pv;
    case ConvVariant::coopmat_us: return ConvVariant::coopmat_usv;
    case ConvVariant::coopmat_ps: return ConvVariant::coopmat_psv;
    default: return v8;
  }
}

std::vector<uint8_t> pack_weights(ConvVariant v, const ConvDesc& d, Precision p, const Tensor& weights) {
  Tensor w = weights.dtype() == DType::f32 ? weights : weights.to(DType::f32);
  const int cin = d.cin_a + d.cin_b;
  VX_CHECK(w.rank() == 4 && w.dim(0) == d.cout && w.dim(1) == cin && w.dim(2) == 3 && w.dim(3) == 3, InvalidArgument,
           "conv weights have shape ", w.shape().str(), ", expected [", d.cout, ", ", cin, ", 3, 3]");
  const float* src = w.data<float>();
  auto weight = [&](int o, int c, int tap) { return src[(size_t(o) * cin + c) * 9 + tap]; };

  const CoopShape* s = coop_shape(v);
  if (s && s->phase) {
    // A part: [(phase * 4 + tap) * ka + chunk][16 k][n_pad], phase = 2a + b, tap = 2u + v, each the
    // sum of the 3x3 taps that read the same low-resolution pixel; then the B part [tap * kb +
    // chunk][16 k][n_pad] (see conv_coopmat_up.comp).
    // x3 (fp32 by 3xFP16): the hi plane of 256 w, then the lo plane (256 w - hi), as coopmat_x3cw.
    const int n_pad = coop_n_pad(*s, d), ka = phase_chunks_a(d), kb = phase_chunks_b(d);
    const size_t plane = size_t(16 * ka + 9 * kb) * 16 * n_pad;
    std::vector<uint8_t> out(plane * (s->x3 ? 2 : 1) * 2, 0);
    auto put = [&](size_t at, float w) {  // the folded sums are checked one by one: they can exceed any single weight
      VX_CHECK(!s->x3 || std::abs(w * kWeightScale) <= 65504.0f, Unsupported, "kernel '", s->name,
               "' needs folded |weights| <= ", 65504.0f / kWeightScale, " (fp16 hi parts), got ", w,
               "; use the tiled kernel");
      store_coop_weight(out, at, plane, w, s->x3);
    };
    for (int ph = 0; ph < 4; ++ph)
      for (int t = 0; t < 4; ++t) {
        const std::vector<int> rows = phase_taps(ph >> 1, t >> 1), cols = phase_taps(ph & 1, t & 1);
        for (int c = 0; c < d.cin_a; ++c)
          for (int o = 0; o < d.cout; ++o) {
            float sum = 0;
            for (int dy : rows)
              for (int dx : cols) sum += weight(o, c, dy * 3 + dx);
            put((size_t(ph * 4 + t) * ka * 16 + c) * n_pad + o, sum);
          }
      }
    const size_t b_part = size_t(16) * ka * 16 * n_pad;
    for (int t = 0; t < 9; ++t)
      for (int c = 0; c < d.cin_b; ++c)
        for (int o = 0; o < d.cout; ++o) put(b_part + (size_t(t) * kb * 16 + c) * n_pad + o, weight(o, d.cin_a + c, t));
    return out;
  }
  if (s) {
    // B[(tap * kc + chunk) * 16 + k][n], rows of n_pad; x3: the hi plane, then the lo plane:
    // hi = fp16(256 w), lo = fp16(256 w - hi).
    const int n_pad = coop_n_pad(*s, d), kc = coop_k_chunks(d);
    if (s->x3) {  // the hi parts must fit fp16 (activations must too: beyond 65504 they become inf)
      float peak = 0;
      for (int64_t i = 0; i < w.numel(); ++i) peak = std::max(peak, std::abs(src[i]));
      const float limit = 65504.0f / kWeightScale;
      VX_CHECK(peak <= limit, Unsupported, "kernel '", s->name, "' needs |weights| <= ", limit, " (fp16 hi parts), got ",
               peak, "; use the tiled kernel");
    }
    const size_t plane = size_t(9) * kc * 16 * n_pad;
    std::vector<uint8_t> out(plane * (s->x3 ? 2 : 1) * 2, 0);
    for (int t = 0; t < 9; ++t)
      for (int k = 0; k < kc * 16; ++k) {
        int c = k < d.cin4() * 4 ? source_channel(d, k) : -1;
        if (c < 0) continue;
        for (int o = 0; o < d.cout; ++o)
          store_coop_weight(out, (size_t(t) * kc * 16 + k) * n_pad + o, plane, weight(o, c, t), s->x3);
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
  if (v == ConvVariant::direct) return p == Precision::fp16 ? "conv_direct.f16" : "conv_direct.f32";
  if (v == ConvVariant::tiled) return p == Precision::fp16 ? "conv_tiled.f16" : "conv_tiled.f32";
  const CoopShape& s = *coop_shape(v);
  const char* accumulators = d.fast_math && !s.x3 ? "h" : "";  // x3 is fp32 only
  if (s.phase) return cat("conv_coopmat_up.", s.prefix, coop_wg_fragments(s, d), accumulators);
  return cat("conv_coopmat.", s.prefix, coop_wg_fragments(s, d), accumulators);
}

std::array<int32_t, 12> push_constants(ConvVariant v, const ConvDesc& d) {
  const CoopShape* s = coop_shape(v);
  const int n_pad = s ? coop_n_pad(*s, d) : (d.cout + 15) / 16 * 16;
  const int k_chunks = s && s->phase ? phase_chunks_a(d) : coop_k_chunks(d);  // phase: the chunks of A
  return {d.height,         d.width,         d.cin4_a(),       d.cin4_b(),       d.cout4(),          d.out_height(),
          d.out_width(),    int(d.relu),     int(d.pool),      int(d.upsample_concat), k_chunks, n_pad};
}

std::array<uint32_t, 3> dispatch_size(ConvVariant v, const ConvDesc& d) {
  if (v == ConvVariant::direct) return {div_up(d.out_width(), 8), div_up(d.out_height(), 8), uint32_t(d.cout4())};
  if (v == ConvVariant::tiled) return {div_up(d.width, 16), div_up(d.height, 16), div_up(d.cout4(), 4)};
  const CoopShape& s = *coop_shape(v);
  if (s.phase) return {div_up(d.width, 32), div_up(d.height, s.rows), uint32_t(coop_groups_z(s, d))};
  // coopmat: 4 subgroups x (4 rows up to 64 outputs, else 2); the others have fixed tile rows.
  const int rows = s.rows ? s.rows : (coop_wg_fragments(s, d) <= 4 ? 16 : 8);
  // Multi-tile shaders: tiles / workgroups along x is the run length each workgroup computes.
  return {div_up(int(div_up(d.width, 16)), s.tiles), div_up(d.height, rows), uint32_t(coop_groups_z(s, d))};
}

}  // namespace vx::vk

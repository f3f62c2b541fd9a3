// The fused transformer ops: vx.Attention (Sq != Sk, key tiles with tails, masks of every
// broadcast shape with -inf, K transposed, broadcast batches, large depths, the heads-interleaved
// layouts) and vx.Gelu (both forms).
#include <limits>

#include "common/test_util.h"
#include "ops/fused_ops.h"
#include "ops/op_table.h"

namespace vx::optable {

namespace {
// An additive mask: random values in [-2, 2), with -inf on every third key (never key 0, so that
// no row is masked entirely) when `blocked`.
InputSpec attention_mask(Shape shape, bool blocked) {
  return custom(std::move(shape), DType::f32, [blocked](const Shape& sh, DType, uint64_t seed) {
    Tensor m = test::random_tensor(sh, seed, -2.0f, 2.0f);
    const int64_t cols = sh.rank() ? sh[sh.rank() - 1] : 1;
    if (blocked)
      for (int64_t i = 0; i < m.numel(); ++i)
        if (i % cols != 0 && (i % cols) % 3 == 0) m.data<float>()[i] = -std::numeric_limits<float>::infinity();
    return m;
  });
}

InputSpec causal_mask(int64_t n) {
  std::vector<double> v(size_t(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) v[size_t(i * n + j)] = j > i ? -std::numeric_limits<double>::infinity() : 0.0;
  return values({1, 1, n, n}, std::move(v));
}

Variant attention(std::string label, Shape q, Shape k, Shape v, std::optional<InputSpec> mask, float scale, bool k_transposed,
                  const char* qkv_layout = "bhsd", const char* out_layout = "bhsd") {
  return {std::move(label), [=](OpCase& c) {
            c.with_inputs({f32(q), f32(k), f32(v)});
            if (mask) c.in(*mask);
            c.attr("scale", scale).attr("k_transposed", int64_t(k_transposed));
            c.attr("qkv_layout", std::string(qkv_layout)).attr("out_layout", std::string(out_layout));
          }};
}

OpCase attention_case(const std::string& name) { return OpCase(kAttention, name).tol_f32({1e-4, 1e-5}).tol_f16({2e-2, 2e-3}); }
}  // namespace

VX_OP_CASES(transformer) {
  // Sq != Sk, Sk past one key tile (64) with a tail, D and Dv not multiples of 4.
  const Shape q{2, 3, 17, 13}, k{2, 3, 70, 13}, kt{2, 3, 13, 70}, v{2, 3, 70, 9};
  cases.add(attention_case("masks")
                .variants({attention("no_mask", q, k, v, std::nullopt, 0.3f, false),
                           attention("k_transposed", q, kt, v, std::nullopt, 0.3f, true),
                           attention("full_mask_with_inf", q, k, v, attention_mask({2, 3, 17, 70}, true), 0.3f, false),
                           attention("mask_over_the_batch", q, kt, v, attention_mask({1, 1, 17, 70}, false), 0.3f, true),
                           attention("mask_of_keys_only", q, k, v, attention_mask({70}, true), 1.0f, false),
                           attention("per_batch_key_padding", q, k, v, attention_mask({2, 1, 1, 70}, true), 0.5f, false),
                           attention("mask_constant_along_keys", q, k, v, attention_mask({17, 1}, false), 0.5f, false)}));
  cases.add(attention_case("broadcast_and_depths")
                .variants({attention("broadcast_batch", {2, 3, 5, 8}, {1, 3, 9, 8}, {3, 9, 6}, std::nullopt, 0.7f, false),
                           attention("D80_Dv100", {2, 19, 80}, {2, 33, 80}, {2, 33, 100}, std::nullopt, 0.1f, false),
                           attention("D80_over_100_keys", {1, 2, 9, 80}, {1, 2, 100, 80}, {1, 2, 100, 72},
                                     attention_mask({1, 1, 1, 100}, true), 0.1f, false),
                           attention("D80_over_100_keys_kT", {1, 2, 9, 80}, {1, 2, 80, 100}, {1, 2, 100, 72},
                                     attention_mask({1, 1, 1, 100}, true), 0.1f, true),
                           attention("one_key", {1, 1, 4}, {1, 1, 4}, {1, 1, 3}, std::nullopt, 1.0f, false),
                           attention("one_query_150_keys", {3, 1, 7}, {3, 7, 150}, {3, 150, 5}, std::nullopt, 0.4f, true)}));
  // Q, K, V as [B, S, H, D] and / or the output as [B, Sq, H, Dv] (the folded head Transposes).
  cases.add(attention_case("heads_interleaved")
                .variants({attention("bshd", {2, 17, 3, 13}, {2, 70, 3, 13}, {2, 70, 3, 9}, std::nullopt, 0.3f, false, "bshd", "bshd"),
                           attention("bshd_full_mask", {2, 17, 3, 13}, {2, 70, 3, 13}, {2, 70, 3, 9}, attention_mask({2, 3, 17, 70}, true),
                                     0.3f, false, "bshd", "bshd"),
                           attention("bshd_in_key_padding", {2, 17, 3, 13}, {2, 70, 3, 13}, {2, 70, 3, 9},
                                     attention_mask({2, 1, 1, 70}, true), 0.5f, false, "bshd", "bhsd"),
                           attention("bshd_out", {2, 3, 17, 13}, {2, 3, 70, 13}, {2, 3, 70, 9}, attention_mask({1, 1, 17, 70}, false),
                                     0.3f, false, "bhsd", "bshd"),
                           attention("bshd_out_kT", {2, 3, 17, 13}, {2, 3, 13, 70}, {2, 3, 70, 9}, std::nullopt, 0.3f, true, "bhsd", "bshd"),
                           attention("bshd_causal_vec4", {1, 40, 4, 16}, {1, 40, 4, 16}, {1, 40, 4, 8}, causal_mask(40), 0.25f, false,
                                     "bshd", "bshd"),
                           attention("bshd_rank_3", {7, 5, 12}, {11, 5, 12}, {11, 5, 4}, std::nullopt, 0.5f, false, "bshd", "bshd")})
                // The oneDNN kernel reads and writes these layouts through strides.
                .expect_variant(Backend::cpu, "onednn"));
  // The shapes the oneDNN path was first tested at.
  cases.add(attention_case("fast_path")
                .variants({attention("no_mask", {1, 3, 7, 5}, {1, 3, 11, 5}, {1, 3, 11, 6}, std::nullopt, 0.37f, false),
                           attention("kT_mask", {1, 3, 7, 5}, {1, 3, 5, 11}, {1, 3, 11, 6}, f32({1, 1, 7, 11}), 0.37f, true),
                           attention("square_mask", {2, 3, 9, 8}, {2, 3, 9, 8}, {2, 3, 9, 8}, f32({9, 9}), 0.37f, false),
                           attention("q_over_heads", {2, 1, 9, 8}, {2, 4, 9, 8}, {2, 4, 9, 3}, f32({2, 1, 1, 9}), 0.37f, false),
                           attention("rank_2", {5, 4}, {6, 4}, {6, 7}, f32({5, 1}), 0.37f, false)})
                .expect_variant(Backend::cpu, "onednn"));
  // Dv 300 exceeds the Vulkan kernel's 256: the node falls back to the CPU.
  cases.add(attention_case("dv_past_the_vulkan_kernel")
                .in(f32({1, 4, 8}))
                .in(f32({1, 5, 8}))
                .in(f32({1, 5, 300}))
                .attr("scale", 0.5f)
                .attr("k_transposed", int64_t(0))
                .may_fall_back(kVulkan));
  cases.add(attention_case("gpt2_layer_scaled_down")
                .in(f32({1, 4, 32, 16}).scaled({1, 2, 3}))
                .in(f32({1, 4, 32, 16}).scaled({1, 2, 3}))
                .in(f32({1, 4, 32, 16}).scaled({1, 2, 3}))
                .attr("scale", 0.25f)
                .attr("k_transposed", int64_t(0)));

  cases.add(OpCase(kGelu, "both_forms")
                .sweep("approximate", {std::string("none"), std::string("tanh")})
                .variants({inputs_variant("7x33", {f32({7, 33}, -6, 6)}), inputs_variant("4x7x33", {f32({4, 7, 33})}),
                           inputs_variant("1x768", {f32({1, 768})}), inputs_variant("5", {f32({5})})})
                .expect_variant(Backend::cpu, "onednn"));
}

}  // namespace vx::optable

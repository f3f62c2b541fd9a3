// The Vulkan vx.Attention kernel (src/backends/vulkan/kernels/attention.cpp) against the CPU
// reference kernel at odd shapes, masks, broadcast batches, large depths and heads-interleaved
// layouts, fp32 and fp16 storage; past the kernel's limits the node falls back to the CPU.
//
// Tolerances (|got - want| <= atol + rtol |want|): fp32 rtol 1e-4, atol 1e-5 (GPU exp and a
// different summation order over up to 300 keys), fp16 rtol 2e-2, atol 2e-3.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "ops/fused_ops.h"

namespace vx {
namespace {

using test::constant;
using test::input;
using test::single_node;

Attributes attention_attrs(float scale, bool k_transposed) {
  Attributes a;
  a.set("scale", scale);
  a.set("k_transposed", int64_t(k_transposed ? 1 : 0));
  return a;
}

// An additive mask of the given shape: random values in [-2, 2), with -inf where `blocked` says.
Tensor mask_tensor(Shape shape, uint64_t seed, bool with_neg_inf) {
  Tensor m = test::random_tensor(shape, seed, -2.0f, 2.0f);
  if (with_neg_inf) {
    float* p = m.data<float>();
    const int64_t cols = shape.rank() ? shape[shape.rank() - 1] : 1;
    // Block every third key, but never key 0, so that no row is masked entirely.
    for (int64_t i = 0; i < m.numel(); ++i)
      if (i % cols != 0 && (i % cols) % 3 == 0) p[i] = -std::numeric_limits<float>::infinity();
  }
  return m;
}

class VulkanAttention : public test::VulkanOpTest {
 protected:
  // `layouts`: vx.Attention's qkv_layout and out_layout ("bhsd" / "bshd"). Returns the case checked.
  test::SingleNodeCase check_attention(Shape q, Shape k, Shape v, const Tensor* mask, float scale, bool k_transposed,
                                       const std::string& what, bool expect_gpu = true,
                                       std::pair<const char*, const char*> layouts = {"bhsd", "bhsd"}) {
    std::vector<test::NodeInput> ins = {input(test::random_tensor(q, 11)), input(test::random_tensor(k, 12)),
                                        input(test::random_tensor(v, 13))};
    if (mask) ins.push_back(input(*mask));
    Attributes attrs = attention_attrs(scale, k_transposed);
    attrs.set("qkv_layout", std::string(layouts.first));
    attrs.set("out_layout", std::string(layouts.second));
    auto c = single_node(kAttention, ins, 1, attrs);
    expect_matches_cpu(c, Precision::fp32, {1e-4, 1e-5}, !expect_gpu, what + " fp32");
    expect_matches_cpu(c, Precision::fp16, {2e-2, 2e-3}, !expect_gpu, what + " fp16");
    return c;
  }
};

TEST_F(VulkanAttention, AttentionGpt2Shape) {
  // One GPT-2 layer: 12 heads, Sq = Sk = 128, D = 64, a causal mask broadcast over the heads.
  Tensor mask = Tensor(DType::f32, Shape{1, 1, 128, 128});
  float* m = mask.data<float>();
  for (int64_t i = 0; i < 128; ++i)
    for (int64_t j = i + 1; j < 128; ++j) m[i * 128 + j] = -std::numeric_limits<float>::infinity();
  check_attention({1, 12, 128, 64}, {1, 12, 128, 64}, {1, 12, 128, 64}, &mask, 0.125f, false, "gpt2");
}

TEST_F(VulkanAttention, AttentionOddShapesAndMasks) {
  // Sq != Sk, Sk past one key tile (64) with a tail, D and Dv not multiples of 4.
  const Shape q{2, 3, 17, 13}, k{2, 3, 70, 13}, kt{2, 3, 13, 70}, v{2, 3, 70, 9};
  check_attention(q, k, v, nullptr, 0.3f, false, "no mask");
  check_attention(q, kt, v, nullptr, 0.3f, true, "k transposed");
  const Tensor full = mask_tensor({2, 3, 17, 70}, 21, true);
  check_attention(q, k, v, &full, 0.3f, false, "full mask with -inf");
  const Tensor per_row = mask_tensor({1, 1, 17, 70}, 22, false);
  check_attention(q, kt, v, &per_row, 0.3f, true, "mask over the batch");
  const Tensor keys_only = mask_tensor({70}, 23, true);
  check_attention(q, k, v, &keys_only, 1.0f, false, "mask of keys only");
  const Tensor padding = mask_tensor({2, 1, 1, 70}, 24, true);
  check_attention(q, k, v, &padding, 0.5f, false, "per-batch key padding");
  const Tensor rows_only = mask_tensor({17, 1}, 25, false);
  check_attention(q, k, v, &rows_only, 0.5f, false, "mask constant along keys");
}

TEST_F(VulkanAttention, AttentionBroadcastBatchesAndLargeDepths) {
  // K and V shared across the leading batch axis, V of lower rank.
  check_attention({2, 3, 5, 8}, {1, 3, 9, 8}, {3, 9, 6}, nullptr, 0.7f, false, "broadcast batch");
  // D over one 64-chunk, Dv over two, Sk of 1, a single query row.
  check_attention({2, 19, 80}, {2, 33, 80}, {2, 33, 100}, nullptr, 0.1f, false, "D 80, Dv 100");
  // Two D chunks over two key tiles (K reloaded per chunk, not prefetched), K plain and transposed.
  const Tensor keys = mask_tensor({1, 1, 1, 100}, 27, true);
  check_attention({1, 2, 9, 80}, {1, 2, 100, 80}, {1, 2, 100, 72}, &keys, 0.1f, false, "D 80 over 100 keys");
  check_attention({1, 2, 9, 80}, {1, 2, 80, 100}, {1, 2, 100, 72}, &keys, 0.1f, true, "D 80 over 100 keys, K^T");
  check_attention({1, 1, 4}, {1, 1, 4}, {1, 1, 3}, nullptr, 1.0f, false, "one key");
  check_attention({3, 1, 7}, {3, 7, 150}, {3, 150, 5}, nullptr, 0.4f, true, "one query, 150 keys");
  const Tensor causal_long = mask_tensor({300, 300}, 26, true);
  check_attention({1, 2, 300, 16}, {1, 2, 300, 16}, {1, 2, 300, 16}, &causal_long, 0.25f, false, "Sk 300");
}

TEST_F(VulkanAttention, AttentionHeadsInterleavedLayouts) {
  // Q, K, V as [B, S, H, D] (qkv_layout "bshd") and / or the output as [B, Sq, H, Dv]: Sq != Sk, Sk
  // past one key tile, D and Dv not multiples of 4 (scalar loads), then multiples of 4 (vec4).
  const std::pair<const char*, const char*> both{"bshd", "bshd"}, in_only{"bshd", "bhsd"}, out_only{"bhsd", "bshd"};
  const Shape q{2, 17, 3, 13}, k{2, 70, 3, 13}, v{2, 70, 3, 9};
  check_attention(q, k, v, nullptr, 0.3f, false, "bshd no mask", true, both);
  const Tensor full = mask_tensor({2, 3, 17, 70}, 21, true);
  check_attention(q, k, v, &full, 0.3f, false, "bshd full mask", true, both);
  const Tensor padding = mask_tensor({2, 1, 1, 70}, 24, true);
  check_attention(q, k, v, &padding, 0.5f, false, "bshd in, key padding", true, in_only);
  const Tensor per_row = mask_tensor({1, 1, 17, 70}, 22, false);
  check_attention({2, 3, 17, 13}, {2, 3, 70, 13}, {2, 3, 70, 9}, &per_row, 0.3f, false, "bshd out", true, out_only);
  check_attention({2, 3, 17, 13}, {2, 3, 13, 70}, {2, 3, 70, 9}, nullptr, 0.3f, true, "bshd out, K^T", true, out_only);
  // Vector loads, a GPT-2-like causal mask, D over two 64-chunks.
  Tensor causal = Tensor(DType::f32, Shape{1, 1, 40, 40});
  for (int64_t i = 0; i < 40; ++i)
    for (int64_t j = 0; j < 40; ++j) causal.data<float>()[i * 40 + j] = j > i ? -std::numeric_limits<float>::infinity() : 0.0f;
  check_attention({1, 40, 4, 16}, {1, 40, 4, 16}, {1, 40, 4, 8}, &causal, 0.25f, false, "bshd causal vec4", true, both);
  check_attention({2, 9, 2, 80}, {2, 100, 2, 80}, {2, 100, 2, 72}, nullptr, 0.1f, false, "bshd D 80", true, both);
  // No batch axis before S: [S, H, D].
  check_attention({7, 5, 12}, {11, 5, 12}, {11, 5, 4}, nullptr, 0.5f, false, "bshd rank 3", true, both);
}

TEST_F(VulkanAttention, AttentionOfWholeFragmentsOnTensorCores) {
  // Shapes of whole 16 x 16 fragments, which fp16 runs on attention_coopmat.comp where the device
  // has cooperative matrices (elsewhere, and at fp32, on attention.comp), K's and V's rows staged in
  // shared memory where Sk <= 128, D and Dv <= 64 and K is not transposed ("coopmat+stagedKV"):
  // PyTorch's encoder layer (8 heads, 128 tokens, D 64, heads interleaved); a ragged query block (Sq
  // 40) over 48 keys with a -inf mask, K plain and transposed; 7 key fragments for four subgroups
  // (D 48, Dv 64, 112 keys, heads interleaved); the largest Sk and D (256, 128) with K and V broadcast
  // over a batch axis; one key fragment for four subgroups and nine Dv fragments.
  const std::pair<const char*, const char*> bshd{"bshd", "bshd"};
  struct Case {
    Shape q, k, v;
    bool k_transposed, masked;
    std::pair<const char*, const char*> layouts;
    const char* what;
    const char* variant;
  };
  const char *staged = "coopmat+stagedKV", *unstaged = "coopmat";
  const Case cases[] = {
      {{1, 128, 8, 64}, {1, 128, 8, 64}, {1, 128, 8, 64}, false, false, bshd, "encoder layer", staged},
      {{2, 2, 40, 32}, {2, 2, 48, 32}, {2, 2, 48, 48}, false, true, {"bhsd", "bhsd"}, "ragged block, mask", staged},
      {{2, 2, 40, 32}, {2, 2, 32, 48}, {2, 2, 48, 48}, true, true, {"bhsd", "bhsd"}, "ragged block, mask, K^T", unstaged},
      {{1, 50, 3, 48}, {1, 112, 3, 48}, {1, 112, 3, 64}, false, true, bshd, "7 key fragments, D 48", staged},
      {{2, 3, 5, 128}, {1, 3, 256, 128}, {1, 3, 256, 16}, false, false, {"bhsd", "bhsd"}, "Sk 256, D 128", unstaged},
      {{1, 1, 33, 16}, {1, 1, 16, 16}, {1, 1, 16, 144}, false, false, {"bhsd", "bhsd"}, "one key fragment, Dv 144", unstaged},
  };
  for (const Case& t : cases) {
    const bool bshd_in = std::string(t.layouts.first) == "bshd";
    const int64_t sq = bshd_in ? t.q[1] : t.q[2], sk = t.k_transposed ? t.k[3] : bshd_in ? t.k[1] : t.k[2];
    const Tensor mask = mask_tensor({1, 1, sq, sk}, 31, true);
    const test::SingleNodeCase c =
        check_attention(t.q, t.k, t.v, t.masked ? &mask : nullptr, 0.125f, t.k_transposed, t.what, true, t.layouts);
    if (!ctx().coopmat_enabled()) continue;
    const test::VulkanRun run = test::run_on_vulkan(ctx(), c.graph, c.inputs, Precision::fp16);
    ASSERT_EQ(run.placements.size(), 1u);
    EXPECT_EQ(run.placements[0].variant, t.variant) << t.what;
  }
}

TEST_F(VulkanAttention, AttentionPastTheKernelFallsBackToTheCpu) {
  // Dv 300 exceeds the kernel's 256: the node runs on the CPU and still gives the right answer.
  auto c = single_node(kAttention,
                       {input(test::random_tensor({1, 4, 8}, 1)), input(test::random_tensor({1, 5, 8}, 2)),
                        input(test::random_tensor({1, 5, 300}, 3))},
                       1, attention_attrs(0.5f, false));
  expect_matches_cpu(c, Precision::fp32, {1e-4, 1e-5}, true, "Dv 300");
  const test::VulkanRun run = test::run_on_vulkan(ctx(), c.graph, c.inputs, Precision::fp32);
  ASSERT_EQ(run.placements.size(), 1u);
  EXPECT_TRUE(run.placements[0].on_host);
}

}  // namespace
}  // namespace vx

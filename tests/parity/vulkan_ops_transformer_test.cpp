// The Vulkan kernels of the transformer ops (vx.Attention, vx.LayerNorm, vx.Gelu, the fast paths
// of the binary element-wise ops) against the CPU reference kernels at odd shapes, fp32 and fp16
// storage; and a small transformer block through VulkanModelRunner, whose fusions must put
// vx.Attention, vx.LayerNorm and vx.Gelu on the GPU, fold the head Transposes into the attention and
// the residual Adds into the MatMuls, and give the unfused graph's CPU result.
//
// Tolerances (|got - want| <= atol + rtol |want|): element-wise and LayerNorm at the defaults
// (fp32 1e-5 / 1e-6, fp16 1e-2 / 1e-3, test/vulkan_op_test_util.h); attention fp32 rtol 1e-4,
// atol 1e-5 (GPU exp and a different summation order over up to 300 keys), fp16 rtol 2e-2, atol 2e-3;
// the transformer block 1e-4 / 1e-4 in fp32 and 3e-2 / 3e-2 in fp16.
#include <cmath>
#include <limits>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "ops/fused_ops.h"
#include "runtime/vulkan_model_runner.h"

namespace vx {
namespace {

using test::constant;
using test::input;
using test::single_node;
using vk::Precision;

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

class VulkanTransformerOpsTest : public test::VulkanOpTest {
 protected:
  // `layouts`: vx.Attention's qkv_layout and out_layout ("bhsd" / "bshd").
  void check_attention(Shape q, Shape k, Shape v, const Tensor* mask, float scale, bool k_transposed,
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
  }
};

TEST_F(VulkanTransformerOpsTest, AttentionGpt2Shape) {
  // One GPT-2 layer: 12 heads, Sq = Sk = 128, D = 64, a causal mask broadcast over the heads.
  Tensor mask = Tensor(DType::f32, Shape{1, 1, 128, 128});
  float* m = mask.data<float>();
  for (int64_t i = 0; i < 128; ++i)
    for (int64_t j = i + 1; j < 128; ++j) m[i * 128 + j] = -std::numeric_limits<float>::infinity();
  check_attention({1, 12, 128, 64}, {1, 12, 128, 64}, {1, 12, 128, 64}, &mask, 0.125f, false, "gpt2");
}

TEST_F(VulkanTransformerOpsTest, AttentionOddShapesAndMasks) {
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

TEST_F(VulkanTransformerOpsTest, AttentionBroadcastBatchesAndLargeDepths) {
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

TEST_F(VulkanTransformerOpsTest, AttentionHeadsInterleavedLayouts) {
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

TEST_F(VulkanTransformerOpsTest, AttentionPastTheKernelFallsBackToTheCpu) {
  // Dv 300 exceeds the kernel's 256: the node runs on the CPU and still gives the right answer.
  auto c = single_node(kAttention,
                       {input(test::random_tensor({1, 4, 8}, 1)), input(test::random_tensor({1, 5, 8}, 2)),
                        input(test::random_tensor({1, 5, 300}, 3))},
                       1, attention_attrs(0.5f, false));
  expect_matches_cpu(c, Precision::fp32, {1e-4, 1e-5}, true, "Dv 300");
  const test::VulkanRun run = test::run_on_vulkan(ctx(), c.graph, c.inputs, Precision::fp32);
  ASSERT_EQ(run.placements.size(), 1u);
  EXPECT_FALSE(run.placements[0].gpu);
}

TEST_F(VulkanTransformerOpsTest, LayerNorm) {
  Attributes eps;
  eps.set("epsilon", 1e-3f);
  for (const Shape& s : {Shape{3, 5, 37}, Shape{2, 768}, Shape{1, 1300}, Shape{4, 1}}) {
    const int64_t c = s[s.rank() - 1];
    auto with_bias = single_node(kLayerNorm,
                                 {input(test::random_tensor(s, 1, -3.0f, 5.0f)), constant(test::random_tensor({c}, 2)),
                                  constant(test::random_tensor({c}, 3))},
                                 1, eps);
    expect_matches_cpu(with_bias, Precision::fp32, {-1, -1}, false, s.str());
    expect_matches_cpu(with_bias, Precision::fp16, {-1, -1}, false, s.str());
    auto runtime_scale = single_node(kLayerNorm, {input(test::random_tensor(s, 4)), input(test::random_tensor({c}, 5))});
    expect_matches_cpu(runtime_scale, Precision::fp32, {-1, -1}, false, s.str() + " no bias");
  }
}

TEST_F(VulkanTransformerOpsTest, GeluBothForms) {
  for (const char* form : {"none", "tanh"}) {
    Attributes a;
    a.set("approximate", std::string(form));
    auto c = single_node(kGelu, {input(test::random_tensor({7, 33}, 9, -6.0f, 6.0f))}, 1, a);
    expect_matches_cpu(c, Precision::fp32, {-1, -1}, false, form);
    expect_matches_cpu(c, Precision::fp16, {-1, -1}, false, form);
  }
}

TEST_F(VulkanTransformerOpsTest, ErfAcrossItsRange) {
  // erf's two approximation intervals meet at 0.9277; large arguments saturate to +-1.
  std::vector<float> x;
  for (int i = -3000; i <= 3000; ++i) x.push_back(float(i) * 0.003f);
  for (float big : {5.0f, 9.0f, 1e10f, -1e10f, 1e-30f, -1e-20f, 0.0f}) x.push_back(big);
  Tensor t = Tensor(DType::f32, Shape{int64_t(x.size())});
  std::copy(x.begin(), x.end(), t.data<float>());
  expect_matches_cpu(single_node("Erf", {input(t)}), Precision::fp32, {2e-6, 2e-7});
}

TEST_F(VulkanTransformerOpsTest, BinaryFastPaths) {
  struct Case {
    const char* op;
    Shape a, b;
  };
  const Case cases[] = {
      {"Add", {5, 7, 3}, {5, 7, 3}},     // same shape, 105 elements (a partial group of 4)
      {"Add", {128, 24}, {24}},          // bias row, vector loads
      {"Sub", {6, 7}, {7}},              // bias row of odd length
      {"Mul", {3}, {4, 5, 3}},           // the row on the left
      {"Div", {4, 5, 9}, {4, 5, 1}},     // a column
      {"Div", {4, 5, 8}, {4, 5, 1}},     // a column of rows of 8 (one value per group)
      {"Mul", {2, 3, 4, 5}, {3, 1, 1}},  // a middle axis
      {"Add", {2, 3, 4, 5}, {}},         // a scalar
      {"Sub", {1}, {2, 9}},              // a scalar on the left
      {"Max", {2, 1, 4}, {2, 3, 4}},     // two broadcast blocks: the generic kernel
      {"Min", {9, 11}, {11}},
      {"Add", {1, 1}, {1, 1}},
  };
  for (const Case& c : cases) {
    auto node = single_node(c.op, {input(test::random_tensor(c.a, 31, -2.0f, 2.0f)),
                                   input(test::random_tensor(c.b, 32, 0.5f, 2.0f))});
    const std::string what = cat(c.op, " ", c.a.str(), " ", c.b.str());
    expect_matches_cpu(node, Precision::fp32, {-1, -1}, false, what);
    expect_matches_cpu(node, Precision::fp16, {-1, -1}, false, what);
  }
  // NaN propagation of Min / Max and PRelu's slope row.
  Tensor a = test::random_tensor({3, 8}, 40);
  a.data<float>()[5] = std::numeric_limits<float>::quiet_NaN();
  expect_matches_cpu(single_node("Max", {input(a), input(test::random_tensor({8}, 41))}), Precision::fp32);
  expect_matches_cpu(single_node("PRelu", {input(test::random_tensor({4, 6, 10}, 42)), input(test::random_tensor({10}, 43))}),
                     Precision::fp32);
}

TEST_F(VulkanTransformerOpsTest, CopiesInGroupsOfFour) {
  // Innermost axes contiguous in both tensors with extents and offsets that are multiples of 4 take
  // strided_copy's vec4 variants; the others (extent 6, offset 4 + 6) the element-wise copy.
  Attributes heads;
  heads.set("perm", std::vector<int64_t>{0, 2, 1, 3});
  auto transpose = single_node("Transpose", {input(test::random_tensor({2, 6, 3, 8}, 1))}, 1, heads);
  expect_matches_cpu(transpose, Precision::fp32, {0, 0}, false, "transpose heads");
  expect_matches_cpu(transpose, Precision::fp16, {0, 0}, false, "transpose heads");
  Attributes last;
  last.set("axis", int64_t(-1));
  // Split (one split dispatch for up to 7 outputs): along the last axis with ranges of multiples
  // of 4 (vec4) or not, along a middle axis with an inner extent of 4 (vec4) or 3, 9 outputs
  // (per-output copies), an empty output.
  struct SplitCase {
    Shape x;
    int64_t axis;
    std::vector<int64_t> parts;
  };
  const SplitCase splits[] = {{{5, 36}, -1, {8, 16, 12}},
                              {{5, 36}, -1, {4, 6, 26}},
                              {{2, 9, 4}, 1, {2, 3, 4}},
                              {{2, 9, 3}, 1, {5, 1, 3}},
                              {{3, 9}, 1, {1, 1, 1, 1, 1, 1, 1, 1, 1}},
                              {{4, 6}, 0, {1, 0, 3}}};
  for (const SplitCase& sc : splits) {
    Tensor split(DType::i64, Shape{int64_t(sc.parts.size())});
    std::copy(sc.parts.begin(), sc.parts.end(), split.data<int64_t>());
    Attributes axis;
    axis.set("axis", sc.axis);
    auto c = single_node("Split", {input(test::random_tensor(sc.x, 2)), constant(split)}, sc.parts.size(), axis);
    const std::string what = cat("split ", sc.x.str(), " axis ", sc.axis, " into ", sc.parts.size());
    expect_matches_cpu(c, Precision::fp32, {0, 0}, false, what);
    expect_matches_cpu(c, Precision::fp16, {0, 0}, false, what);
  }
  auto concat = single_node("Concat", {input(test::random_tensor({3, 4, 8}, 3)), input(test::random_tensor({3, 4, 12}, 4))},
                            1, last);
  expect_matches_cpu(concat, Precision::fp32, {0, 0}, false, "concat");
  expect_matches_cpu(concat, Precision::fp16, {0, 0}, false, "concat");
}

// ---- a transformer block through the runner ----

struct Builder {
  Graph g;
  std::vector<Tensor> feeds;
  int counter = 0;

  Builder() { g.opsets[""] = 17; }
  ValueId input(const std::string& name, Shape shape) {
    const ValueId id = g.add_value(name, DType::f32, shape);
    g.inputs.push_back(id);
    feeds.push_back(test::random_tensor(shape, 100 + feeds.size()));
    return id;
  }
  ValueId constant(Tensor t) { return g.add_constant(cat("c", counter++), std::move(t)); }
  ValueId weight(Shape s, float range) { return constant(test::random_tensor(s, 200 + counter, -range, range)); }
  ValueId ints(std::vector<int64_t> v) {
    const int64_t n = int64_t(v.size());
    Tensor t = Tensor(DType::i64, Shape{n});
    std::copy(v.begin(), v.end(), t.data<int64_t>());
    return constant(std::move(t));
  }
  std::vector<ValueId> node(const std::string& op, std::vector<ValueId> ins, Attributes attrs = {}, size_t outs = 1) {
    std::vector<ValueId> ys;
    for (size_t i = 0; i < outs; ++i) ys.push_back(g.add_value(cat("v", counter++), DType::f32, {}));
    g.add_node(op, op + std::to_string(counter++), std::move(ins), ys, std::move(attrs));
    return ys;
  }
  ValueId op(const std::string& op, std::vector<ValueId> ins, Attributes attrs = {}) {
    return node(op, std::move(ins), std::move(attrs))[0];
  }
};

Attributes perm(std::vector<int64_t> p) {
  Attributes a;
  a.set("perm", std::move(p));
  return a;
}

Tensor scalar(float v) { return Tensor::from<float>(Shape{}, {v}); }

// A pre-norm GPT-2 block as PyTorch exports it: LayerNormalization, QKV projection, Split, heads
// by Reshape + Transpose, scaled masked softmax attention, output projection, residual, a second
// LayerNormalization, an MLP with erf-GELU written out (Div, Erf, Add, Mul, Mul), residual.
Builder transformer_block(int64_t seq, int64_t d, int64_t heads) {
  Builder b;
  const int64_t hd = d / heads;
  const ValueId x = b.input("x", {1, seq, d});
  Tensor causal = Tensor(DType::f32, Shape{1, 1, seq, seq});
  for (int64_t i = 0; i < seq; ++i)
    for (int64_t j = i + 1; j < seq; ++j) causal.data<float>()[i * seq + j] = -1e9f;
  const ValueId mask = b.constant(causal);
  auto layer_norm = [&](ValueId v) {
    return b.op("LayerNormalization", {v, b.weight({d}, 1.0f), b.weight({d}, 0.5f)});
  };
  auto linear = [&](ValueId v, int64_t in, int64_t out) {
    return b.op("Add", {b.op("MatMul", {v, b.weight({in, out}, 1.0f / std::sqrt(float(in)))}), b.weight({out}, 0.1f)});
  };
  Attributes split_axis;
  split_axis.set("axis", int64_t(2));
  const std::vector<ValueId> qkv = b.node("Split", {linear(layer_norm(x), d, 3 * d), b.ints({d, d, d})}, split_axis, 3);
  auto heads_of = [&](ValueId v, std::vector<int64_t> p) {
    return b.op("Transpose", {b.op("Reshape", {v, b.ints({1, seq, heads, hd})})}, perm(std::move(p)));
  };
  const ValueId q = heads_of(qkv[0], {0, 2, 1, 3});
  const ValueId kt = heads_of(qkv[1], {0, 2, 3, 1});
  const ValueId v = heads_of(qkv[2], {0, 2, 1, 3});
  ValueId s = b.op("Mul", {b.op("MatMul", {q, kt}), b.constant(scalar(1.0f / std::sqrt(float(hd))))});
  s = b.op("Add", {s, mask});
  Attributes last;
  last.set("axis", int64_t(-1));
  const ValueId attn = b.op("MatMul", {b.op("Softmax", {s}, last), v});
  const ValueId merged = b.op("Reshape", {b.op("Transpose", {attn}, perm({0, 2, 1, 3})), b.ints({1, seq, d})});
  const ValueId h = b.op("Add", {x, linear(merged, d, d)});
  const ValueId f = linear(layer_norm(h), d, 4 * d);
  const ValueId erf = b.op("Erf", {b.op("Div", {f, b.constant(scalar(std::sqrt(2.0f)))})});
  const ValueId gelu = b.op("Mul", {b.op("Mul", {f, b.op("Add", {erf, b.constant(scalar(1.0f))})}), b.constant(scalar(0.5f))});
  b.g.outputs = {b.op("Add", {h, linear(gelu, 4 * d, d)})};
  return b;
}

TEST_F(VulkanTransformerOpsTest, TransformerBlockRunsFusedOnTheGpu) {
  const Builder b = transformer_block(20, 48, 4);
  const std::vector<Tensor> want = test::run_cpu_reference(b.g, b.feeds);
  for (Precision precision : {Precision::fp32, Precision::fp16}) {
    VulkanRunnerOptions o;
    o.precision = precision;
    VulkanModelRunner runner(ctx(), b.g, o);
    const std::vector<Tensor> feeds = precision == Precision::fp16 ? test::round_to_fp16(b.feeds) : b.feeds;
    const std::vector<Tensor> expected = precision == Precision::fp16 ? test::run_cpu_reference(b.g, feeds) : want;
    const std::vector<Tensor> got = runner.run(feeds);
    const test::Tolerance tol = precision == Precision::fp32 ? test::Tolerance{1e-4, 1e-4} : test::Tolerance{3e-2, 3e-2};
    EXPECT_TRUE(test::outputs_match(expected, got, tol)) << (precision == Precision::fp32 ? "fp32" : "fp16");

    int attention = 0, layer_norm = 0, gelu = 0;
    for (const vk::NodePlacement& p : runner.last_executable()->placements()) {
      if (p.op == kAttention) ++attention;
      if (p.op == kLayerNorm) ++layer_norm;
      if (p.op == kGelu) ++gelu;
      if (p.touches_float) {
        EXPECT_TRUE(p.gpu) << p.node << " (" << p.op << ") on the CPU: " << p.reason;
      }
    }
    EXPECT_EQ(attention, 1);
    int transposes = 0, adds = 0, residual_matmuls = 0;
    for (const Node& n : runner.graph().nodes) {
      if (n.op == kAttention) {  // K's head Transpose kept D innermost, then folded with Q's and V's
        EXPECT_EQ(n.attrs.get_int("k_transposed", -1), 0);
        EXPECT_EQ(n.attrs.get_string("qkv_layout", "bhsd"), "bshd");
        EXPECT_EQ(n.attrs.get_string("out_layout", "bhsd"), "bshd");
      }
      transposes += n.op == "Transpose";
      adds += n.op == "Add";
      residual_matmuls += n.op == kFusedMatMul && n.input(3) != kNoValue;
    }
    EXPECT_EQ(transposes, 0);  // the head Transposes live in the attention's layouts
    EXPECT_EQ(adds, 0);        // both residuals in the GEMM epilogues
    EXPECT_EQ(residual_matmuls, 2);
    EXPECT_EQ(layer_norm, 2);
    EXPECT_TRUE(vulkan_runs_fused_matmul());
    EXPECT_EQ(gelu, 0);  // fused into the MatMul as its activation
  }
}

}  // namespace
}  // namespace vx

// A small transformer block through DeviceModelRunner on Vulkan, whose fusions must put vx.Attention,
// vx.LayerNorm and vx.Gelu on the GPU, fold the head Transposes into the attention and the residual
// Adds into the MatMuls, and give the unfused graph's CPU result (tolerances 1e-4 / 1e-4 in fp32,
// 3e-2 / 3e-2 in fp16). Likewise PyTorch's out-projection Gemm, Reshapes and residual Add (with a
// post-norm LayerNorm after it), and PyTorch 2's packed in-projection, whose Q, K and V must be
// aliases of the product.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "ops/fused_ops.h"
#include "backends/vulkan/optimize_for_vulkan.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "session/device_model_runner.h"

namespace vx {
namespace {

class VulkanRunnerTransformer : public test::VulkanOpTest {};

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

DeviceRunnerOptions runner_options(Precision precision) {
  DeviceRunnerOptions o;
  o.precision = precision;
  return o;
}

// One run of `runner` on b's feeds (rounded to fp16 for fp16) against the CPU reference of b's graph
// on the same feeds: 1e-4 / 1e-4 in fp32, 3e-2 / 3e-2 in fp16.
void expect_matches_cpu_reference(DeviceModelRunner& runner, const Builder& b, Precision precision, const char* what) {
  const std::vector<Tensor> feeds = precision == Precision::fp16 ? test::round_to_fp16(b.feeds) : b.feeds;
  const std::vector<Tensor> got = runner.run(feeds);
  const test::Tolerance tol = precision == Precision::fp32 ? test::Tolerance{1e-4, 1e-4} : test::Tolerance{3e-2, 3e-2};
  EXPECT_TRUE(test::outputs_match(test::run_cpu_reference(b.g, feeds), got, tol)) << what;
}

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

TEST_F(VulkanRunnerTransformer, TransformerBlockRunsFusedOnTheGpu) {
  const Builder b = transformer_block(20, 48, 4);
  const std::vector<Tensor> want = test::run_cpu_reference(b.g, b.feeds);
  for (Precision precision : {Precision::fp32, Precision::fp16}) {
    DeviceRunnerOptions o;
    o.precision = precision;
    DeviceModelRunner runner(vk::compute_device(ctx()), b.g, o);
    const std::vector<Tensor> feeds = precision == Precision::fp16 ? test::round_to_fp16(b.feeds) : b.feeds;
    const std::vector<Tensor> expected = precision == Precision::fp16 ? test::run_cpu_reference(b.g, feeds) : want;
    const std::vector<Tensor> got = runner.run(feeds);
    const test::Tolerance tol = precision == Precision::fp32 ? test::Tolerance{1e-4, 1e-4} : test::Tolerance{3e-2, 3e-2};
    EXPECT_TRUE(test::outputs_match(expected, got, tol)) << (precision == Precision::fp32 ? "fp32" : "fp16");

    int attention = 0, layer_norm = 0, gelu = 0;
    for (const runtime::NodePlacement& p : runner.last_executable()->placements()) {
      if (p.op == kAttention) ++attention;
      if (p.op == kLayerNorm) ++layer_norm;
      if (p.op == kGelu) ++gelu;
      if (p.touches_float) {
        EXPECT_FALSE(p.on_host) << p.node << " (" << p.op << ") on the CPU: " << p.reason;
      }
    }
    EXPECT_EQ(attention, 1);
    int transposes = 0, adds = 0, splits = 0, residual_matmuls = 0;
    for (const Node& n : runner.graph().nodes) {
      if (n.op == kAttention) {  // K's head Transpose kept D innermost, then folded with Q's and V's
        EXPECT_EQ(n.attrs.get_int("k_transposed", -1), 0);
        EXPECT_EQ(n.attrs.get_string("qkv_layout", "bhsd"), "bshd");
        EXPECT_EQ(n.attrs.get_string("out_layout", "bhsd"), "bshd");
      }
      transposes += n.op == "Transpose";
      adds += n.op == "Add";
      splits += n.op == "Split";
      residual_matmuls += n.op == kFusedMatMul && n.input(3) != kNoValue;
    }
    EXPECT_EQ(transposes, 0);  // the head Transposes live in the attention's layouts
    EXPECT_EQ(adds, 0);        // both residuals in the GEMM epilogues
    EXPECT_EQ(splits, 0);      // Q, K and V are panels of the QKV product
    EXPECT_EQ(residual_matmuls, 3);  // the two residuals, and the QKV bias as its panels' residual
    EXPECT_EQ(layer_norm, 2);
    EXPECT_TRUE(vk::vulkan_runs_fused_matmul());
    EXPECT_EQ(gelu, 0);  // fused into the MatMul as its activation
  }
}

// PyTorch's out-projection of attention values [T, E]: Gemm (transB = 1, bias).
ValueId out_projection(Builder& b, ValueId attn, int64_t e) {
  Attributes trans_b;
  trans_b.set("transB", int64_t(1));
  return b.op("Gemm", {attn, b.weight({e, e}, 1.0f / std::sqrt(float(e))), b.weight({e}, 0.1f)}, trans_b);
}

// nn.TransformerEncoderLayer's out-projection as PyTorch exports it: Gemm (transB = 1, bias) on
// [T, E], Reshapes to [T, 1, E], the residual Add. It must run as one vx.FusedMatMul on the GPU
// with the residual in its epilogue (the Reshapes are aliases).
TEST_F(VulkanRunnerTransformer, OutProjectionGemmTakesTheResidual) {
  const int64_t t = 20, e = 48;
  Builder b;
  const ValueId x = b.input("x", {t, 1, e});
  const ValueId attn = b.input("attn", {t, e});
  const ValueId proj = out_projection(b, attn, e);
  const ValueId view = b.op("Reshape", {b.op("Reshape", {proj, b.ints({1, t, e})}), b.ints({t, 1, e})});
  b.g.outputs = {b.op("Add", {x, view})};
  for (Precision precision : {Precision::fp32, Precision::fp16}) {
    const char* what = precision == Precision::fp32 ? "fp32" : "fp16";
    DeviceModelRunner runner(vk::compute_device(ctx()), b.g, runner_options(precision));
    expect_matches_cpu_reference(runner, b, precision, what);

    int fused = 0;
    for (const Node& n : runner.graph().nodes) {
      EXPECT_NE(n.op, "Gemm") << what;
      EXPECT_NE(n.op, "Add") << what;
      if (n.op != kFusedMatMul) continue;
      ++fused;
      EXPECT_NE(n.input(2), kNoValue) << what << ": the bias";
      EXPECT_NE(n.input(3), kNoValue) << what << ": the residual";
    }
    EXPECT_EQ(fused, 1) << what;
    int on_gpu = 0;
    for (const runtime::NodePlacement& p : runner.last_executable()->placements()) {
      if (p.op != kFusedMatMul) continue;
      EXPECT_FALSE(p.on_host) << what << ": " << p.reason;
      EXPECT_FALSE(p.variant.empty()) << what;
      on_gpu += !p.on_host;
    }
    EXPECT_EQ(on_gpu, 1) << what;
  }
}

// A post-norm encoder's out-projection and its LayerNorm as PyTorch exports them: Gemm, Reshapes
// to [T, 1, E], the residual Add, LayerNormalization over E. On the GPU it must run as one
// vx.FusedMatMul with the residual in its epilogue and the norm's Scale and Bias (inputs 4, 5); with
// K split 3 (VOLVOX_VK_SPLITK) the norm runs in the reduce pass, unsplit after the product.
TEST_F(VulkanRunnerTransformer, PostNormLayerNormJoinsTheOutProjection) {
  const int64_t t = 20, e = 96;  // K = 96: three chunks of 32 when split 3
  Builder b;
  const ValueId x = b.input("x", {t, 1, e});
  const ValueId attn = b.input("attn", {t, e});
  const ValueId proj = out_projection(b, attn, e);
  const ValueId view = b.op("Reshape", {proj, b.ints({t, 1, e})});
  Attributes axis;
  axis.set("axis", int64_t(-1));
  b.g.outputs = {b.op("LayerNormalization", {b.op("Add", {x, view}), b.weight({e}, 1.0f), b.weight({e}, 0.5f)}, axis)};
  for (const char* splits : {"3", "1"}) {
    test::ScopedEnv split_env("VOLVOX_VK_SPLITK", splits);
    for (Precision precision : {Precision::fp32, Precision::fp16}) {
      const std::string what = cat(precision == Precision::fp32 ? "fp32" : "fp16", ", splits ", splits);
      DeviceModelRunner runner(vk::compute_device(ctx()), b.g, runner_options(precision));
      expect_matches_cpu_reference(runner, b, precision, what.c_str());
      int fused = 0;
      for (const Node& n : runner.graph().nodes) {
        EXPECT_NE(n.op, kLayerNorm) << what;
        EXPECT_NE(n.op, "LayerNormalization") << what;
        if (n.op != kFusedMatMul) continue;
        ++fused;
        EXPECT_NE(n.input(3), kNoValue) << what << ": the residual";
        EXPECT_NE(n.input(4), kNoValue) << what << ": the norm's scale";
        EXPECT_NE(n.input(5), kNoValue) << what << ": the norm's bias";
      }
      EXPECT_EQ(fused, 1) << what;
      for (const runtime::NodePlacement& p : runner.last_executable()->placements()) {
        if (p.op != kFusedMatMul) continue;
        EXPECT_FALSE(p.on_host) << what << ": " << p.reason;
        const bool in_reduce = p.variant.find("+reduce_layer_norm") != std::string::npos;
        EXPECT_EQ(in_reduce, std::string(splits) == "3") << what << ": " << p.variant;
      }
    }
  }
}

// nn.MultiheadAttention's packed in-projection as PyTorch 2 exports it: the product [T, 1, 3E],
// unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2), a Gather per piece. On Vulkan
// the product is computed as three panels: no Transpose copy, the Gathers are aliases (a panel of
// T x E = 16 x 32 values starts on a multiple of the alias offset alignment in fp32 and fp16).
TEST_F(VulkanRunnerTransformer, PackedInProjectionPiecesAreAliases) {
  const int64_t t = 16, e = 32;
  Builder b;
  const ValueId x = b.input("x", {t, 1, e});
  const ValueId product =
      b.op("Add", {b.op("MatMul", {x, b.weight({e, 3 * e}, 1.0f / std::sqrt(float(e)))}), b.weight({3 * e}, 0.1f)});
  const ValueId unflat = b.op("Reshape", {product, b.ints({t, 1, 3, e})});
  const ValueId moved = b.op("Transpose", {b.op("Unsqueeze", {unflat, b.ints({0})})}, perm({3, 1, 2, 0, 4}));
  const ValueId stacked = b.op("Squeeze", {moved, b.ints({-2})});
  std::vector<ValueId> pieces;
  for (int64_t i = 0; i < 3; ++i) {
    Attributes axis;
    axis.set("axis", int64_t(0));
    pieces.push_back(b.op("Gather", {stacked, b.constant(Tensor::from<int64_t>(Shape{}, {i}))}, axis));
  }
  b.g.outputs = {b.op("Mul", {pieces[0], pieces[1]}), pieces[2]};
  for (Precision precision : {Precision::fp32, Precision::fp16}) {
    const char* what = precision == Precision::fp32 ? "fp32" : "fp16";
    DeviceModelRunner runner(vk::compute_device(ctx()), b.g, runner_options(precision));
    expect_matches_cpu_reference(runner, b, precision, what);
    for (const Node& n : runner.graph().nodes) EXPECT_NE(n.op, "Transpose") << what;
    int gathers = 0;
    for (const runtime::NodePlacement& p : runner.last_executable()->placements()) {
      if (p.touches_float) {
        EXPECT_FALSE(p.on_host) << what << ": " << p.node << " " << p.reason;
      }
      if (p.op != "Gather") continue;
      ++gathers;
      EXPECT_EQ(p.variant, "alias") << what << ": " << p.node;
    }
    EXPECT_EQ(gathers, 3) << what;
  }
}

}  // namespace
}  // namespace vx

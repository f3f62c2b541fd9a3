// The Vulkan path's folds of a transformer's layout and residual ops into the fused ops
// (passes/fold_attention_transposes.h, passes/fuse_matmul_residual.h,
// passes/gemm_as_fused_matmul.h, passes/fuse_matmul_layer_norm.h): the graph after the pass
// has the expected nodes, and computes what the graph before it does on the CPU reference kernels
// (1e-6 of the output's peak: the same double-precision arithmetic in another order), and on the
// fast kernels, which must decline what they do not implement (1e-4). Patterns
// that must stay (another reader, K transposed, an activation, a widening broadcast) are left alone.
#include <algorithm>
#include <cmath>
#include <optional>

#include "common/graph_builder.h"
#include "common/test_util.h"
#include "ops/fused_ops.h"
#include "passes/fold_attention_transposes.h"
#include "passes/fuse_matmul_bias_act.h"
#include "passes/fuse_matmul_layer_norm.h"
#include "passes/fuse_matmul_residual.h"
#include "passes/gemm_as_fused_matmul.h"
#include "session/model_runner.h"

namespace vx {
namespace {

struct AttentionGraphBuilder : test::GraphBuilder {
  ValueId heads(ValueId x) {  // [B, S, H, D] -> [B, H, S, D]
    Attributes a;
    a.set("perm", std::vector<int64_t>{0, 2, 1, 3});
    return node("Transpose", {x}, a);
  }
  ValueId attention(std::vector<ValueId> ins, bool k_transposed = false) {
    Attributes a;
    a.set("scale", 0.4f);
    a.set("k_transposed", int64_t(k_transposed ? 1 : 0));
    return node(kAttention, std::move(ins), a);
  }
};

using test::count_ops;

const Node& only(const Graph& g, const std::string& op) {
  for (const Node& n : g.nodes)
    if (n.op == op) return n;
  throw Error(ErrorCode::Internal, "no " + op + " node");
}

std::vector<Tensor> run_cpu(const Graph& g, const std::vector<Tensor>& feeds, bool reference_only = true) {
  ModelRunnerOptions o;
  o.optimize = false;
  o.reference_only = reference_only;
  ModelRunner runner(g, o);
  return runner.run(feeds);
}

// The folded graph's outputs equal the original's (same shapes; 1e-6 of the peak on the reference
// kernels, 1e-4 on the fast ones).
void expect_same_results(const Graph& before, const Graph& after, const std::vector<Tensor>& feeds) {
  after.validate();
  const std::vector<Tensor> want = run_cpu(before, feeds);
  for (bool reference_only : {true, false}) {
    const std::vector<Tensor> got = run_cpu(after, feeds, reference_only);
    ASSERT_EQ(want.size(), got.size());
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(got[i].shape(), want[i].shape()) << "output " << i;
      double peak = 1e-6;
      for (int64_t j = 0; j < want[i].numel(); ++j) peak = std::max(peak, std::abs(want[i].get(j)));
      EXPECT_LE(test::max_abs_diff(got[i], want[i]) / peak, reference_only ? 1e-6 : 1e-4)
          << "output " << i << (reference_only ? " (reference kernels)" : " (fast kernels)");
    }
  }
}

// ---- fold_attention_transposes ----

TEST(VulkanFolds, AttentionTakesTheHeadTransposes) {
  for (bool with_mask : {false, true}) {
    AttentionGraphBuilder b;
    const ValueId q = b.input("q", {2, 7, 3, 5}), k = b.input("k", {2, 9, 3, 5}), v = b.input("v", {2, 9, 3, 6});
    std::vector<ValueId> ins = {b.heads(q), b.heads(k), b.heads(v)};
    if (with_mask) ins.push_back(b.input("mask", {1, 3, 7, 9}));
    b.g.outputs = {b.heads(b.attention(ins))};
    const Graph folded = fold_attention_transposes(b.g);
    EXPECT_EQ(count_ops(folded, "Transpose"), 0);
    ASSERT_EQ(folded.nodes.size(), 1u);
    const Node& a = only(folded, kAttention);
    EXPECT_EQ(a.attrs.get_string("qkv_layout", ""), "bshd");
    EXPECT_EQ(a.attrs.get_string("out_layout", ""), "bshd");
    EXPECT_EQ(a.inputs[0], q);
    EXPECT_EQ(a.outputs[0], b.g.outputs[0]);
    expect_same_results(b.g, folded, b.feeds);
  }
}

TEST(VulkanFolds, SharedOrTransposedOperandsStay) {
  // Q's heads are also a graph output: the inputs stay (all three or none); the output folds.
  AttentionGraphBuilder shared;
  const ValueId q = shared.heads(shared.input("q", {1, 6, 2, 4}));
  const ValueId y = shared.heads(shared.attention(
      {q, shared.heads(shared.input("k", {1, 6, 2, 4})), shared.heads(shared.input("v", {1, 6, 2, 4}))}));
  shared.g.outputs = {y, q};
  const Graph a = fold_attention_transposes(shared.g);
  EXPECT_EQ(count_ops(a, "Transpose"), 3);
  EXPECT_EQ(only(a, kAttention).attrs.get_string("qkv_layout", "bhsd"), "bhsd");
  EXPECT_EQ(only(a, kAttention).attrs.get_string("out_layout", "bhsd"), "bshd");
  expect_same_results(shared.g, a, shared.feeds);

  // K transposed ([B, H, D, S]): the inputs stay. The output's Transpose is another permutation: stays.
  AttentionGraphBuilder kt;
  Attributes keys;
  keys.set("perm", std::vector<int64_t>{0, 2, 3, 1});
  Attributes other;
  other.set("perm", std::vector<int64_t>{0, 2, 3, 1});
  const ValueId att = kt.attention({kt.heads(kt.input("q", {1, 6, 2, 4})), kt.node("Transpose", {kt.input("k", {1, 6, 2, 4})}, keys),
                                    kt.heads(kt.input("v", {1, 6, 2, 4}))},
                                   true);
  kt.g.outputs = {kt.node("Transpose", {att}, other)};
  const Graph c = fold_attention_transposes(kt.g);
  EXPECT_EQ(count_ops(c, "Transpose"), 4);
  expect_same_results(kt.g, c, kt.feeds);

  // The attention's output is also read elsewhere: it stays in its own layout.
  AttentionGraphBuilder two;
  const ValueId out = two.attention({two.heads(two.input("q", {1, 5, 2, 4})), two.heads(two.input("k", {1, 5, 2, 4})),
                                     two.heads(two.input("v", {1, 5, 2, 4}))});
  two.g.outputs = {two.heads(out), out};
  const Graph d = fold_attention_transposes(two.g);
  EXPECT_EQ(count_ops(d, "Transpose"), 1);
  EXPECT_EQ(only(d, kAttention).attrs.get_string("qkv_layout", ""), "bshd");
  EXPECT_EQ(only(d, kAttention).attrs.get_string("out_layout", "bhsd"), "bhsd");
  expect_same_results(two.g, d, two.feeds);
}

// PyTorch's nn.MultiheadAttention export: [S, H, D] -> Transpose -> [H, S, D] -> Reshape -> [1, H, S, D]
// for Q, K and V, and [1, H, S, D] -> Transpose (2, 0, 1, 3) -> [S, 1, H, D] after the attention:
// head swaps once the unit axes are set aside. The Transposes become Reshapes (aliases).
TEST(VulkanFolds, HeadTransposesModuloUnitAxesFold) {
  Attributes heads_first, seq_first;
  heads_first.set("perm", std::vector<int64_t>{1, 0, 2});
  seq_first.set("perm", std::vector<int64_t>{2, 0, 1, 3});
  for (int64_t h : {2, 1}) {  // one head: H is a unit axis, and nothing folds
    AttentionGraphBuilder b;
    std::vector<ValueId> ins;
    for (const char* name : {"q", "k", "v"}) {
      const ValueId x = b.input(name, {5, h, 3});
      const ValueId t = b.node("Transpose", {x}, heads_first);
      ins.push_back(b.node("Reshape", {t, b.constant(Tensor::from<int64_t>(Shape{4}, {1, h, 5, 3}))}));
    }
    const ValueId y = b.node("Transpose", {b.attention(ins)}, seq_first);
    b.g.outputs = {b.node("Reshape", {y, b.constant(Tensor::from<int64_t>(Shape{2}, {5, h * 3}))})};
    const Graph folded = fold_attention_transposes(b.g);
    const Node& a = only(folded, kAttention);
    EXPECT_EQ(count_ops(folded, "Transpose"), h > 1 ? 0 : 4) << "H " << h;
    EXPECT_EQ(a.attrs.get_string("qkv_layout", "bhsd"), h > 1 ? "bshd" : "bhsd") << "H " << h;
    EXPECT_EQ(a.attrs.get_string("out_layout", "bhsd"), h > 1 ? "bshd" : "bhsd") << "H " << h;
    expect_same_results(b.g, folded, b.feeds);
  }
  // Another permutation of the real axes ([S, H, D] -> [D, S, H]) is no head swap: it stays.
  AttentionGraphBuilder other;
  Attributes rotate;
  rotate.set("perm", std::vector<int64_t>{2, 0, 1});
  std::vector<ValueId> ins;
  for (const char* name : {"q", "k", "v"}) ins.push_back(other.node("Transpose", {other.input(name, {4, 2, 4})}, rotate));
  other.g.outputs = {other.attention(ins)};
  const Graph kept = fold_attention_transposes(other.g);
  EXPECT_EQ(count_ops(kept, "Transpose"), 3);
  expect_same_results(other.g, kept, other.feeds);
}

// ---- fuse_matmul_residual ----

TEST(VulkanFolds, ResidualJoinsTheFusedMatMul) {
  struct Case {
    Shape a, residual;
    bool bias, residual_first;
  };
  const Case cases[] = {{{2, 5, 7}, {2, 5, 11}, true, true},
                        {{2, 5, 7}, {2, 5, 11}, false, false},
                        {{3, 7}, {11}, true, false},
                        {{2, 5, 7}, {5, 1}, true, true}};
  for (const Case& c : cases) {
    AttentionGraphBuilder b;
    const ValueId a = b.input("a", c.a);
    const ValueId r = b.input("r", c.residual);
    ValueId product = b.node("MatMul", {a, b.constant(test::random_tensor({7, 11}, 40))});
    if (c.bias) product = b.node("Add", {product, b.constant(test::random_tensor({11}, 41))});
    b.g.outputs = {c.residual_first ? b.node("Add", {r, product}) : b.node("Add", {product, r})};
    Graph bias_fused = fuse_matmul_bias_act(b.g);
    if (!c.bias) {  // a lone MatMul stays a MatMul: make it the fused op by hand
      for (Node& n : bias_fused.nodes)
        if (n.op == "MatMul") {
          n.op = kFusedMatMul;
          n.attrs.set("activation", std::string("none"));
        }
    }
    const Graph fused = fuse_matmul_residual(bias_fused);
    const std::string what = c.a.str() + " + " + c.residual.str();
    EXPECT_EQ(count_ops(fused, "Add"), 0) << what;
    ASSERT_EQ(fused.nodes.size(), 1u) << what;
    const Node& mm = only(fused, kFusedMatMul);
    ASSERT_EQ(mm.inputs.size(), 4u) << what;
    EXPECT_EQ(mm.inputs[2] != kNoValue, c.bias) << what;
    EXPECT_EQ(mm.inputs[3], r) << what;
    EXPECT_EQ(mm.outputs[0], b.g.outputs[0]) << what;
    expect_same_results(b.g, fused, b.feeds);
  }
}

TEST(VulkanFolds, ResidualLookalikesStay) {
  auto build = [](Shape residual, const std::string& activation, bool second_reader) {
    AttentionGraphBuilder b;
    const ValueId a = b.input("a", {2, 5, 7});
    const ValueId r = b.input("r", residual);
    Attributes act;
    act.set("activation", activation);
    const ValueId product = b.node(kFusedMatMul, {a, b.constant(test::random_tensor({7, 11}, 40))}, act);
    b.g.outputs = {b.node("Add", {product, r})};
    if (second_reader) b.g.outputs.push_back(product);
    return b;
  };
  const AttentionGraphBuilder cases[] = {build({2, 5, 11}, "relu", false),  // act(x) + r is not act(x + r)
                           build({2, 5, 11}, "none", true),   // the product is also an output
                           build({4, 2, 5, 11}, "none", false),  // the Add widens the product
                           build({2, 1, 5, 11}, "none", false)};  // widens too
  for (const AttentionGraphBuilder& b : cases) {
    const Graph g = fuse_matmul_residual(b.g);
    EXPECT_EQ(count_ops(g, "Add"), 1);
    EXPECT_EQ(only(g, kFusedMatMul).inputs.size(), 2u);
    expect_same_results(b.g, g, b.feeds);
  }
}

// ---- gemm_as_fused_matmul ----

Attributes gemm_attrs(int64_t trans_a, int64_t trans_b, float alpha = 1.0f, float beta = 1.0f) {
  Attributes a;
  a.set("transA", trans_a);
  a.set("transB", trans_b);
  a.set("alpha", alpha);
  a.set("beta", beta);
  return a;
}

TEST(VulkanFolds, GemmBecomesFusedMatMul) {
  for (int64_t trans_b : {1, 0})
    for (bool bias : {true, false}) {
      AttentionGraphBuilder b;
      const ValueId a = b.input("a", {5, 7});
      const Tensor w = test::random_tensor(trans_b ? Shape{11, 7} : Shape{7, 11}, 40);
      std::vector<ValueId> ins = {a, b.constant(w)};
      if (bias) ins.push_back(b.constant(test::random_tensor({11}, 41)));
      b.g.outputs = {b.node("Gemm", ins, gemm_attrs(0, trans_b))};
      const Graph g = gemm_as_fused_matmul(b.g);
      const std::string what = cat("transB ", trans_b, bias ? " with bias" : " without bias");
      ASSERT_EQ(g.nodes.size(), 1u) << what;
      const Node& mm = only(g, kFusedMatMul);
      EXPECT_EQ(mm.attrs.get_string("activation", ""), "none") << what;
      ASSERT_EQ(mm.inputs.size(), bias ? 3u : 2u) << what;
      EXPECT_EQ(mm.inputs[0], a) << what;
      if (bias) {
        EXPECT_EQ(mm.inputs[2], ins[2]) << what;
      }
      EXPECT_EQ(mm.outputs[0], b.g.outputs[0]) << what;
      const Tensor& kn = g.value(mm.inputs[1]).constant;  // B as [K, N]
      ASSERT_EQ(kn.shape(), (Shape{7, 11})) << what;
      for (int64_t k = 0; k < 7; ++k)
        for (int64_t n = 0; n < 11; ++n)
          ASSERT_EQ(kn.get(k * 11 + n), trans_b ? w.get(n * 7 + k) : w.get(k * 11 + n))
              << what << " at " << k << ", " << n;
      expect_same_results(b.g, g, b.feeds);
    }
}

TEST(VulkanFolds, GemmLookalikesStay) {
  struct Case {
    const char* what;
    Attributes attrs;
    bool runtime_b, full_c;
  };
  const Case cases[] = {{"transA", gemm_attrs(1, 1), false, false},
                        {"alpha", gemm_attrs(0, 1, 0.5f), false, false},
                        {"beta", gemm_attrs(0, 1, 1.0f, 2.0f), false, false},
                        {"runtime B", gemm_attrs(0, 1), true, false},
                        {"C [T, N]", gemm_attrs(0, 1), false, true}};
  for (const Case& c : cases) {
    AttentionGraphBuilder b;
    const bool trans_a = c.attrs.get_int("transA", 0) != 0;
    const ValueId a = b.input("a", trans_a ? Shape{7, 5} : Shape{5, 7});
    const ValueId w = c.runtime_b ? b.input("w", {11, 7}) : b.constant(test::random_tensor({11, 7}, 40));
    const ValueId bias = b.constant(test::random_tensor(c.full_c ? Shape{5, 11} : Shape{11}, 41));
    b.g.outputs = {b.node("Gemm", {a, w, bias}, c.attrs)};
    const Graph g = gemm_as_fused_matmul(b.g);
    EXPECT_EQ(count_ops(g, "Gemm"), 1) << c.what;
    EXPECT_EQ(count_ops(g, kFusedMatMul), 0) << c.what;
    expect_same_results(b.g, g, b.feeds);
  }
}

// ---- fuse_matmul_residual behind Reshapes ----

// PyTorch's out-projection: Gemm [T, E] -> Reshape [T, 1, E] -> Reshape [1, T, E] -> Add(R, .).
struct OutProjection : AttentionGraphBuilder {
  ValueId residual = kNoValue, first_view = kNoValue, product = kNoValue;
  explicit OutProjection(Shape residual_shape, bool residual_first = true, bool residual_late = false) {
    const ValueId a = input("a", {5, 8});
    const ValueId x = input("x", residual_shape);
    product = node("Gemm", {a, constant(test::random_tensor({8, 8}, 40)), constant(test::random_tensor({8}, 41))},
                   gemm_attrs(0, 1));
    // Computed after the Gemm: the fused node must wait for it.
    residual = residual_late ? node("Relu", {x}) : x;
    first_view = node("Reshape", {product, constant(Tensor::from<int64_t>(Shape{3}, {5, 1, 8}))});
    const ValueId second = node("Reshape", {first_view, constant(Tensor::from<int64_t>(Shape{3}, {1, 5, 8}))});
    g.outputs = {residual_first ? node("Add", {residual, second}) : node("Add", {second, residual})};
  }
};

TEST(VulkanFolds, ResidualJoinsTheFusedMatMulThroughReshapes) {
  for (bool residual_first : {true, false})
    for (bool residual_late : {false, true}) {
      const OutProjection b({1, 5, 8}, residual_first, residual_late);
      const Graph fused = fuse_matmul_residual(gemm_as_fused_matmul(b.g));
      const std::string what = cat(residual_first ? "R first" : "R second", residual_late ? ", R late" : "");
      EXPECT_EQ(count_ops(fused, "Add"), 0) << what;
      EXPECT_EQ(count_ops(fused, "Gemm"), 0) << what;
      EXPECT_EQ(count_ops(fused, "Reshape"), 2) << what;  // R to [5, 8], the product to [1, 5, 8]
      const Node& mm = only(fused, kFusedMatMul);
      ASSERT_EQ(mm.inputs.size(), 4u) << what;
      EXPECT_NE(mm.inputs[2], kNoValue) << what;
      const Node& r = fused.nodes[size_t(fused.producers()[size_t(mm.inputs[3])])];
      EXPECT_EQ(r.op, "Reshape") << what;
      EXPECT_EQ(r.inputs[0], b.residual) << what;
      EXPECT_EQ(fused.nodes.back().op, "Reshape") << what;
      EXPECT_EQ(fused.nodes.back().outputs[0], b.g.outputs[0]) << what;
      expect_same_results(b.g, fused, b.feeds);  // validates the node order too
    }
}

TEST(VulkanFolds, ReshapedResidualLookalikesStay) {
  std::vector<std::pair<std::string, OutProjection>> cases;
  cases.emplace_back("a Reshape's output is also a graph output", OutProjection({1, 5, 8}));
  cases.back().second.g.outputs.push_back(cases.back().second.first_view);
  cases.emplace_back("a Reshape's output is read elsewhere", OutProjection({1, 5, 8}));
  {
    OutProjection& b = cases.back().second;
    b.g.outputs.push_back(b.node("Relu", {b.first_view}));
  }
  cases.emplace_back("the product is read elsewhere", OutProjection({1, 5, 8}));
  {
    OutProjection& b = cases.back().second;
    b.g.outputs.push_back(b.node("Relu", {b.product}));
  }
  cases.emplace_back("R [8] broadcasts", OutProjection({8}));
  cases.emplace_back("R [1, 1, 8] broadcasts", OutProjection({1, 1, 8}));
  cases.emplace_back("R [3, 5, 8] widens", OutProjection({3, 5, 8}));
  for (const auto& [what, b] : cases) {
    const Graph g = fuse_matmul_residual(gemm_as_fused_matmul(b.g));
    EXPECT_EQ(count_ops(g, "Add"), 1) << what;
    EXPECT_EQ(count_ops(g, "Reshape"), 2) << what;
    EXPECT_EQ(only(g, kFusedMatMul).inputs.size(), 3u) << what;
    expect_same_results(b.g, g, b.feeds);
  }
}

// ---- fuse_matmul_layer_norm ----

// A post-norm block's end: vx.LayerNorm over E = 12 of vx.FusedMatMul(a [5, 8], W [8, 12], Bias,
// Residual) (as fuse_matmul_residual leaves it), maybe through Reshapes to `views` first.
struct NormOptions {
  bool bias = true, residual = true, norm_bias = true;
  std::optional<float> epsilon = 1e-3f;  // nullopt: no attribute
  std::string activation = "none";
  std::vector<std::vector<int64_t>> views = {};  // the Reshapes' targets, in order
  int64_t scale_length = 12;
  bool norm_read_by_relu = false;  // the norm's output read by a Relu (the graph output), else the graph output
};

struct NormedProduct : AttentionGraphBuilder {
  ValueId product = kNoValue, scale = kNoValue, norm_bias = kNoValue, norm = kNoValue;
  std::vector<ValueId> views;
  explicit NormedProduct(const NormOptions& o = {}) {
    const ValueId a = input("a", {5, 8});
    std::vector<ValueId> ins = {a, constant(test::random_tensor({8, 12}, 40))};
    ins.push_back(o.bias ? constant(test::random_tensor({12}, 41)) : kNoValue);
    if (o.residual) ins.push_back(input("r", {5, 12}));
    Attributes act;
    act.set("activation", o.activation);
    product = node(kFusedMatMul, ins, act);
    ValueId x = product;
    for (const std::vector<int64_t>& target : o.views) {
      Tensor dims(DType::i64, Shape{int64_t(target.size())});
      std::copy(target.begin(), target.end(), dims.data<int64_t>());
      x = node("Reshape", {x, constant(dims)});
      views.push_back(x);
    }
    scale = constant(test::random_tensor({o.scale_length}, 42, 0.5f, 1.5f));
    std::vector<ValueId> norm_ins = {x, scale};
    if (o.norm_bias) norm_ins.push_back(norm_bias = constant(test::random_tensor({12}, 43)));
    Attributes eps;
    if (o.epsilon) eps.set("epsilon", *o.epsilon);
    norm = node(kLayerNorm, norm_ins, eps);
    g.outputs = {o.norm_read_by_relu ? node("Relu", {norm}) : norm};
  }
};

// The fused node's inputs and attribute, and the norm's output written by the end of the chain.
void expect_norm_joined(const NormedProduct& b, const Graph& fused, const NormOptions& o, const std::string& what) {
  fused.validate();
  EXPECT_EQ(count_ops(fused, kLayerNorm), 0) << what;
  EXPECT_EQ(count_ops(fused, kFusedMatMul), 1) << what;
  EXPECT_EQ(count_ops(fused, "Reshape"), int(o.views.size())) << what;
  ASSERT_EQ(fused.nodes.size(), 1 + o.views.size() + (o.norm_read_by_relu ? 1 : 0)) << what;
  const Node& mm = fused.nodes[0];
  ASSERT_EQ(mm.op, kFusedMatMul) << what;
  ASSERT_EQ(mm.inputs.size(), 6u) << what;
  EXPECT_EQ(mm.inputs[2] != kNoValue, o.bias) << what;
  EXPECT_EQ(mm.inputs[3] != kNoValue, o.residual) << what;
  EXPECT_EQ(mm.inputs[4], b.scale) << what;
  EXPECT_EQ(mm.inputs[5], b.norm_bias) << what;  // kNoValue without one
  EXPECT_FLOAT_EQ(mm.attrs.get_float("layer_norm_epsilon", 0.0f), o.epsilon.value_or(1e-5f)) << what;
  EXPECT_EQ(mm.attrs.get_string("activation", ""), o.activation) << what;
  // The chain stays in order, each Reshape reading the one before; the last writes the norm's value.
  ValueId v = mm.outputs[0];
  for (size_t k = 0; k < o.views.size(); ++k) {
    const Node& r = fused.nodes[1 + k];
    ASSERT_EQ(r.op, "Reshape") << what;
    EXPECT_EQ(r.inputs[0], v) << what;
    v = r.outputs[0];
  }
  EXPECT_EQ(v, b.norm) << what;
  EXPECT_EQ(fused.value(v).name, b.g.value(b.norm).name) << what;
  EXPECT_EQ(fused.outputs, b.g.outputs) << what;
  if (o.norm_read_by_relu) {
    EXPECT_EQ(fused.nodes.back().op, "Relu") << what;
    EXPECT_EQ(fused.nodes.back().inputs[0], b.norm) << what;
  }
}

TEST(VulkanFolds, LayerNormJoinsTheFusedMatMul) {
  const NormOptions cases[] = {{},
                               {.norm_bias = false},
                               {.epsilon = std::nullopt},
                               {.bias = false},
                               {.residual = false, .activation = "relu"},
                               {.norm_read_by_relu = true}};
  for (const NormOptions& o : cases) {
    const NormedProduct b(o);
    const Graph fused = fuse_matmul_layer_norm(b.g);
    expect_norm_joined(b, fused, o,
                       cat(o.bias ? "bias" : "no bias", o.residual ? ", residual" : "", o.norm_bias ? ", norm bias" : "",
                           o.epsilon ? "" : ", default epsilon", ", ", o.activation, o.norm_read_by_relu ? ", read by a Relu" : ""));
  }
}

TEST(VulkanFolds, LayerNormJoinsTheFusedMatMulThroughReshapes) {
  const NormOptions cases[] = {{.views = {{5, 1, 12}}},  // PyTorch's out-projection, [T, E] -> [T, 1, E]
                               {.views = {{5, 1, 12}, {1, 5, 12}}},
                               {.norm_bias = false, .views = {{5, 1, 12}}, .norm_read_by_relu = true}};
  for (const NormOptions& o : cases) {
    const NormedProduct b(o);
    const Graph fused = fuse_matmul_layer_norm(b.g);
    expect_norm_joined(b, fused, o, cat(o.views.size(), " Reshapes", o.norm_bias ? "" : ", no norm bias"));
    // The view's shape is recorded for the norm's value, which the last Reshape now writes.
    EXPECT_EQ(fused.value(b.norm).shape, Shape(o.views.back()));
    EXPECT_EQ(fused.value(b.norm).dtype, DType::f32);
  }
}

// The graph is left as it was: one vx.LayerNorm, the FusedMatMul with its own inputs.
void expect_norm_stays(const NormedProduct& b, const Graph& g, const std::string& what) {
  EXPECT_EQ(count_ops(g, kLayerNorm), 1) << what;
  EXPECT_EQ(g.nodes.size(), b.g.nodes.size()) << what;
  EXPECT_EQ(only(g, kFusedMatMul).inputs.size(), b.g.nodes[0].inputs.size()) << what;
  EXPECT_FALSE(only(g, kFusedMatMul).attrs.has("layer_norm_epsilon")) << what;
}

TEST(VulkanFolds, LayerNormStaysWhenTheProductHasAnotherReader) {
  std::vector<std::pair<std::string, NormedProduct>> cases;
  cases.emplace_back("the product is read by a Relu too", NormedProduct());
  cases.back().second.g.outputs.push_back(cases.back().second.node("Relu", {cases.back().second.product}));
  cases.emplace_back("the product is a graph output too", NormedProduct());
  cases.back().second.g.outputs.push_back(cases.back().second.product);
  cases.emplace_back("a Reshape's output is read by a Relu too", NormedProduct({.views = {{5, 1, 12}}}));
  cases.back().second.g.outputs.push_back(cases.back().second.node("Relu", {cases.back().second.views[0]}));
  cases.emplace_back("a Reshape's output is a graph output too", NormedProduct({.views = {{5, 1, 12}}}));
  cases.back().second.g.outputs.push_back(cases.back().second.views[0]);
  for (const auto& [what, b] : cases) {
    const Graph g = fuse_matmul_layer_norm(b.g);
    expect_norm_stays(b, g, what);
    expect_same_results(b.g, g, b.feeds);
  }
}

TEST(VulkanFolds, LayerNormStaysWhenAReshapeChangesTheRows) {
  const NormOptions cases[] = {{.views = {{5, 3, 4}}, .scale_length = 4},  // rows of 4: another norm
                               {.views = {{5, 1, 12}, {60}}, .scale_length = 60}};
  for (const NormOptions& o : cases) {
    NormedProduct b(o);
    if (o.scale_length != 12)  // the norm's bias matches its rows too
      b.g.nodes.back().inputs[2] = b.norm_bias = b.constant(test::random_tensor({o.scale_length}, 43));
    const Graph g = fuse_matmul_layer_norm(b.g);
    const std::string what = cat("rows of ", o.scale_length);
    expect_norm_stays(b, g, what);
    EXPECT_EQ(count_ops(g, "Reshape"), int(o.views.size())) << what;
    expect_same_results(b.g, g, b.feeds);
  }
}

TEST(VulkanFolds, LayerNormStaysWhenItsScaleHasAnotherLength) {
  // Rows of 12, a scale (or a bias) of 6 or [1, 12] values: not the [N] vectors the fused norm takes.
  NormedProduct short_scale({.scale_length = 6});
  expect_norm_stays(short_scale, fuse_matmul_layer_norm(short_scale.g), "scale [6]");
  NormedProduct short_bias;
  short_bias.g.nodes.back().inputs[2] = short_bias.constant(test::random_tensor({6}, 43));
  expect_norm_stays(short_bias, fuse_matmul_layer_norm(short_bias.g), "bias [6]");
  NormedProduct matrix_scale;
  matrix_scale.g.nodes.back().inputs[1] = matrix_scale.constant(test::random_tensor({1, 12}, 42, 0.5f, 1.5f));
  const Graph g = fuse_matmul_layer_norm(matrix_scale.g);
  expect_norm_stays(matrix_scale, g, "scale [1, 12]");
  expect_same_results(matrix_scale.g, g, matrix_scale.feeds);
}

// The fused graph computes what the unfused one does: the norm after the bias, the residual and
// the activation, on the reference kernels and the fast ones (oneDNN's declines the norm).
TEST(VulkanFolds, LayerNormJoinedComputesWhatTheGraphDid) {
  const NormOptions cases[] = {{},
                               {.norm_bias = false, .epsilon = std::nullopt},
                               {.residual = false, .activation = "relu"},
                               {.bias = false, .views = {{5, 1, 12}, {1, 5, 12}}, .norm_read_by_relu = true}};
  for (const NormOptions& o : cases) {
    const NormedProduct b(o);
    const Graph fused = fuse_matmul_layer_norm(b.g);
    ASSERT_EQ(count_ops(fused, kLayerNorm), 0);
    expect_same_results(b.g, fused, b.feeds);
  }
}

}  // namespace
}  // namespace vx

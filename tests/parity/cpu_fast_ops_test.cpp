// The fast CPU kernels (oneDNN matmul / pooling / softmax / eltwise, the attention and layer-norm
// kernels) against the reference kernels, single nodes at odd shapes. Tolerance: 1e-4 of the
// reference output's largest magnitude (float accumulation against double), and every case
// checks that the fast variant really ran.
#include <cmath>

#include "common/test_util.h"
#include "ops/fused_ops.h"
#include "session/graph_runner.h"

namespace vx {
namespace {

constexpr double kTolerance = 1e-4;

struct Input {
  std::string name;
  Shape shape;
  bool constant = false;
};

// One node over inputs (graph inputs or constants, random), one output; opset 17.
struct FastOpCase {
  Graph g;
  std::vector<Tensor> feeds;
};

FastOpCase one_node(const std::string& op, const std::vector<Input>& inputs, Attributes attrs, uint64_t seed) {
  FastOpCase t;
  t.g.opsets[""] = 17;
  std::vector<ValueId> ids;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Input& in = inputs[i];
    Tensor data = test::random_tensor(in.shape, seed + i);
    if (in.constant) {
      ids.push_back(t.g.add_constant(in.name, data));
    } else {
      ids.push_back(t.g.add_value(in.name, DType::f32, in.shape));
      t.g.inputs.push_back(ids.back());
      t.feeds.push_back(data);
    }
  }
  const ValueId y = t.g.add_value("y", DType::f32, {});
  t.g.add_node(op, "node", ids, {y}, std::move(attrs));
  t.g.outputs = {y};
  return t;
}

// Largest |fast - reference| over the reference's peak; expects the fast variant `variant`.
double fast_vs_reference(const FastOpCase& t, const std::string& variant) {
  RunnerOptions fast_options, ref_options;
  fast_options.optimize = ref_options.optimize = false;
  ref_options.reference_only = true;
  GraphRunner fast(t.g, fast_options), ref(t.g, ref_options);
  Profile profile;
  std::vector<Tensor> a = fast.run(t.feeds, &profile);
  std::vector<Tensor> b = ref.run(t.feeds);
  EXPECT_EQ(profile.entries.size(), 1u);
  if (!profile.entries.empty()) {
    EXPECT_EQ(profile.entries[0].variant, variant) << profile.str();
  }
  EXPECT_EQ(a[0].shape(), b[0].shape());
  if (a[0].shape() != b[0].shape()) return 1e9;
  double peak = 1e-6;
  for (int64_t i = 0; i < b[0].numel(); ++i) peak = std::max(peak, std::abs(b[0].get(i)));
  return test::max_abs_diff(a[0], b[0]) / peak;
}

Attributes with(std::initializer_list<std::pair<const char*, Attribute>> list) {
  Attributes a;
  for (const auto& [k, v] : list) a.set(k, v);
  return a;
}

TEST(CpuFastOps, MatMulBatchedBroadcastAndVectors) {
  struct Case {
    Shape a, b;
    bool b_constant;
  };
  const std::vector<Case> cases = {
      {{7, 13}, {13, 5}, true},        {{2, 3, 7, 13}, {13, 29}, true},  {{3, 1, 5, 9}, {4, 9, 6}, false},
      {{1, 12, 17, 8}, {1, 12, 8, 17}, false}, {{13}, {13, 5}, true},  {{4, 7, 13}, {13}, false},
      {{2, 5, 3}, {2, 3, 1}, false},  {{1, 33}, {33, 65}, true},
  };
  uint64_t seed = 1;
  for (const Case& c : cases) {
    FastOpCase t = one_node("MatMul", {{"a", c.a}, {"b", c.b, c.b_constant}}, {}, seed += 10);
    EXPECT_LE(fast_vs_reference(t, "onednn"), kTolerance) << c.a.str() << " x " << c.b.str();
  }
}

TEST(CpuFastOps, GemmTransposesAlphaBetaAndC) {
  struct Case {
    Shape a, b, c;
    int64_t ta, tb;
    float alpha, beta;
  };
  const std::vector<Case> cases = {
      {{7, 13}, {13, 5}, {5}, 0, 0, 1.0f, 1.0f},      {{13, 7}, {5, 13}, {7, 5}, 1, 1, 0.5f, 2.0f},
      {{7, 13}, {5, 13}, {7, 1}, 0, 1, 1.5f, -1.0f},  {{3, 17}, {17, 9}, {}, 0, 0, 2.0f, 1.0f},
      {{1, 2048}, {1000, 2048}, {1000}, 0, 1, 1.0f, 1.0f},
  };
  uint64_t seed = 100;
  for (const Case& c : cases) {
    std::vector<Input> ins = {{"a", c.a}, {"b", c.b, true}};
    if (c.c.rank() > 0) ins.push_back({"c", c.c, true});
    FastOpCase t = one_node("Gemm", ins,
                         with({{"transA", c.ta}, {"transB", c.tb}, {"alpha", c.alpha}, {"beta", c.beta}}), seed += 10);
    EXPECT_LE(fast_vs_reference(t, "onednn"), kTolerance) << c.a.str() << " x " << c.b.str() << " ta " << c.ta;
  }
}

TEST(CpuFastOps, FusedMatMulBiasAndActivations) {
  uint64_t seed = 200;
  for (const char* act : {"none", "relu", "gelu_erf", "gelu_tanh"})
    for (bool bias : {false, true}) {
      std::vector<Input> ins = {{"a", {2, 9, 19}}, {"b", {19, 37}, true}};
      if (bias) ins.push_back({"bias", {37}, true});
      FastOpCase t = one_node(kFusedMatMul, ins, with({{"activation", std::string(act)}}), seed += 10);
      EXPECT_LE(fast_vs_reference(t, "onednn"), kTolerance) << act << " bias " << bias;
    }
}

TEST(CpuFastOps, MatMulInt8WeightsDequantizedInTheKernel) {
  // 300 columns: one full block of 256 and a remainder.
  for (bool bias : {false, true}) {
    FastOpCase t;
    t.g.opsets[""] = 17;
    const ValueId a = t.g.add_value("a", DType::f32, {3, 5, 41});
    t.g.inputs = {a};
    t.feeds = {test::random_tensor({3, 5, 41}, 7)};
    Tensor wq(DType::i8, Shape({41, 300}));
    for (int64_t i = 0; i < wq.numel(); ++i) wq.data<int8_t>()[i] = int8_t((i * 37) % 255 - 127);
    const ValueId w = t.g.add_constant("wq", wq);
    const ValueId s = t.g.add_constant("scales", test::random_tensor({300}, 8, 0.001f, 0.02f));
    std::vector<ValueId> ins = {a, w, s};
    if (bias) ins.push_back(t.g.add_constant("bias", test::random_tensor({300}, 9)));
    const ValueId y = t.g.add_value("y", DType::f32, {});
    t.g.add_node(kMatMulInt8W, "node", ins, {y}, with({{"activation", std::string("relu")}}));
    t.g.outputs = {y};
    EXPECT_LE(fast_vs_reference(t, "onednn"), kTolerance) << "bias " << bias;
  }
}

TEST(CpuFastOps, AttentionWithMasksAndTransposedK) {
  struct Case {
    Shape q, k, v, mask;
    int64_t k_transposed;
  };
  const std::vector<Case> cases = {
      {{1, 3, 7, 5}, {1, 3, 11, 5}, {1, 3, 11, 6}, {}, 0},
      {{1, 3, 7, 5}, {1, 3, 5, 11}, {1, 3, 11, 6}, {1, 1, 7, 11}, 1},
      {{2, 3, 9, 8}, {2, 3, 9, 8}, {2, 3, 9, 8}, {9, 9}, 0},
      {{2, 1, 9, 8}, {2, 4, 9, 8}, {2, 4, 9, 3}, {2, 1, 1, 9}, 0},  // Q broadcast over heads, key padding mask
      {{5, 4}, {6, 4}, {6, 7}, {5, 1}, 0},
  };
  uint64_t seed = 300;
  for (const Case& c : cases) {
    std::vector<Input> ins = {{"q", c.q}, {"k", c.k}, {"v", c.v}};
    if (c.mask.rank() > 0) ins.push_back({"mask", c.mask});
    FastOpCase t = one_node(kAttention, ins, with({{"scale", 0.37f}, {"k_transposed", c.k_transposed}}), seed += 10);
    EXPECT_LE(fast_vs_reference(t, "onednn"), kTolerance) << c.q.str() << " " << c.k.str() << " " << c.mask.str();
  }
}

TEST(CpuFastOps, SoftmaxLastAxisAndOldOpsetCoercion) {
  for (const Shape& s : {Shape({3, 17}), Shape({2, 3, 5, 129}), Shape({1})}) {
    FastOpCase t = one_node("Softmax", {{"x", s}}, {}, 400);
    EXPECT_LE(fast_vs_reference(t, "onednn"), kTolerance) << s.str();
  }
  FastOpCase old = one_node("Softmax", {{"x", {2, 3, 5}}}, with({{"axis", int64_t(1)}}), 410);
  old.g.opsets[""] = 11;  // 2-D coercion: softmax over the 15 trailing values
  EXPECT_LE(fast_vs_reference(old, "onednn"), kTolerance);
  FastOpCase middle = one_node("Softmax", {{"x", {2, 3, 5}}}, with({{"axis", int64_t(1)}}), 420);
  EXPECT_LE(fast_vs_reference(middle, "reference"), 1e-12);  // opset 13 axis 1: declined
}

TEST(CpuFastOps, LayerNormAndGelu) {
  for (const Shape& s : {Shape({4, 7, 33}), Shape({1, 768}), Shape({5})}) {
    const int64_t c = s[s.rank() - 1];
    FastOpCase ln = one_node("LayerNormalization", {{"x", s}, {"scale", {c}, true}, {"bias", {c}, true}},
                          with({{"epsilon", 1e-5f}}), 500);
    EXPECT_LE(fast_vs_reference(ln, "fast"), kTolerance) << s.str();
    FastOpCase vln = one_node(kLayerNorm, {{"x", s}, {"scale", {c}, true}}, with({{"epsilon", 1e-3f}}), 510);
    EXPECT_LE(fast_vs_reference(vln, "fast"), kTolerance) << s.str();
    for (const char* approx : {"none", "tanh"}) {
      FastOpCase gelu = one_node(kGelu, {{"x", s}}, with({{"approximate", std::string(approx)}}), 520);
      EXPECT_LE(fast_vs_reference(gelu, "onednn"), kTolerance) << s.str() << " " << approx;
    }
  }
  FastOpCase other_axis = one_node("LayerNormalization", {{"x", {4, 6}}, {"scale", {4, 6}, true}},
                                with({{"axis", int64_t(0)}}), 530);
  EXPECT_LE(fast_vs_reference(other_axis, "reference"), 1e-12);
}

TEST(CpuFastOps, Pooling) {
  struct Case {
    const char* op;
    Shape x;
    std::vector<int64_t> kernel, strides, pads;
    int64_t include_pad;
  };
  const std::vector<Case> cases = {
      {"MaxPool", {1, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0},
      {"MaxPool", {2, 5, 17, 13}, {2, 3}, {1, 2}, {0, 1, 1, 2}, 0},
      {"AveragePool", {2, 5, 17, 13}, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0},
      {"AveragePool", {1, 3, 9, 11}, {3, 2}, {1, 1}, {1, 0, 2, 1}, 1},
  };
  uint64_t seed = 600;
  for (const Case& c : cases) {
    FastOpCase t = one_node(c.op, {{"x", c.x}},
                         with({{"kernel_shape", c.kernel}, {"strides", c.strides}, {"pads", c.pads},
                               {"count_include_pad", c.include_pad}}),
                         seed += 10);
    EXPECT_LE(fast_vs_reference(t, "onednn"), kTolerance) << c.op << " " << c.x.str();
  }
}

TEST(CpuFastOps, GroupedDepthwiseAndStridedConvolutions) {
  struct Case {
    int64_t c_in, c_out, group, kernel, stride, pad;
    bool relu;
  };
  const std::vector<Case> cases = {
      {6, 4, 2, 3, 1, 1, true},   {8, 8, 8, 3, 2, 1, true},  {9, 9, 9, 5, 1, 2, false},  // depthwise
      {12, 18, 3, 1, 2, 0, false}, {17, 5, 1, 1, 2, 0, true}, {3, 8, 1, 7, 2, 3, true},   // ResNet's stem shape
  };
  uint64_t seed = 700;
  for (const Case& c : cases) {
    const float bound = 1.0f / std::sqrt(float(c.c_in / c.group * c.kernel * c.kernel));
    FastOpCase t;
    t.g.opsets[""] = 17;
    const ValueId x = t.g.add_value("x", DType::f32, {2, c.c_in, 13, 11});
    t.g.inputs = {x};
    t.feeds = {test::random_tensor({2, c.c_in, 13, 11}, seed + 1)};
    const ValueId w = t.g.add_constant(
        "w", test::random_tensor({c.c_out, c.c_in / c.group, c.kernel, c.kernel}, seed + 2, -bound, bound));
    const ValueId b = t.g.add_constant("b", test::random_tensor({c.c_out}, seed + 3));
    const ValueId y = t.g.add_value("y", DType::f32, {});
    t.g.add_node(kFusedConv, "node", {x, w, b}, {y},
                 with({{"kernel_shape", std::vector<int64_t>{c.kernel, c.kernel}},
                       {"strides", std::vector<int64_t>{c.stride, c.stride}},
                       {"pads", std::vector<int64_t>{c.pad, c.pad, c.pad, c.pad}}, {"group", c.group},
                       {"relu", int64_t(c.relu)}, {"pool", int64_t(0)}, {"upsample_concat", int64_t(0)}}));
    t.g.outputs = {y};
    EXPECT_LE(fast_vs_reference(t, "onednn"), kTolerance) << "c_in " << c.c_in << " group " << c.group;
    seed += 10;
  }
}

}  // namespace
}  // namespace vx

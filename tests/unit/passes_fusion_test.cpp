// The ONNX fusion passes (Gelu, LayerNorm, attention, MatMul + bias + activation, int8 weights,
// conv + affine folding, HardSwish, conv post-ops, the U-Net's pool and upsample-concat):
// each pattern, built as an exporter writes it, is fused into the expected vx.* op, and the fused
// graph computes what the unfused one does (both on the reference kernels: 1e-5 of the output's
// peak; the fused graph on the fast kernels too: 1e-4). Patterns that differ are left alone.
#include <cmath>
#include <functional>
#include <limits>

#include "common/graph_builder.h"
#include "common/test_util.h"
#include "ops/fused_ops.h"
#include "passes/fuse_conv_bias_relu.h"
#include "passes/fuse_conv_global_mean.h"
#include "passes/fuse_conv_pairs.h"
#include "passes/fuse_conv_residual.h"
#include "passes/fuse_matmul_int8_weights.h"
#include "passes/optimize_onnx.h"
#include "session/model_runner.h"

namespace vx {
namespace {

Tensor scalar(float v) { return Tensor::from<float>(Shape{}, {v}); }

Attributes with(std::initializer_list<std::pair<const char*, Attribute>> list) {
  Attributes a;
  for (const auto& [k, v] : list) a.set(k, v);
  return a;
}

using Builder = test::GraphBuilder;
using test::count_ops;

std::vector<Tensor> run(const Graph& g, const std::vector<Tensor>& feeds, bool reference_only) {
  ModelRunnerOptions o;
  o.optimize = false;
  o.reference_only = reference_only;
  ModelRunner runner(g, o);
  return runner.run(feeds);
}

// Optimises a copy of b's graph; expects `fused_op` to appear `expected` times, and the outputs
// to match the unfused graph's.
Graph check_fusion(const Builder& b, const std::string& fused_op, int expected) {
  Graph fused = b.g;
  optimize_onnx(fused);
  EXPECT_EQ(count_ops(fused, fused_op), expected) << fused_op;
  const std::vector<Tensor> want = run(b.g, b.feeds, true);
  const std::vector<Tensor> ref = run(fused, b.feeds, true);
  const std::vector<Tensor> fast = run(fused, b.feeds, false);
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_LE(test::max_diff_over_peak(ref[i], want[i]), 1e-5) << fused_op << " output " << i << " (reference kernels)";
    EXPECT_LE(test::max_diff_over_peak(fast[i], want[i]), 1e-4) << fused_op << " output " << i << " (fast kernels)";
  }
  return fused;
}

// ---- Gelu ----

// 0.5 * x * (1 + erf(x / sqrt2)), with the final products in the order `order` (0, 1, 2).
ValueId gelu_erf(Builder& b, ValueId x, int order, float sqrt2 = float(std::sqrt(2.0))) {
  const ValueId t = b.node("Div", {x, b.constant(scalar(sqrt2))});
  const ValueId a = b.node("Add", {b.node("Erf", {t}), b.constant(scalar(1.0f))});
  if (order == 0) return b.node("Mul", {b.node("Mul", {x, a}), b.constant(scalar(0.5f))});
  if (order == 1) return b.node("Mul", {x, b.node("Mul", {a, b.constant(scalar(0.5f))})});
  return b.node("Mul", {b.node("Mul", {x, b.constant(scalar(0.5f))}), a});
}

TEST(FusionPasses, GeluErfInEveryAssociation) {
  for (int order = 0; order < 3; ++order) {
    Builder b;
    const ValueId x = b.input("x", {2, 5, 7});
    b.g.outputs = {gelu_erf(b, x, order)};
    Graph fused = check_fusion(b, kGelu, 1);
    EXPECT_EQ(fused.nodes.size(), 1u) << "order " << order;
  }
}

TEST(FusionPasses, GeluTanhForm) {
  Builder b;
  const ValueId x = b.input("x", {3, 11});
  const ValueId cube = b.node("Pow", {x, b.constant(scalar(3.0f))});
  const ValueId inner = b.node("Add", {x, b.node("Mul", {cube, b.constant(scalar(0.044715f))})});
  const ValueId th = b.node("Tanh", {b.node("Mul", {b.constant(scalar(0.7978845608f)), inner})});
  const ValueId a = b.node("Add", {th, b.constant(scalar(1.0f))});
  b.g.outputs = {b.node("Mul", {b.node("Mul", {x, a}), b.constant(scalar(0.5f))})};
  Graph fused = check_fusion(b, kGelu, 1);
  ASSERT_EQ(fused.nodes.size(), 1u);
  EXPECT_EQ(fused.nodes[0].attrs.get_string("approximate", ""), "tanh");
}

TEST(FusionPasses, GeluLookalikesAreNotFused) {
  Builder wrong_constant;
  const ValueId x = wrong_constant.input("x", {4, 6});
  wrong_constant.g.outputs = {gelu_erf(wrong_constant, x, 0, 2.0f)};
  check_fusion(wrong_constant, kGelu, 0);

  Builder shared_intermediate;  // the Erf's result is also a graph output
  const ValueId y = shared_intermediate.input("x", {4, 6});
  const ValueId gelu = gelu_erf(shared_intermediate, y, 0);
  const ValueId erf_out = shared_intermediate.g.nodes[1].outputs[0];
  shared_intermediate.g.outputs = {gelu, erf_out};
  check_fusion(shared_intermediate, kGelu, 0);
}

// ---- LayerNorm ----

// The decomposition torch exports for older opsets; axes as attribute (opset 17) or input (18).
ValueId layer_norm(Builder& b, ValueId x, int64_t c, int64_t axis, bool axes_input, bool affine) {
  auto mean = [&](ValueId v) {
    if (axes_input)
      return b.node("ReduceMean", {v, b.constant(Tensor::from<int64_t>(Shape{1}, {axis}))});
    return b.node("ReduceMean", {v}, with({{"axes", std::vector<int64_t>{axis}}}));
  };
  const ValueId d = b.node("Sub", {x, mean(x)});
  const ValueId var = mean(b.node("Pow", {d, b.constant(scalar(2.0f))}));
  const ValueId s = b.node("Sqrt", {b.node("Add", {var, b.constant(scalar(1e-5f))})});
  ValueId y = b.node("Div", {d, s});
  if (!affine) return y;
  y = b.node("Mul", {y, b.constant(test::random_tensor({c}, 77))});
  return b.node("Add", {y, b.constant(test::random_tensor({c}, 78))});
}

TEST(FusionPasses, LayerNormDecompositions) {
  for (int variant = 0; variant < 3; ++variant) {
    Builder b(variant == 1 ? 18 : 17);
    const ValueId x = b.input("x", {2, 9, 24});
    b.g.outputs = {layer_norm(b, x, 24, variant == 2 ? 2 : -1, variant == 1, variant != 2)};
    Graph fused = check_fusion(b, kLayerNorm, 1);
    EXPECT_EQ(fused.nodes.size(), 1u) << "variant " << variant;
  }
  Builder onnx_op;  // LayerNormalization itself becomes vx.LayerNorm
  const ValueId x = onnx_op.input("x", {3, 16});
  onnx_op.g.outputs = {onnx_op.node("LayerNormalization", {x, onnx_op.constant(test::random_tensor({16}, 5)),
                                                           onnx_op.constant(test::random_tensor({16}, 6))})};
  check_fusion(onnx_op, kLayerNorm, 1);
}

TEST(FusionPasses, LayerNormOverAnotherAxisIsNotFused) {
  Builder b;
  const ValueId x = b.input("x", {2, 9, 24});
  b.g.outputs = {layer_norm(b, x, 24, 1, false, false)};
  check_fusion(b, kLayerNorm, 0);

  Builder stats;  // LayerNormalization whose Mean is a graph output keeps its extra outputs
  const ValueId y = stats.input("x", {3, 16});
  const ValueId out = stats.g.add_value("y", DType::f32, {}), mean = stats.g.add_value("mean", DType::f32, {});
  stats.g.add_node("LayerNormalization", "ln", {y, stats.constant(test::random_tensor({16}, 5))}, {out, mean});
  stats.g.outputs = {out, mean};
  check_fusion(stats, kLayerNorm, 0);
}

// ---- attention ----

struct AttentionCase {
  bool transpose_k = true, mask = true, divide = true;
  int64_t softmax_axis = -1;
  bool scale_is_input = false;
};

Builder attention_graph(const AttentionCase& c) {
  Builder b;
  const ValueId q = b.input("q", {1, 2, 5, 4});
  const ValueId k = b.input("k", c.transpose_k ? Shape{1, 2, 6, 4} : Shape{1, 2, 4, 6});
  const ValueId v = b.input("v", {1, 2, 6, 3});
  const ValueId kt = c.transpose_k ? b.node("Transpose", {k}, with({{"perm", std::vector<int64_t>{0, 1, 3, 2}}})) : k;
  ValueId s = b.node("MatMul", {q, kt});
  const ValueId scale = c.scale_is_input ? b.input("scale", Shape{}) : b.constant(scalar(c.divide ? 2.0f : 0.5f));
  s = b.node(c.divide ? "Div" : "Mul", {s, scale});
  if (c.mask) s = b.node("Add", {s, b.input("mask", {1, 1, 5, 6})});
  const ValueId p = b.node("Softmax", {s}, with({{"axis", c.softmax_axis}}));
  b.g.outputs = {b.node("MatMul", {p, v})};
  return b;
}

TEST(FusionPasses, AttentionPatterns) {
  for (int variant = 0; variant < 4; ++variant) {
    AttentionCase c;
    c.transpose_k = variant != 1;
    c.mask = variant != 2;
    c.divide = variant != 3;
    if (variant == 3) c.softmax_axis = 3;
    Graph fused = check_fusion(attention_graph(c), kAttention, 1);
    ASSERT_EQ(fused.nodes.size(), 1u) << "variant " << variant;
    EXPECT_EQ(fused.nodes[0].attrs.get_int("k_transposed", -1), c.transpose_k ? 0 : 1);
    EXPECT_FLOAT_EQ(fused.nodes[0].attrs.get_float("scale", 0), 0.5f);
  }
}

// PyTorch's attention export scales Q (here by 1/2) and may scale K^T too (by 3): the factors join
// the scores' scale.
TEST(FusionPasses, AttentionTakesTheFactorsOfQAndK) {
  for (bool scale_k : {false, true}) {
    Builder b;
    const ValueId q = b.node("Div", {b.input("q", {2, 5, 4}), b.constant(scalar(2.0f))});
    ValueId kt = b.node("Transpose", {b.input("k", {2, 6, 4})}, with({{"perm", std::vector<int64_t>{0, 2, 1}}}));
    if (scale_k) kt = b.node("Mul", {b.constant(scalar(3.0f)), kt});
    const ValueId s = b.node("Mul", {b.node("MatMul", {q, kt}), b.constant(scalar(0.5f))});
    b.g.outputs = {b.node("MatMul", {b.node("Softmax", {s}, with({{"axis", int64_t(-1)}})), b.input("v", {2, 6, 3})})};
    Graph fused = check_fusion(b, kAttention, 1);
    ASSERT_EQ(fused.nodes.size(), 1u) << "scale_k " << scale_k;
    EXPECT_FLOAT_EQ(fused.nodes[0].attrs.get_float("scale", 0), scale_k ? 0.75f : 0.25f);
  }
  // A factor of another shape ([1, 1, 1] widens Q's rank) stays a node of its own.
  Builder wide;
  const ValueId q = wide.node("Mul", {wide.input("q", {5, 4}), wide.constant(Tensor::from<float>(Shape{1, 1, 1}, {2.0f}))});
  const ValueId kt = wide.node("Transpose", {wide.input("k", {1, 6, 4})}, with({{"perm", std::vector<int64_t>{0, 2, 1}}}));
  wide.g.outputs = {wide.node("MatMul", {wide.node("Softmax", {wide.node("MatMul", {q, kt})}, with({{"axis", int64_t(-1)}})),
                                         wide.input("v", {1, 6, 3})})};
  const Graph fused = check_fusion(wide, kAttention, 1);
  EXPECT_EQ(count_ops(fused, "Mul"), 1);
}

// A masked_fill before the Softmax (Where(keep, S, fill) or Where(drop, fill, S)) with a fill of -inf
// or a float's lowest becomes the additive Mask (passes/additive_attention_masks.h); a fill of -1e4
// changes fully masked rows, so that one is left.
TEST(FusionPasses, AttentionMaskedBySelection) {
  for (int variant = 0; variant < 3; ++variant) {
    Builder b;
    const ValueId q = b.input("q", {1, 2, 5, 4});
    const ValueId kt =
        b.node("Transpose", {b.input("k", {1, 2, 6, 4})}, with({{"perm", std::vector<int64_t>{0, 1, 3, 2}}}));
    const ValueId s = b.node("Div", {b.node("MatMul", {q, kt}), b.constant(scalar(2.0f))});
    const bool keep_form = variant != 1;
    // Keys 2 and 4 masked for every query (no row fully masked).
    const ValueId cond =
        b.constant(keep_form ? Tensor::from<bool>(Shape{1, 1, 1, 6}, {true, true, false, true, false, true})
                             : Tensor::from<bool>(Shape{1, 1, 1, 6}, {false, false, true, false, true, false}));
    const float fill_value = variant == 2   ? -1e4f
                             : variant == 1 ? std::numeric_limits<float>::lowest()
                                            : -std::numeric_limits<float>::infinity();
    const ValueId fill = b.constant(scalar(fill_value));
    const ValueId masked =
        b.node("Where", keep_form ? std::vector<ValueId>{cond, s, fill} : std::vector<ValueId>{cond, fill, s});
    const ValueId p = b.node("Softmax", {masked}, with({{"axis", int64_t(-1)}}));
    b.g.outputs = {b.node("MatMul", {p, b.input("v", {1, 2, 6, 3})})};
    check_fusion(b, kAttention, variant == 2 ? 0 : 1);
  }
}

TEST(FusionPasses, AttentionLookalikesAreNotFused) {
  AttentionCase other_axis;
  other_axis.softmax_axis = 2;
  check_fusion(attention_graph(other_axis), kAttention, 0);
  AttentionCase runtime_scale;
  runtime_scale.scale_is_input = true;
  check_fusion(attention_graph(runtime_scale), kAttention, 0);
}

// ---- MatMul + bias + activation ----

TEST(FusionPasses, MatMulBiasActivation) {
  for (int act = 0; act < 3; ++act) {
    Builder b;
    const ValueId a = b.input("a", {2, 7, 12});
    ValueId y = b.node("MatMul", {a, b.constant(test::random_tensor({12, 20}, 40))});
    y = b.node("Add", {b.constant(test::random_tensor({20}, 41)), y});
    if (act == 1) y = b.node("Relu", {y});
    if (act == 2) y = gelu_erf(b, y, 0);
    b.g.outputs = {y};
    Graph fused = check_fusion(b, kFusedMatMul, 1);
    ASSERT_EQ(fused.nodes.size(), 1u);
    EXPECT_EQ(fused.nodes[0].attrs.get_string("activation", ""),
              std::string(act == 0 ? "none" : act == 1 ? "relu" : "gelu_erf"));
  }
  Builder runtime_bias;  // a bias that is not a constant stays an Add
  const ValueId a = runtime_bias.input("a", {3, 12});
  const ValueId y = runtime_bias.node("MatMul", {a, runtime_bias.constant(test::random_tensor({12, 5}, 42))});
  runtime_bias.g.outputs = {runtime_bias.node("Add", {y, runtime_bias.input("bias", {5})})};
  check_fusion(runtime_bias, kFusedMatMul, 0);
}

// ---- Conv + residual Add (+ Relu) ----

ValueId conv(Builder& b, ValueId x, int64_t c_in, int64_t c_out, int64_t k, int64_t stride = 1) {
  const float bound = 1.0f / std::sqrt(float(c_in * k * k));
  const ValueId w = b.constant(test::random_tensor({c_out, c_in, k, k}, b.seed++, -bound, bound));
  const ValueId bias = b.constant(test::random_tensor({c_out}, b.seed++));
  return b.node("Conv", {x, w, bias},
                with({{"kernel_shape", std::vector<int64_t>{k, k}}, {"pads", std::vector<int64_t>(4, k / 2)},
                      {"strides", std::vector<int64_t>{stride, stride}}}));
}

TEST(FusionPasses, ConvResidualBlocks) {
  Builder b;
  const ValueId x = b.input("x", {1, 8, 9, 7});
  // Block with a projection shortcut, then one with the identity (both residuals internal to the
  // oneDNN convolutions' layout), then one without the trailing Relu.
  ValueId y = b.node("Relu", {conv(b, b.node("Relu", {conv(b, x, 8, 16, 3)}), 16, 16, 3)});
  y = b.node("Relu", {b.node("Add", {conv(b, y, 16, 32, 1), conv(b, x, 8, 32, 1)})});
  y = b.node("Relu", {b.node("Add", {y, conv(b, b.node("Relu", {conv(b, y, 32, 16, 1)}), 16, 32, 3)})});
  b.g.outputs = {b.node("Add", {conv(b, y, 32, 32, 1), y})};
  Graph fused = check_fusion(b, kFusedConvResidual, 3);
  EXPECT_EQ(count_ops(fused, "Add") + count_ops(fused, "Relu"), 0);
}

// A block whose Add joins two convolutions (ResNet's first block of a stage: the block's last conv
// and the downsample conv of its input): the deeper one takes the other's output as its residual,
// so that the downsample conv depends on the block's input alone. Either operand order.
TEST(FusionPasses, ConvResidualJoinsTheDeeperOfTwoConvs) {
  for (bool downsample_first : {false, true}) {
    SCOPED_TRACE(downsample_first ? "Add(downsample, block)" : "Add(block, downsample)");
    Builder b;
    const ValueId x = b.input("x", {1, 8, 9, 7});
    ValueId y = b.node("Relu", {conv(b, x, 8, 4, 1)});
    y = b.node("Relu", {conv(b, y, 4, 4, 3)});
    const ValueId last = conv(b, y, 4, 16, 1), downsample = conv(b, x, 8, 16, 1);
    b.g.outputs = {b.node("Relu", {b.node("Add", downsample_first ? std::vector<ValueId>{downsample, last}
                                                                   : std::vector<ValueId>{last, downsample})})};
    Graph fused = check_fusion(b, kFusedConvResidual, 1);
    const auto producers = fused.producers();
    for (const Node& n : fused.nodes) {
      if (n.op != kFusedConvResidual) continue;
      // Its conv input is the block's second activation; its residual a conv of x.
      const int residual_producer = producers[size_t(n.inputs.back())];
      ASSERT_GE(residual_producer, 0);
      EXPECT_EQ(fused.value(fused.nodes[size_t(residual_producer)].inputs[0]).name, "x");
      EXPECT_NE(fused.value(n.inputs[0]).name, "x");
    }
  }
}

// fuse_conv_pairs (the Vulkan path's): a 1x1 convolution read only by a 3x3 one becomes a
// vx.ConvPair; a 1x1 read twice, a 1x1 read by another 1x1, a 3x3 or a strided first one do not,
// and the pair computes what the two convolutions do (reference kernels, 1e-5 of the peak).
TEST(FusionPasses, ConvPairsOfAPrivate1x1AndAWindowedConv) {
  Builder b;
  const ValueId x = b.input("x", {1, 8, 9, 7});
  const ValueId shared = conv(b, x, 8, 4, 1);
  b.g.outputs = {conv(b, b.node("Relu", {conv(b, x, 8, 4, 1)}), 4, 6, 3),  // the pair
                 conv(b, conv(b, x, 8, 4, 1), 4, 6, 1),                     // 1x1 after 1x1
                 conv(b, shared, 4, 6, 3), b.node("Relu", {shared}),       // read twice
                 conv(b, conv(b, x, 8, 4, 3), 4, 6, 3),                     // 3x3 first
                 conv(b, conv(b, x, 8, 4, 1, 2), 4, 6, 3)};                 // strided first
  const Graph fused = fuse_conv_pairs(fuse_conv_bias_relu(b.g));
  ASSERT_EQ(count_ops(fused, kConvPair), 1);
  for (const Node& n : fused.nodes) {
    if (n.op == kConvPair) {
      EXPECT_EQ(n.attrs.get_int("first_relu", 0), 1);
    }
  }
  const std::vector<Tensor> want = run(b.g, b.feeds, true), got = run(fused, b.feeds, true);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_LE(test::max_diff_over_peak(got[i], want[i]), 1e-5) << "output " << i;
}

// fuse_conv_global_mean (the Vulkan path's): a GlobalAveragePool that alone reads a convolution
// (a residual block's end, with its ReLU; a plain one), or a ReduceMean over both spatial axes
// keeping them (axes as an attribute, or as a constant input counted from the end), folds into it;
// one whose convolution is also read elsewhere, is a graph output, or is grouped does not, nor a
// ReduceMean over the channels or one that drops the axes. The fused graph computes what the
// unfused one does (reference kernels 1e-5 of the peak; the CPU's fast path declines the attribute).
TEST(FusionPasses, ConvGlobalMeanOfAPrivateConvOutput) {
  Builder b;
  const ValueId x = b.input("x", {2, 8, 9, 7});
  const ValueId block = b.node("Relu", {b.node("Add", {conv(b, x, 8, 8, 1), x})});
  const ValueId shared = conv(b, x, 8, 6, 3), exported = conv(b, x, 8, 5, 1);
  const float bound = 1.0f / std::sqrt(4.0f * 9.0f);
  const ValueId grouped = b.node("Conv", {x, b.constant(test::random_tensor({6, 4, 3, 3}, b.seed++, -bound, bound))},
                                 with({{"kernel_shape", std::vector<int64_t>{3, 3}},
                                       {"pads", std::vector<int64_t>(4, 1)},
                                       {"group", int64_t(2)}}));
  b.g.outputs = {b.node("GlobalAveragePool", {block}),                          // the block's end
                 b.node("GlobalAveragePool", {conv(b, x, 8, 6, 3, 2)}),         // a plain strided conv
                 b.node("GlobalAveragePool", {shared}), b.node("Relu", {shared}),  // read twice
                 b.node("GlobalAveragePool", {exported}), exported,              // a graph output
                 b.node("GlobalAveragePool", {grouped}),                         // grouped
                 b.node("ReduceMean", {conv(b, x, 8, 3, 1)}, with({{"axes", std::vector<int64_t>{3, 2}}})),
                 b.node("ReduceMean", {conv(b, x, 8, 3, 1),
                                       b.constant(Tensor::from<int64_t>(Shape{2}, {-1, -2}))}),
                 b.node("ReduceMean", {conv(b, x, 8, 3, 1)}, with({{"axes", std::vector<int64_t>{1}}})),
                 b.node("ReduceMean", {conv(b, x, 8, 3, 1)},
                        with({{"axes", std::vector<int64_t>{2, 3}}, {"keepdims", int64_t(0)}}))};
  const Graph fused = fuse_conv_global_mean(fuse_conv_residual(fuse_conv_bias_relu(b.g)));
  EXPECT_EQ(count_ops(fused, "GlobalAveragePool"), 3);
  EXPECT_EQ(count_ops(fused, "ReduceMean"), 2);
  int means = 0;
  for (const Node& n : fused.nodes) means += n.attrs.get_int("global_mean", 0) != 0;
  EXPECT_EQ(means, 4);
  const std::vector<Tensor> want = run(b.g, b.feeds, true);
  for (bool reference_only : {true, false}) {
    const std::vector<Tensor> got = run(fused, b.feeds, reference_only);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i].shape(), want[i].shape()) << "output " << i;
      EXPECT_LE(test::max_diff_over_peak(got[i], want[i]), 1e-5) << "output " << i << (reference_only ? "" : " (fast)");
    }
  }
}

TEST(FusionPasses, ConvWithABroadcastAddIsNotFused) {
  Builder b;
  const ValueId x = b.input("x", {1, 4, 6, 5});
  b.g.outputs = {b.node("Add", {conv(b, x, 4, 8, 3), b.input("bias", {1, 8, 1, 1})})};
  check_fusion(b, kFusedConvResidual, 0);
}

// ---- Conv / ConvTranspose + per-channel affine (fold_conv_affine) ----

ValueId batch_norm(Builder& b, ValueId x, int64_t c) {
  return b.node("BatchNormalization", {x, b.constant(test::random_tensor({c}, b.seed++)),
                                       b.constant(test::random_tensor({c}, b.seed++)),
                                       b.constant(test::random_tensor({c}, b.seed++)),
                                       b.constant(test::random_tensor({c}, b.seed++, 0.5f, 2.0f))});
}

TEST(FusionPasses, ConvAffineChainsFoldIntoTheWeights) {
  Builder b;
  const ValueId x = b.input("x", {2, 5, 9, 7});
  // Mul by a per-channel constant (left operand), Add a scalar, Sub, Div per channel, then a BN.
  ValueId y = b.node("Mul", {b.constant(test::random_tensor({1, 6, 1, 1}, 41)), conv(b, x, 5, 6, 3)});
  y = b.node("Add", {y, b.constant(scalar(0.25f))});
  y = b.node("Sub", {b.constant(test::random_tensor({6, 1, 1}, 42)), y});
  y = b.node("Div", {y, b.constant(test::random_tensor({6, 1, 1}, 43, 0.5f, 2.0f))});
  b.g.outputs = {batch_norm(b, y, 6)};
  Graph fused = check_fusion(b, kFusedConv, 1);
  EXPECT_EQ(fused.nodes.size(), 1u);
}

TEST(FusionPasses, ConvTransposeBiasAddAndBatchNormFold) {
  for (int64_t group : {1, 2}) {
    Builder b;
    const ValueId x = b.input("x", {1, 4, 5, 6});
    const ValueId w = b.constant(test::random_tensor({4, 6 / group, 2, 2}, 51));  // [C_in, C_out/group, kH, kW]
    const ValueId up = b.node("ConvTranspose", {x, w},
                              with({{"kernel_shape", std::vector<int64_t>{2, 2}},
                                    {"strides", std::vector<int64_t>{2, 2}}, {"group", group}}));
    const ValueId biased = b.node("Add", {up, b.constant(test::random_tensor({1, 6, 1, 1}, 52))});
    b.g.outputs = {b.node("Relu", {batch_norm(b, biased, 6)})};
    Graph fused = check_fusion(b, "ConvTranspose", 1);
    EXPECT_EQ(count_ops(fused, "Add") + count_ops(fused, "BatchNormalization"), 0) << "group " << group;
  }
}

TEST(FusionPasses, AffineLookalikesAreNotFolded) {
  Builder along_width;  // varies along the last axis, not the channels
  const ValueId x = along_width.input("x", {1, 3, 5, 4});
  along_width.g.outputs = {along_width.node("Mul", {conv(along_width, x, 3, 4, 3), along_width.constant(test::random_tensor({4}, 61))})};
  Graph g = along_width.g;
  optimize_onnx(g);
  EXPECT_EQ(count_ops(g, "Mul"), 1);

  Builder divided_by;  // c / conv(x) is not affine in conv(x)
  const ValueId y = divided_by.input("x", {1, 3, 5, 4});
  divided_by.g.outputs = {divided_by.node("Div", {divided_by.constant(scalar(2.0f)), conv(divided_by, y, 3, 4, 3)})};
  g = divided_by.g;
  optimize_onnx(g);
  EXPECT_EQ(count_ops(g, "Div"), 1);

  Builder shared;  // the conv's output is also a graph output
  const ValueId z = shared.input("x", {1, 3, 5, 4});
  const ValueId c = conv(shared, z, 3, 4, 3);
  shared.g.outputs = {shared.node("Mul", {c, shared.constant(scalar(3.0f))}), c};
  check_fusion(shared, "Mul", 1);
}

// ---- QuantizeLinear -> DequantizeLinear (fuse_fake_quantize) ----

TEST(FusionPasses, FakeQuantizePairs) {
  Builder b(13);
  const ValueId x = b.input("x", {2, 3, 5, 7});
  const ValueId s = b.constant(scalar(0.01f));
  auto pair = [&](ValueId v, ValueId zero) {
    return b.node("DequantizeLinear", {b.node("QuantizeLinear", {v, s, zero}), s, zero});
  };
  const ValueId u8 = pair(x, b.constant(Tensor::from<uint8_t>(Shape{}, {100})));
  const ValueId i8 = pair(b.node("Relu", {u8}), b.constant(Tensor::from<int8_t>(Shape{}, {-3})));
  b.g.outputs = {pair(i8, kNoValue)};  // no zero point: uint8, 0
  Graph fused = check_fusion(b, kFakeQuantize, 3);
  EXPECT_EQ(fused.nodes.size(), 4u);
}

TEST(FusionPasses, FakeQuantizeLeavesOtherPairsAlone) {
  Builder b(13);
  const ValueId x = b.input("x", {2, 3, 5, 7});
  const ValueId s = b.constant(scalar(0.01f)), other = b.constant(scalar(0.02f));
  const ValueId z = b.constant(Tensor::from<uint8_t>(Shape{}, {100}));
  const ValueId q = b.node("QuantizeLinear", {x, s, z});
  Tensor per_axis(DType::f32, Shape{3});
  for (int i = 0; i < 3; ++i) per_axis.data<float>()[i] = 0.01f * float(i + 1);
  Attributes axis1;
  axis1.set("axis", int64_t(1));
  const ValueId axis_scales = b.constant(per_axis), axis_zeros = b.constant(Tensor(DType::u8, Shape{3}));
  b.g.outputs = {b.node("DequantizeLinear", {q, other, z}),  // another scale (and the Q read twice)
                 b.node("DequantizeLinear", {q, s, z}),
                 b.node("DequantizeLinear", {b.node("QuantizeLinear", {x, axis_scales, axis_zeros}, axis1), axis_scales,
                                             axis_zeros}, axis1)};  // per axis
  check_fusion(b, kFakeQuantize, 0);
}

// ---- HardSwish (fuse_hard_swish) and conv post-ops (fuse_conv_post_ops) ----

// x * Clip(x + 3, 0, 6) / 6 in the form `form`: 0 (x * clip) / 6, 1 x * (clip / 6), 2 (clip * x) * (1/6),
// 3 with Clip's bounds as attributes (opset 10).
ValueId hard_swish(Builder& b, ValueId x, int form) {
  const ValueId shifted = b.node("Add", {x, b.constant(scalar(3.0f))});
  const ValueId clipped =
      form == 3 ? b.node("Clip", {shifted}, with({{"min", 0.0f}, {"max", 6.0f}}))
                : b.node("Clip", {shifted, b.constant(scalar(0.0f)), b.constant(scalar(6.0f))});
  if (form == 1) return b.node("Mul", {x, b.node("Div", {clipped, b.constant(scalar(6.0f))})});
  if (form == 2) return b.node("Mul", {b.node("Mul", {clipped, x}), b.constant(scalar(1.0f / 6.0f))});
  return b.node("Div", {b.node("Mul", {x, clipped}), b.constant(scalar(6.0f))});
}

TEST(FusionPasses, HardSwishDecompositions) {
  for (int form = 0; form < 4; ++form) {
    Builder b(form == 3 ? 10 : 17);
    const ValueId x = b.input("x", {2, 3, 5, 7});
    b.g.outputs = {hard_swish(b, x, form)};
    Graph fused = check_fusion(b, "HardSwish", 1);
    EXPECT_EQ(fused.nodes.size(), 1u) << "form " << form;
  }
  Builder sigmoid_form;  // x * HardSigmoid(x, 1/6, 1/2)
  const ValueId x = sigmoid_form.input("x", {3, 8});
  sigmoid_form.g.outputs = {sigmoid_form.node(
      "Mul", {x, sigmoid_form.node("HardSigmoid", {x}, with({{"alpha", 1.0f / 6.0f}, {"beta", 0.5f}}))})};
  check_fusion(sigmoid_form, "HardSwish", 1);

  Builder wrong_shift;  // Clip(x + 2, 0, 6)
  const ValueId y = wrong_shift.input("x", {3, 8});
  const ValueId clipped = wrong_shift.node(
      "Clip", {wrong_shift.node("Add", {y, wrong_shift.constant(scalar(2.0f))}), wrong_shift.constant(scalar(0.0f)),
               wrong_shift.constant(scalar(6.0f))});
  wrong_shift.g.outputs = {wrong_shift.node("Div", {wrong_shift.node("Mul", {y, clipped}), wrong_shift.constant(scalar(6.0f))})};
  check_fusion(wrong_shift, "HardSwish", 0);
}

// PP-LCNet's block as PaddlePaddle exports it: conv, a scalar affine, HardSwish, a scalar affine.
TEST(FusionPasses, ConvActivationChainsBecomePostOps) {
  Builder b;
  const ValueId x = b.input("x", {1, 6, 11, 9});
  ValueId y = b.node("Add", {b.node("Mul", {b.constant(scalar(1.5f)), conv(b, x, 6, 8, 3)}), b.constant(scalar(0.1f))});
  y = hard_swish(b, y, 0);
  y = b.node("Add", {b.node("Mul", {b.constant(scalar(0.9f)), y}), b.constant(scalar(-0.2f))});
  // SE-style gate: 1x1 conv + HardSigmoid; then Clip and Sigmoid after a strided conv.
  y = b.node("HardSigmoid", {conv(b, y, 8, 8, 1)}, with({{"alpha", 0.2f}, {"beta", 0.5f}}));
  y = b.node("Sigmoid", {b.node("Clip", {conv(b, y, 8, 4, 3, 2), b.constant(scalar(-1.0f)), b.constant(scalar(1.0f))})});
  b.g.outputs = {b.node("Tanh", {b.node("LeakyRelu", {conv(b, y, 4, 4, 1)}, with({{"alpha", 0.1f}}))})};
  Graph fused = check_fusion(b, kFusedConv, 4);
  ASSERT_EQ(fused.nodes.size(), 4u);
  EXPECT_EQ(fused.nodes[0].attrs.get_strings("post_ops"), (std::vector<std::string>{"hard_swish", "linear"}));
  EXPECT_EQ(fused.nodes[1].attrs.get_strings("post_ops"), (std::vector<std::string>{"linear", "clip"}));
  EXPECT_EQ(fused.nodes[2].attrs.get_strings("post_ops"), (std::vector<std::string>{"clip", "logistic"}));
  EXPECT_EQ(fused.nodes[3].attrs.get_strings("post_ops"), (std::vector<std::string>{"relu", "tanh"}));
}

// openWakeWord's embedding as tf2onnx writes it: conv, LeakyRelu, Max with a scalar (a lower bound);
// Min with the constant first is an upper bound; Max of two computed values stays.
TEST(FusionPasses, MaxAndMinByAConstantAreClips) {
  Builder b;
  const ValueId x = b.input("x", {1, 3, 7, 6});
  ValueId y = b.node("Max", {b.node("LeakyRelu", {conv(b, x, 3, 4, 3)}, with({{"alpha", 0.2f}})),
                             b.constant(Tensor::from<float>(Shape({1, 1, 1, 1}), {-0.4f}))});
  y = b.node("Min", {b.constant(scalar(0.3f)), conv(b, y, 4, 4, 1)});
  const ValueId other = conv(b, y, 4, 4, 1);
  b.g.outputs = {b.node("Max", {other, b.node("Neg", {other})})};
  Graph fused = check_fusion(b, kFusedConv, 3);
  ASSERT_EQ(fused.nodes.size(), 5u);
  EXPECT_EQ(fused.nodes[0].attrs.get_strings("post_ops"), (std::vector<std::string>{"relu", "clip"}));
  EXPECT_EQ(fused.nodes[0].attrs.get_floats("post_alpha"), (std::vector<float>{0.2f, -0.4f}));
  EXPECT_EQ(fused.nodes[1].attrs.get_strings("post_ops"), (std::vector<std::string>{"clip"}));
  EXPECT_EQ(fused.nodes[1].attrs.get_floats("post_beta"), (std::vector<float>{0.3f}));
  EXPECT_EQ(count_ops(fused, "Max"), 1);
}

TEST(FusionPasses, PostOpsStopAtASharedValue) {
  Builder b;
  const ValueId x = b.input("x", {1, 3, 6, 5});
  const ValueId gate = b.node("Sigmoid", {conv(b, x, 3, 4, 3)});
  b.g.outputs = {b.node("Tanh", {gate}), gate};  // the Sigmoid's output is a graph output
  Graph fused = check_fusion(b, kFusedConv, 1);
  EXPECT_EQ(count_ops(fused, "Tanh"), 1);
  EXPECT_EQ(fused.nodes[0].attrs.get_strings("post_ops"), (std::vector<std::string>{"logistic"}));
}

// ---- exported U-Net: MaxPool and Resize + Concat into the convolutions ----

TEST(FusionPasses, ExportedUNetLevelsFuseAsTheDenoisersDo) {
  Builder b;
  const ValueId x = b.input("x", {1, 5, 12, 10});
  const ValueId skip = b.node("Relu", {conv(b, x, 5, 8, 3)});
  const ValueId pooled = b.node("MaxPool", {b.node("Relu", {conv(b, skip, 8, 8, 3)})},
                                with({{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}}));
  const ValueId low = b.node("Relu", {conv(b, pooled, 8, 12, 3)});
  const ValueId up = b.node("Resize", {low, b.constant(Tensor(DType::f32, Shape({0}))),
                                       b.constant(Tensor::from<float>(Shape({4}), {1.0f, 1.0f, 2.0f, 2.0f}))},
                            with({{"mode", std::string("nearest")}, {"coordinate_transformation_mode", std::string("asymmetric")},
                                  {"nearest_mode", std::string("floor")}}));
  const ValueId cat = b.node("Concat", {up, skip}, with({{"axis", int64_t(1)}}));
  b.g.outputs = {b.node("Relu", {conv(b, cat, 20, 4, 3)})};
  Graph fused = check_fusion(b, kFusedConv, 4);
  EXPECT_EQ(count_ops(fused, "MaxPool") + count_ops(fused, "Resize") + count_ops(fused, "Concat"), 0);
}

// ---- int8 weights ----

TEST(FusionPasses, Int8WeightsStayWithinTheQuantisationBound) {
  Builder b;
  const ValueId a = b.input("a", {6, 64});
  const Tensor w = test::random_tensor({64, 96}, 50);
  ValueId y = b.node("MatMul", {a, b.constant(w)});
  y = b.node("Add", {y, b.constant(test::random_tensor({96}, 51))});
  b.g.outputs = {y};
  Graph f32 = b.g, int8 = b.g;
  optimize_onnx(f32);
  OnnxOptimizeOptions options;
  options.int8_weights = true;
  optimize_onnx(int8, options);
  // Below the size threshold nothing is quantised; here 64 x 96 = 6144 >= 4096.
  ASSERT_EQ(count_ops(int8, kMatMulInt8W), 1);
  const Tensor want = run(f32, b.feeds, true)[0];
  for (bool reference : {true, false}) {
    const Tensor got = run(int8, b.feeds, reference)[0];
    // Per weight |w - q s| <= s / 2 with s = max_k |w[k, n]| / 127, so per output
    // |y - y_q| <= sum_k |a[k]| s[n] / 2 (plus float rounding).
    const Tensor& av = b.feeds[0];
    double worst_ratio = 0;
    for (int64_t r = 0; r < 6; ++r)
      for (int64_t n = 0; n < 96; ++n) {
        double peak = 0, sum_a = 0;
        for (int64_t k = 0; k < 64; ++k) {
          peak = std::max(peak, std::abs(w.get(k * 96 + n)));
          sum_a += std::abs(av.get(r * 64 + k));
        }
        const double bound = sum_a * peak / 127.0 / 2.0 + 1e-5;
        const double err = std::abs(got.get(r * 96 + n) - want.get(r * 96 + n));
        worst_ratio = std::max(worst_ratio, err / bound);
      }
    EXPECT_LE(worst_ratio, 1.0) << (reference ? "reference" : "fast");
    EXPECT_GT(test::max_abs_diff(got, want), 0.0);  // it really is quantised
  }
  Builder small;  // below min_elements: untouched
  const ValueId s = small.input("a", {2, 8});
  small.g.outputs = {small.node("MatMul", {s, small.constant(test::random_tensor({8, 8}, 52))})};
  EXPECT_EQ(count_ops(quantize_weights_int8(small.g), kMatMulInt8W), 0);
}

TEST(FusionPasses, DequantizeLinearMatMulBecomesInt8Weights) {
  for (bool per_column : {false, true}) {
    Builder b(13);
    const ValueId a = b.input("a", {2, 3, 10});
    Tensor wq(DType::i8, Shape({10, 7}));
    for (int64_t i = 0; i < wq.numel(); ++i) wq.data<int8_t>()[i] = int8_t((i * 53) % 200 - 100);
    const Tensor scale = per_column ? test::random_tensor({7}, 60, 0.01f, 0.05f) : scalar(0.03f);
    const ValueId zero = b.constant([] {
      Tensor z(DType::i8, Shape{});
      return z;
    }());
    const ValueId w = b.node("DequantizeLinear", {b.constant(wq), b.constant(scale), zero},
                             with({{"axis", int64_t(1)}}));
    b.g.outputs = {b.node("MatMul", {a, w})};
    Graph fused = check_fusion(b, kMatMulInt8W, 1);
    EXPECT_EQ(count_ops(fused, "DequantizeLinear"), 0);
  }
}

}  // namespace
}  // namespace vx

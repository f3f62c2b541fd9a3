// passes/fuse_squeeze_excite.h: a squeeze-and-excitation block's two 1x1 convolutions (after the
// conv fusions), their activations and the Mul with the block's input (and a residual Add) become
// one vx.Excite; the graph after the passes computes what the graph before them did (run eagerly
// on the CPU reference kernels: the vx.Excite reference in double against float layers, so to 1e-5
// of the peak). Blocks that do not have the shape stay.
#include "common/graph_builder.h"
#include "common/test_util.h"
#include "ops/fused_ops.h"
#include "passes/fuse_conv_bias_relu.h"
#include "passes/fuse_conv_post_ops.h"
#include "passes/fuse_squeeze_excite.h"

namespace vx {
namespace {

using test::count_ops;

// The passes as optimize_for_vulkan runs them, in its order.
Graph fused(const Graph& g) { return fuse_squeeze_excite(fuse_conv_post_ops(fuse_conv_bias_relu(g), 4)); }

struct SeBuilder {
  test::GraphBuilder b;
  ValueId conv1x1(ValueId x, int64_t cin, int64_t cout, Attributes a = {}) {
    if (!a.has("kernel_shape")) a.set("kernel_shape", std::vector<int64_t>{1, 1});
    return b.node("Conv", {x, b.constant(test::random_tensor(Shape{cout, cin, 1, 1}, 70 + cout, -0.5f, 0.5f)),
                           b.constant(test::random_tensor(Shape{cout}, 80 + cout, -0.5f, 0.5f))},
                  a);
  }
  // GlobalAveragePool -> 1x1 conv -> Relu -> 1x1 conv -> HardSigmoid: E for X of c channels.
  ValueId excitation(ValueId x, int64_t c, int64_t r) {
    Attributes hs;
    hs.set("alpha", 0.2f);
    hs.set("beta", 0.5f);
    const ValueId h = b.node("Relu", {conv1x1(b.node("GlobalAveragePool", {x}), c, r)});
    return b.node("HardSigmoid", {conv1x1(h, r, c)}, hs);
  }
};

// Mul(E, X) and Mul(X, E); the second block's scaled X plus a residual (PaddleOCR's RSE layer).
TEST(FuseSqueezeExcite, BlocksBecomeExcite) {
  SeBuilder s;
  const ValueId x = s.b.input("x", Shape{2, 6, 5, 3});
  const ValueId y1 = s.b.node("Mul", {s.excitation(x, 6, 3), x});
  const ValueId y2 = s.b.node("Mul", {y1, s.excitation(y1, 6, 2)});
  s.b.g.outputs = {s.b.node("Add", {x, y2})};
  const Graph out = fused(s.b.g);
  EXPECT_EQ(count_ops(out, kExcite), 2);
  EXPECT_EQ(count_ops(out, "Mul"), 0);
  EXPECT_EQ(count_ops(out, "Add"), 0);
  EXPECT_EQ(count_ops(out, kFusedConv), 0);
  EXPECT_EQ(count_ops(out, "GlobalAveragePool"), 2);  // the squeeze stays
  for (const Node& n : out.nodes)
    if (n.op == kExcite) {
      EXPECT_EQ(n.attrs.get_int("squeeze_relu", 0), 1);
      EXPECT_EQ(n.attrs.get_strings("post_ops").size(), 2u);  // HardSigmoid: linear, clip
    }
  test::expect_rewrite_keeps_results(s.b.g, out, s.b.feeds, 1e-5);
}

// Each of these stays unfused: the Mul is not applied to the pooled tensor; the excitation is read
// elsewhere too; a 3x3 squeeze convolution; the squeeze has post-ops (a HardSwish).
TEST(FuseSqueezeExcite, OtherShapesStay) {
  {
    SeBuilder s;
    const ValueId x = s.b.input("x", Shape{1, 4, 3, 3}), other = s.b.input("other", Shape{1, 4, 3, 3});
    s.b.g.outputs = {s.b.node("Mul", {other, s.excitation(x, 4, 2)})};
    EXPECT_EQ(count_ops(fused(s.b.g), kExcite), 0) << "another tensor scaled";
  }
  {
    SeBuilder s;
    const ValueId x = s.b.input("x", Shape{1, 4, 3, 3});
    const ValueId e = s.excitation(x, 4, 2);
    s.b.g.outputs = {s.b.node("Mul", {x, e}), e};
    EXPECT_EQ(count_ops(fused(s.b.g), kExcite), 0) << "E a graph output";
  }
  {
    SeBuilder s;
    const ValueId x = s.b.input("x", Shape{1, 4, 3, 3});
    Attributes k3;
    k3.set("kernel_shape", std::vector<int64_t>{3, 3});
    k3.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    const ValueId pooled = s.b.node("GlobalAveragePool", {x});
    const ValueId h = s.b.node("Relu", {s.b.node("Conv", {pooled, s.b.constant(test::random_tensor(Shape{2, 4, 3, 3}, 5)),
                                                          s.b.constant(test::random_tensor(Shape{2}, 6))},
                                                 k3)});
    s.b.g.outputs = {s.b.node("Mul", {x, s.b.node("Sigmoid", {s.conv1x1(h, 2, 4)})})};
    EXPECT_EQ(count_ops(fused(s.b.g), kExcite), 0) << "3x3 squeeze";
  }
  {
    SeBuilder s;
    const ValueId x = s.b.input("x", Shape{1, 4, 3, 3});
    const ValueId h = s.b.node("HardSwish", {s.conv1x1(s.b.node("GlobalAveragePool", {x}), 4, 2)});
    s.b.g.outputs = {s.b.node("Mul", {x, s.b.node("Sigmoid", {s.conv1x1(h, 2, 4)})})};
    const Graph out = fused(s.b.g);
    EXPECT_EQ(count_ops(out, kExcite), 0) << "squeeze with post-ops";
    test::expect_rewrite_keeps_results(s.b.g, out, s.b.feeds, 1e-5);
  }
}

}  // namespace
}  // namespace vx

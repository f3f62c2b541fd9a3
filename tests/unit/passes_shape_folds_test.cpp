// Folds that need shapes before the inputs are bound (passes/fold_shape_queries.h,
// passes/transposes_as_reshapes.h): exported shape arithmetic becomes constants where every input
// declares its full shape, and a Transpose that moves only unit axes becomes a Reshape. The graph
// after the pass computes what the graph before it does (run eagerly on the same CPU kernels: equal,
// up to 1e-6 of the peak); graphs the pass cannot know the shapes of are left alone.
#include "common/graph_builder.h"
#include "common/test_util.h"
#include "passes/fold_shape_queries.h"
#include "passes/transposes_as_reshapes.h"

namespace vx {
namespace {

using test::count_ops;

Attributes transpose_perm(std::vector<int64_t> p) {
  Attributes a;
  a.set("perm", std::move(p));
  return a;
}

// x -> Reshape(x, Concat(Gather(Shape(x), 0), [-1])) -> Relu: PyTorch's flatten of a batch.
test::GraphBuilder flatten_by_shape(Shape x_shape) {
  test::GraphBuilder b;
  const ValueId x = b.input("x", x_shape);
  Attributes axis0;
  axis0.set("axis", int64_t(0));
  const ValueId batch = b.node("Gather", {b.node("Shape", {x}), b.constant(Tensor::from<int64_t>(Shape{1}, {0}))}, axis0);
  const ValueId target = b.node("Concat", {batch, b.constant(Tensor::from<int64_t>(Shape{1}, {-1}))}, axis0);
  b.g.outputs = {b.node("Relu", {b.node("Reshape", {x, target})})};
  return b;
}

TEST(ShapeFolds, ShapeArithmeticOfDeclaredInputsFolds) {
  const test::GraphBuilder b = flatten_by_shape({2, 6, 4});
  const Graph folded = fold_declared_shapes(b.g);
  EXPECT_EQ(count_ops(folded, "Shape"), 0);
  EXPECT_EQ(count_ops(folded, "Gather"), 0);
  EXPECT_EQ(count_ops(folded, "Concat"), 0);
  ASSERT_EQ(folded.nodes.size(), 2u);
  EXPECT_TRUE(folded.value(folded.nodes[0].input(1)).is_constant()) << "the Reshape's target";
  test::expect_rewrite_keeps_results(b.g, folded, b.feeds, 1e-6);
}

TEST(ShapeFolds, InputsOfUnknownShapeKeepTheirQueries) {
  // An extent left to binding, and a declared [] (binding takes it as "any rank").
  for (const Shape& declared : {Shape{-1, 6, 4}, Shape{}}) {
    test::GraphBuilder b = flatten_by_shape({2, 6, 4});
    b.g.value(b.g.inputs[0]).shape = declared;
    const Graph kept = fold_declared_shapes(b.g);
    EXPECT_EQ(count_ops(kept, "Shape"), 1) << declared.str();
    EXPECT_EQ(kept.nodes.size(), b.g.nodes.size()) << declared.str();
  }
}

TEST(ShapeFolds, TransposeOfUnitAxesBecomesAReshape) {
  struct Case {
    Shape in;
    std::vector<int64_t> perm;  // empty: the default (reversed)
    bool becomes_reshape;
  };
  const Case cases[] = {
      {{1, 5, 3}, {1, 0, 2}, true},         // PyTorch attention's [1, seq, d] -> [seq, 1, d]
      {{5, 1, 3}, {1, 0, 2}, true},         // and back
      {{2, 1, 3, 1}, {0, 3, 2, 1}, true},   // unit axes anywhere
      {{1, 6}, {}, true},                   // the default permutation
      {{2, 5, 1}, {1, 0, 2}, false},        // swaps two real axes
      {{4, 1, 3}, {2, 1, 0}, false},
      {{3, 4}, {}, false},
  };
  for (const Case& c : cases) {
    test::GraphBuilder b;
    const ValueId x = b.input("x", c.in);
    const ValueId t = b.node("Transpose", {x}, c.perm.empty() ? Attributes{} : transpose_perm(c.perm));
    b.g.outputs = {b.node("Relu", {t})};
    const Graph out = transposes_as_reshapes(b.g);
    EXPECT_EQ(count_ops(out, "Reshape"), c.becomes_reshape ? 1 : 0) << c.in.str();
    EXPECT_EQ(count_ops(out, "Transpose"), c.becomes_reshape ? 0 : 1) << c.in.str();
    test::expect_rewrite_keeps_results(b.g, out, b.feeds, 1e-6);
  }
  // Shapes shape inference cannot tell: left alone. So is a graph with an input declared [] (which
  // inference takes for a scalar and binding for any rank), here read through Unsqueeze.
  test::GraphBuilder unknown;
  const ValueId x = unknown.input("x", {1, 5, 3});
  unknown.g.value(x).shape = Shape{-1, 5, 3};
  unknown.g.outputs = {unknown.node("Transpose", {x}, transpose_perm({1, 0, 2}))};
  EXPECT_EQ(count_ops(transposes_as_reshapes(unknown.g), "Transpose"), 1);
  test::GraphBuilder any_rank;  // fed [4]: [1, 4] after the Unsqueeze, [4, 1] after the Transpose
  const ValueId a = any_rank.input("a", {4});
  any_rank.g.value(a).shape = Shape{};
  const ValueId u = any_rank.node("Unsqueeze", {a, any_rank.constant(Tensor::from<int64_t>(Shape{1}, {0}))});
  any_rank.g.outputs = {any_rank.node("Transpose", {u})};
  EXPECT_EQ(count_ops(transposes_as_reshapes(any_rank.g), "Transpose"), 1);
}

}  // namespace
}  // namespace vx

// passes/fuse_elementwise_chains.h: two or more elementwise steps in a row (passes/post_op_steps.h)
// become one vx.ElementwiseChain, scale-and-shifts merged; a chain stops at a value read twice, at
// a non-step and before it would pass max_steps; a lone step stays. The graph after the pass
// computes what the graph before it did (run eagerly on the CPU kernels, to 1e-6 of the peak).
#include "common/graph_builder.h"
#include "common/test_util.h"
#include "ops/fused_ops.h"
#include "ops/post_ops.h"
#include "passes/fuse_elementwise_chains.h"

namespace vx {
namespace {

using test::count_ops;

ValueId scalar(test::GraphBuilder& b, float v) { return b.constant(Tensor::from<float>(Shape{}, {v})); }

// A mel-spectrogram's tail after a Relu: Clip(1e-10, inf), Log, Mul 10, Div ln(10), Sub 2, a Cast
// to float (no step) and Neg: one chain of four steps, the scale-and-shifts merged into one.
TEST(FuseElementwiseChains, StepsInARowBecomeOneChain) {
  test::GraphBuilder b;
  const ValueId x = b.input("x", Shape{2, 7, 5});
  const ValueId m = b.node("MatMul", {x, b.constant(test::random_tensor(Shape{5, 3}, 7))});
  ValueId y = b.node("Clip", {b.node("Relu", {m}), scalar(b, 1e-10f), kNoValue});
  y = b.node("Log", {y});
  y = b.node("Mul", {scalar(b, 10.0f), y});
  y = b.node("Div", {y, scalar(b, 2.302585f)});
  y = b.node("Sub", {y, scalar(b, 2.0f)});
  Attributes to_float;
  to_float.set("to", int64_t(1));
  b.g.outputs = {b.node("Neg", {b.node("Cast", {y}, to_float)})};
  const Graph out = fuse_elementwise_chains(b.g, 4);
  ASSERT_EQ(count_ops(out, kElementwiseChain), 1);
  EXPECT_EQ(out.nodes.size(), 2u);  // MatMul, the chain
  const std::vector<PostOp> ops = read_post_ops(out.nodes.back().attrs, "chain");
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(ops[0].kind, PostOpKind::relu);
  EXPECT_EQ(ops[1].kind, PostOpKind::clip);
  EXPECT_EQ(ops[2].kind, PostOpKind::log);
  EXPECT_EQ(ops[3].kind, PostOpKind::linear);
  EXPECT_NEAR(ops[3].alpha, -10.0 / 2.302585, 1e-5);
  EXPECT_NEAR(ops[3].beta, 2.0, 1e-6);
  test::expect_rewrite_keeps_results(b.g, out, b.feeds, 1e-6);
}

// Chains stop at a value read twice (Exp's output is also a graph output: Exp and Tanh stay
// alone), at a node that is no step (Transpose), and before a fifth step (HardSwish stays).
TEST(FuseElementwiseChains, ChainsStopWhereTheyMust) {
  test::GraphBuilder b;
  const ValueId x = b.input("x", Shape{3, 4});
  const ValueId e = b.node("Exp", {x});
  const ValueId t = b.node("Tanh", {e});
  const ValueId u = b.node("Tanh", {b.node("Transpose", {b.node("Sigmoid", {x})})});
  Attributes leaky;
  leaky.set("alpha", 0.1f);
  ValueId v = b.node("LeakyRelu", {x}, leaky);
  for (const char* op : {"Exp", "Tanh", "Sigmoid", "HardSwish"}) v = b.node(op, {v});
  b.g.outputs = {e, t, u, v};
  const Graph out = fuse_elementwise_chains(b.g, 4);
  EXPECT_EQ(count_ops(out, kElementwiseChain), 1);  // LeakyRelu .. Sigmoid
  EXPECT_EQ(count_ops(out, "Exp"), 1);
  EXPECT_EQ(count_ops(out, "Tanh"), 2);
  EXPECT_EQ(count_ops(out, "Sigmoid"), 1);
  EXPECT_EQ(count_ops(out, "HardSwish"), 1);
  test::expect_rewrite_keeps_results(b.g, out, b.feeds, 1e-6);
}

}  // namespace
}  // namespace vx

// passes/matmul_column_panels.h: a packed product cut into equal column panels (PyTorch 1's Split
// of the last axis, PyTorch 2's Reshape + Unsqueeze + Transpose) becomes a product of P panels whose
// pieces are Gathers / Reshapes of its output; the graph after the pass computes what the graph
// before it does on the CPU reference kernels (1e-6 of the output's peak: the same sums in the same
// order, the bias added as a residual). Lookalikes (another axis, unequal pieces, a second reader,
// weights computed at run time, a Transpose that moves more than the panel axis) stay.
#include <functional>

#include "common/graph_builder.h"
#include "common/test_util.h"
#include "ops/fused_ops.h"
#include "passes/matmul_column_panels.h"

namespace vx {
namespace {

using test::count_ops;

Attributes perm(const std::vector<int64_t>& v) {
  Attributes a;
  a.set("perm", v);
  return a;
}

// x [T, B, K] times a constant [K, 3E] plus a bias: the packed QKV projection.
ValueId packed_product(test::GraphBuilder& b, ValueId x, int64_t k, int64_t n, bool bias = true) {
  Attributes act;
  act.set("activation", std::string("none"));
  std::vector<ValueId> ins = {x, b.constant(test::random_tensor({k, n}, 50))};
  if (bias) ins.push_back(b.constant(test::random_tensor({n}, 51)));
  return b.node(kFusedMatMul, ins, act);
}

const Node* find_op(const Graph& g, const std::string& op) {
  for (const Node& n : g.nodes)
    if (n.op == op) return &n;
  return nullptr;
}

// The PyTorch 1 form: chunk(3, -1), the pieces read by other nodes; with and without a bias, with
// the sizes as an input and as nothing (equal parts).
TEST(MatMulColumnPanels, SplitOfTheLastAxisBecomesPanels) {
  for (bool bias : {true, false})
    for (bool sizes_input : {true, false}) {
      test::GraphBuilder b;
      const ValueId x = b.input("x", Shape{5, 2, 7});
      const ValueId qkv = packed_product(b, x, 7, 12, bias);
      Attributes axis;
      axis.set("axis", int64_t(-1));
      std::vector<ValueId> split_in = {qkv};
      if (sizes_input) split_in.push_back(b.constant(test::i64s({4, 4, 4})));
      const std::vector<ValueId> pieces = b.g.add_node("Split", "split", split_in, {b.g.add_value("q", DType::f32, {}), b.g.add_value("k", DType::f32, {}), b.g.add_value("v", DType::f32, {})}, axis).outputs;
      b.g.outputs = {b.node("Add", {pieces[0], pieces[1]}), b.node("Relu", {pieces[2]})};
      const Graph out = matmul_column_panels(b.g);
      EXPECT_EQ(count_ops(out, "Split"), 0);
      EXPECT_EQ(count_ops(out, "Gather"), 3);
      const Node* mm = find_op(out, kFusedMatMul);
      ASSERT_NE(mm, nullptr);
      EXPECT_EQ(out.value(mm->inputs[1]).constant.shape(), (Shape{3, 7, 4}));
      EXPECT_EQ(mm->inputs.size(), bias ? 4u : 2u);
      test::expect_rewrite_keeps_results(b.g, out, b.feeds, 1e-6);
    }
}

// The PyTorch 2 form: unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2), then a
// Gather per piece; two batch rows (B = 2) so that R = T * B.
TEST(MatMulColumnPanels, TransposeOfThePanelAxisBecomesAReshape) {
  test::GraphBuilder b;
  const ValueId x = b.input("x", Shape{5, 2, 7});
  const ValueId qkv = packed_product(b, x, 7, 12);
  const ValueId split = b.node("Reshape", {qkv, b.constant(test::i64s({5, 2, 3, 4}))});
  const ValueId lifted = b.node("Unsqueeze", {split, b.constant(test::i64s({0}))});
  const ValueId moved = b.node("Transpose", {lifted}, perm({3, 1, 2, 0, 4}));
  const ValueId stacked = b.node("Squeeze", {moved, b.constant(test::i64s({-2}))});
  std::vector<ValueId> pieces;
  for (int64_t i = 0; i < 3; ++i) {
    Tensor index(DType::i64, Shape{});
    index.data<int64_t>()[0] = i;
    Attributes axis;
    axis.set("axis", int64_t(0));
    pieces.push_back(b.node("Gather", {stacked, b.constant(std::move(index))}, axis));
  }
  b.g.outputs = {b.node("Mul", {pieces[0], pieces[1]}), pieces[2]};
  const Graph out = matmul_column_panels(b.g);
  EXPECT_EQ(count_ops(out, "Transpose"), 0);
  EXPECT_EQ(count_ops(out, "Unsqueeze"), 0);
  ASSERT_NE(find_op(out, kFusedMatMul), nullptr);
  EXPECT_EQ(out.value(find_op(out, kFusedMatMul)->inputs[1]).constant.shape(), (Shape{3, 7, 4}));
  test::expect_rewrite_keeps_results(b.g, out, b.feeds, 1e-6);
}

TEST(MatMulColumnPanels, LookalikesStay) {
  struct Case {
    const char* what;
    std::function<ValueId(test::GraphBuilder&, ValueId qkv)> cut;
    bool second_reader = false;
  };
  auto split = [](test::GraphBuilder& b, ValueId v, int64_t axis, std::initializer_list<int64_t> sizes) {
    Attributes a;
    a.set("axis", axis);
    std::vector<ValueId> outs;
    for (size_t i = 0; i < sizes.size(); ++i) outs.push_back(b.g.add_value(cat("piece", i), DType::f32, {}));
    b.g.add_node("Split", "split", {v, b.constant(test::i64s(sizes))}, outs, a);
    return outs[0];
  };
  const std::vector<Case> cases = {
      {"a Split of another axis", [&](test::GraphBuilder& b, ValueId v) { return split(b, v, 0, {2, 3}); }},
      {"unequal pieces", [&](test::GraphBuilder& b, ValueId v) { return split(b, v, 2, {4, 8}); }},
      {"the product read twice", [&](test::GraphBuilder& b, ValueId v) { return split(b, v, 2, {4, 4, 4}); }, true},
      {"a Transpose that also swaps rows", [](test::GraphBuilder& b, ValueId v) {
         const ValueId r = b.node("Reshape", {v, b.constant(test::i64s({5, 2, 3, 4}))});
         return b.node("Transpose", {r}, perm({2, 1, 0, 3}));
       }},
      {"a Transpose of rows only", [](test::GraphBuilder& b, ValueId v) {
         return b.node("Transpose", {v}, perm({1, 0, 2}));
       }},
  };
  for (const Case& c : cases) {
    test::GraphBuilder b;
    const ValueId x = b.input("x", Shape{5, 2, 7});
    const ValueId qkv = packed_product(b, x, 7, 12);
    b.g.outputs = {c.cut(b, qkv)};
    if (c.second_reader) b.g.outputs.push_back(qkv);
    const Graph out = matmul_column_panels(b.g);
    EXPECT_EQ(out.nodes.size(), b.g.nodes.size()) << c.what;
    EXPECT_EQ(count_ops(out, "Gather"), 0) << c.what;
  }
  // Weights computed at run time.
  test::GraphBuilder b;
  const ValueId x = b.input("x", Shape{5, 2, 7});
  Attributes act;
  act.set("activation", std::string("none"));
  const ValueId qkv = b.node(kFusedMatMul, {x, b.input("w", Shape{7, 12})}, act);
  b.g.outputs = {split(b, qkv, 2, {4, 4, 4})};
  EXPECT_EQ(matmul_column_panels(b.g).nodes.size(), b.g.nodes.size());
}

}  // namespace
}  // namespace vx

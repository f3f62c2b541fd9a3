// passes/merge_sibling_slices.h: Slices of one value that cut one axis into consecutive pieces
// covering it (step 1, constant bounds) become one Split with the pieces in axis order; anything
// else (a gap, an overlap, a step, a second cut axis, bounds computed at run time) stays. The graph
// after the pass computes exactly what the graph before it does (run eagerly on the CPU kernels).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>

#include "common/graph_builder.h"
#include "common/test_util.h"
#include "passes/merge_sibling_slices.h"

namespace vx {
namespace {

using test::count_ops;

Tensor ints(const std::vector<int64_t>& v) {
  Tensor t(DType::i64, Shape{int64_t(v.size())});
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}

// Slice(x, [start], [end], [axis]) (opset 10+ form).
ValueId slice(test::GraphBuilder& b, ValueId x, int64_t start, int64_t end, int64_t axis) {
  return b.node("Slice", {x, b.constant(ints({start})), b.constant(ints({end})), b.constant(ints({axis}))});
}

// A packed [T, B, 3E] projection cut into Q, K, V, the Slices in the order K, V, Q and with ONNX's
// open-ended forms (negative start, INT64_MAX end): one Split of sizes [E, E, E] at the first
// Slice's place; each piece keeps its value (and its readers).
TEST(MergeSiblingSlices, PiecesCoveringAnAxisBecomeOneSplit) {
  test::GraphBuilder b;
  const ValueId x = b.input("x", Shape{5, 1, 12});
  const ValueId qkv = b.node("Relu", {x});
  const ValueId k = slice(b, qkv, 4, 8, 2);
  const ValueId v = slice(b, qkv, -4, std::numeric_limits<int64_t>::max(), -1);
  const ValueId q = slice(b, qkv, 0, 4, 2);
  b.g.outputs = {b.node("Add", {q, k}), b.node("Mul", {v, q})};
  const Graph out = merge_sibling_slices(b.g);
  EXPECT_EQ(count_ops(out, "Slice"), 0);
  ASSERT_EQ(count_ops(out, "Split"), 1);
  const Node& split = out.nodes[1];
  ASSERT_EQ(split.op, "Split");
  EXPECT_EQ(split.outputs, (std::vector<ValueId>{q, k, v}));
  EXPECT_EQ(split.attrs.get_int("axis", -1), 2);
  ASSERT_EQ(split.inputs.size(), 2u);
  EXPECT_EQ(out.value(split.inputs[1]).constant.to(DType::f32).get(2), 4.0);
  test::expect_rewrite_keeps_results(b.g, out, b.feeds, 0.0);
}

// Opset 9 (bounds as attributes, Split's sizes an attribute), on a leading axis, two pieces.
TEST(MergeSiblingSlices, AttributeFormsBeforeOpset10) {
  test::GraphBuilder b(9);
  const ValueId x = b.input("x", Shape{6, 3});
  auto cut = [&](int64_t start, int64_t end) {
    Attributes a;
    a.set("starts", std::vector<int64_t>{start});
    a.set("ends", std::vector<int64_t>{end});
    a.set("axes", std::vector<int64_t>{0});
    return b.node("Slice", {x}, a);
  };
  const ValueId top = cut(0, 2), bottom = cut(2, 6);
  b.g.outputs = {b.node("Relu", {top}), b.node("Sigmoid", {bottom})};
  const Graph out = merge_sibling_slices(b.g);
  ASSERT_EQ(count_ops(out, "Split"), 1);
  EXPECT_EQ(count_ops(out, "Slice"), 0);
  for (const Node& n : out.nodes)
    if (n.op == "Split") {
      EXPECT_EQ(n.inputs.size(), 1u);
      EXPECT_EQ(n.attrs.get_ints("split"), (std::vector<int64_t>{2, 4}));
    }
  test::expect_rewrite_keeps_results(b.g, out, b.feeds, 0.0);
}

// What stays: pieces with a gap, overlapping pieces, a step of 2, a second cut axis, a lone Slice,
// integer tensors, bounds that are not constants.
TEST(MergeSiblingSlices, LeavesEverythingElse) {
  struct Case {
    const char* what;
    std::function<void(test::GraphBuilder&, ValueId)> slices;
  };
  const std::vector<Case> cases = {
      {"gap", [](test::GraphBuilder& b, ValueId x) {
         b.g.outputs = {slice(b, x, 0, 4, 1), slice(b, x, 5, 12, 1)};
       }},
      {"overlap", [](test::GraphBuilder& b, ValueId x) {
         b.g.outputs = {slice(b, x, 0, 7, 1), slice(b, x, 6, 12, 1)};
       }},
      {"step 2", [](test::GraphBuilder& b, ValueId x) {
         b.g.outputs = {slice(b, x, 0, 6, 1),
                        b.node("Slice", {x, b.constant(ints({6})), b.constant(ints({12})), b.constant(ints({1})),
                                         b.constant(ints({2}))})};
       }},
      {"two axes", [](test::GraphBuilder& b, ValueId x) {
         b.g.outputs = {slice(b, x, 0, 6, 1),
                        b.node("Slice", {x, b.constant(ints({6, 0})), b.constant(ints({12, 1})),
                                         b.constant(ints({1, 0}))})};
       }},
      {"lone", [](test::GraphBuilder& b, ValueId x) { b.g.outputs = {slice(b, x, 0, 6, 1)}; }},
      {"integers (shape arithmetic)", [](test::GraphBuilder& b, ValueId) {
         const ValueId dims = b.node("Shape", {b.input("y", Shape{2, 3, 4, 5})});
         b.g.outputs = {slice(b, dims, 0, 2, 0), slice(b, dims, 2, 4, 0)};
       }},
      {"bounds at run time", [](test::GraphBuilder& b, ValueId x) {
         const ValueId start = b.input("start", Shape{1});
         b.feeds.back() = ints({6});
         b.g.outputs = {slice(b, x, 0, 6, 1),
                        b.node("Slice", {x, start, b.constant(ints({12})), b.constant(ints({1}))})};
       }},
  };
  for (const Case& c : cases) {
    test::GraphBuilder b;
    const ValueId x = b.input("x", Shape{2, 12});
    c.slices(b, x);
    const Graph out = merge_sibling_slices(b.g);
    EXPECT_EQ(count_ops(out, "Split"), 0) << c.what;
    EXPECT_EQ(out.nodes.size(), b.g.nodes.size()) << c.what;
  }
}

}  // namespace
}  // namespace vx

// The fast reshapes and Concat (cpu/fast/movement.cpp, concat.cpp) where planning does not know a shape. SSDLite's exported
// NMS unsqueezes a scalar whose rank is unknown when planned (it comes out of Shape -> Gather of a
// data-dependent value); planning reads such a value as a known scalar, and the fast Unsqueeze once
// wrote [] instead of [1], which the Concat after it refused.
#include <map>

#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/fast/cpu_layout.h"
#include "common/cpu_op_test_util.h"
#include "common/graph_builder.h"
#include "common/test_util.h"

namespace vx::test {
namespace {

TEST(CpuFastMovement, AValueOfUnknownRankAtPlanTime) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1});
  const ValueId axes = b.g.add_value("axes", DType::i64, Shape({1}));  // a graph input: Squeeze's rank unknown
  b.g.inputs.push_back(axes);
  b.feeds.push_back(Tensor::from<int64_t>({1}, {0}));
  const ValueId scalar = b.node("Squeeze", {x, axes});
  const ValueId one = b.node("Unsqueeze", {scalar, b.constant(Tensor::from<int64_t>({1}, {0}))});
  Attributes axis0;
  axis0.set("axis", int64_t(0));
  b.g.outputs = {b.node("Concat", {b.constant(Tensor::from<float>({1}, {5.0f})), one}, axis0)};
  const std::map<std::string, Shape> shapes = {{"x", Shape({1})}, {"axes", Shape({1})}};
  cpu::CpuExecutable fast(cpu::make_cpu_plan(b.g, shapes));
  const std::vector<Tensor> got = fast.run(b.feeds);
  ASSERT_EQ(got.size(), 1u);
  expect_values(got[0], {2}, {5.0, double(b.feeds[0].data<float>()[0])});
}

// Identity takes the shape its input has when it runs: the same unknown-rank scalar passes through
// the fast kernel as [] (Silero's If bodies pass such scalars on).
TEST(CpuFastMovement, IdentityOfAValueOfUnknownRank) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1});
  const ValueId axes = b.g.add_value("axes", DType::i64, Shape({1}));
  b.g.inputs.push_back(axes);
  b.feeds.push_back(Tensor::from<int64_t>({1}, {0}));
  b.g.outputs = {b.node("Identity", {b.node("Squeeze", {x, axes})})};
  const std::map<std::string, Shape> shapes = {{"x", Shape({1})}, {"axes", Shape({1})}};
  cpu::CpuExecutable fast(cpu::make_cpu_plan(b.g, shapes));
  bool identity_fast = false;
  for (const PlanStep& step : fast.plan().steps)
    if (fast.plan().graph.nodes[size_t(step.node)].op == "Identity") identity_fast = step.variant == cpu::kFastVariant;
  EXPECT_TRUE(identity_fast);
  const std::vector<Tensor> got = fast.run(b.feeds);
  ASSERT_EQ(got.size(), 1u);
  expect_values(got[0], {}, {double(b.feeds[0].data<float>()[0])});
}

// A Slice with constant operands keeps its copy for the input shape it last saw: one whose input
// shape changes between runs of the same plan (a Reshape to a shape given at run time) must work
// its copy out again.
TEST(CpuFastMovement, SliceOfAShapeThatChangesBetweenRuns) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 6});
  const ValueId to = b.g.add_value("to", DType::i64, Shape({2}));
  b.g.inputs.push_back(to);
  const ValueId reshaped = b.node("Reshape", {x, to});
  const ValueId one = b.constant(Tensor::from<int64_t>({1}, {1}));
  const ValueId big = b.constant(Tensor::from<int64_t>({1}, {100}));
  const ValueId last = b.constant(Tensor::from<int64_t>({1}, {-1}));
  b.g.outputs = {b.node("Slice", {reshaped, one, big, last})};
  const std::map<std::string, Shape> shapes = {{"x", Shape({1, 6})}, {"to", Shape({2})}};
  cpu::CpuExecutable fast(cpu::make_cpu_plan(b.g, shapes));
  bool slice_fast = false;
  for (const PlanStep& step : fast.plan().steps)
    if (fast.plan().graph.nodes[size_t(step.node)].op == "Slice") slice_fast = step.variant == cpu::kFastVariant;
  EXPECT_TRUE(slice_fast);
  const Tensor x6 = Tensor::from<float>({1, 6}, {0, 1, 2, 3, 4, 5});
  for (int repeat = 0; repeat < 2; ++repeat) {
    expect_values(fast.run({x6, Tensor::from<int64_t>({2}, {2, 3})})[0], {2, 2}, {1, 2, 4, 5});
    expect_values(fast.run({x6, Tensor::from<int64_t>({2}, {3, 2})})[0], {3, 1}, {1, 3, 5});
  }
}

}  // namespace
}  // namespace vx::test

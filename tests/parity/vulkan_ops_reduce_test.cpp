// The Vulkan reductions against the CPU reference kernels (double accumulation) on lavapipe, with
// the validation layer on (any message fails): Reduce{Sum,Mean,Max,Min,Prod,L1,L2,LogSum,LogSumExp,
// SumSquare} (axes as attribute, as constant input and computed at run time, negative, keepdims,
// noop_with_empty_axes), ArgMax / ArgMin (ties, select_last_index), Softmax / LogSoftmax / Hardmax
// (opset < 13 coerce-to-2-D and opset 13 single axis), CumSum (exclusive, reverse, run-time axis),
// TopK, NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, at odd shapes, with long reduced axes
// (workgroup reductions in shared memory), fp32 and fp16 storage and int32 tensors.
//
// Tolerances: fp32 |d| <= 1e-5 + 1e-5 |ref| (fp32 accumulation against double; sums of up to 3000
// values in [-1, 1] carry ~1e-6 absolute rounding, hence atol 1e-5); fp16 storage |d| <= 1e-3 +
// 1e-2 |ref| (the reference runs on the fp16-rounded inputs); integers, ArgMax/ArgMin indices and
// TopK exact.
#include <gtest/gtest.h>

#include <cmath>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx::test {
namespace {

constexpr Tolerance kFp32{1e-5, 1e-5};
constexpr Tolerance kFp16{1e-2, 1e-3};

class VulkanReduce : public VulkanOpTest {
 protected:
  void check(const std::string& op, const std::vector<NodeInput>& inputs, const Attributes& attrs, int64_t opset,
             const std::string& what, bool fp16 = true) {
    expect_matches_cpu(single_node(op, inputs, 1, attrs, opset), Precision::fp32, kFp32, false, what);
    if (fp16) expect_matches_cpu(single_node(op, inputs, 1, attrs, opset), Precision::fp16, kFp16, false, what);
  }
};

const char* kReductions[] = {"ReduceSum", "ReduceMean", "ReduceMax",       "ReduceMin",      "ReduceProd",
                             "ReduceL1",  "ReduceL2",   "ReduceLogSum",    "ReduceLogSumExp", "ReduceSumSquare"};

// Values that keep every reduction finite (LogSum needs positive sums, Prod moderate magnitudes).
Tensor data_for(const std::string& op, const Shape& shape, uint64_t seed) {
  if (op == "ReduceLogSum") return random_tensor(shape, seed, 0.1f, 1.0f);
  if (op == "ReduceProd") return random_tensor(shape, seed, 0.8f, 1.25f);
  return random_tensor(shape, seed, -1.0f, 1.0f);
}

TEST_F(VulkanReduce, EveryReductionOverAxesAttribute) {
  const std::vector<std::vector<int64_t>> axes_cases = {{}, {1}, {-1}, {0, 2}, {1, 3}, {0, 1, 2, 3}};
  uint64_t seed = 1;
  for (const char* op : kReductions)
    for (const auto& axes : axes_cases)
      for (int64_t keep : {0, 1}) {
        Attributes a;
        if (!axes.empty()) a.set("axes", axes);
        a.set("keepdims", keep);
        check(op, {input(data_for(op, Shape{2, 3, 5, 7}, seed++))}, a, 13 - (std::string(op) == "ReduceSum" ? 2 : 0),
              cat(op, " axes ", Shape(axes).str(), " keepdims ", keep));
      }
}

TEST_F(VulkanReduce, AxesAsInputAndNoop) {
  uint64_t seed = 100;
  for (const char* op : kReductions) {
    Tensor x = data_for(op, Shape{2, 1, 9}, seed++);
    check(op, {input(x), constant(test::i64s({-1, 0}))}, {}, 18, cat(op, "-18 axes input"));
    check(op, {input(x)}, {}, 18, cat(op, "-18 all axes"));
    Attributes noop;
    noop.set("noop_with_empty_axes", int64_t(1));
    check(op, {input(x), constant(Tensor(DType::i64, Shape{0}))}, noop, 18, cat(op, "-18 noop"));
  }
  check("ReduceSum", {input(random_tensor(Shape{4, 3}, seed++)), constant(test::i64s({1}))}, {}, 13, "ReduceSum-13 input");
}

TEST_F(VulkanReduce, LongAxesUseWorkgroups) {
  uint64_t seed = 200;
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceL2", "ReduceLogSumExp"}) {
    Attributes a;
    a.set("axes", std::vector<int64_t>{-1});
    check(op, {input(data_for(op, Shape{3, 3001}, seed++))}, a, 13, cat(op, " 3x3001"));
    a.set("axes", std::vector<int64_t>{0, 2});
    check(op, {input(data_for(op, Shape{37, 5, 41}, seed++))}, a, 13, cat(op, " 37x5x41 axes 0,2"));
  }
  Attributes all;
  check("ReduceSum", {input(random_tensor(Shape{2, 3, 4, 5, 6}, seed++))}, all, 13, "ReduceSum rank 5");
  check("ReduceMax", {input(random_tensor(Shape{7}, seed++))}, all, 13, "ReduceMax rank 1");
}

TEST_F(VulkanReduce, IntegerReductions) {
  uint64_t seed = 300;
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                         "ReduceSumSquare"}) {
    Attributes a;
    a.set("axes", std::vector<int64_t>{1});
    Tensor x = std::string(op) == "ReduceProd" ? test::random_int_tensor(Shape{3, 5, 2}, seed++, -3, 3, DType::i32) : test::random_int_tensor(Shape{3, 50, 2}, seed++, -100, 100, DType::i32);
    expect_matches_cpu(single_node(op, {input(x)}, 1, a, 13), Precision::fp32, {0, 0}, false, cat(op, " int32"));
  }
}

// The node's data input produced on the GPU (an Identity in front): the executor keeps nodes with
// only int64 results that read nothing from the GPU on the CPU as shape computations.
SingleNodeCase behind_identity(SingleNodeCase c) {
  Graph& g = c.graph;
  const ValueId x = g.nodes.at(0).inputs.at(0);
  const ValueId staged = g.add_value("staged", g.value(x).dtype, g.value(x).shape);
  Node identity;
  identity.op = "Identity";
  identity.name = "stage";
  identity.inputs = {x};
  identity.outputs = {staged};
  g.nodes.at(0).inputs[0] = staged;
  g.nodes.insert(g.nodes.begin(), identity);
  return c;
}

TEST_F(VulkanReduce, ArgMaxArgMin) {
  uint64_t seed = 400;
  for (const char* op : {"ArgMax", "ArgMin"})
    for (int64_t axis : {0, 1, -1})
      for (int64_t keep : {0, 1})
        for (int64_t last : {0, 1}) {
          Attributes a;
          a.set("axis", axis);
          a.set("keepdims", keep);
          a.set("select_last_index", last);
          const std::string what = cat(op, " axis ", axis, " keepdims ", keep, " last ", last);
          // Integers in a small range: many ties, so the index rule matters.
          expect_matches_cpu(behind_identity(single_node(op, {input(test::random_int_tensor(Shape{3, 40, 7}, seed++, -3, 3, DType::i32))}, 1, a, 13)),
                             Precision::fp32, {0, 0}, false, what + " int32");
          SingleNodeCase c = behind_identity(single_node(op, {input(random_tensor(Shape{4, 300, 3}, seed++))}, 1, a, 13));
          expect_matches_cpu(c, Precision::fp32, {0, 0}, false, what);
          expect_matches_cpu(c, Precision::fp16, {0, 0}, false, what);
        }
}

TEST_F(VulkanReduce, SoftmaxFamily) {
  uint64_t seed = 500;
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    Tensor x = random_tensor(Shape{2, 3, 5, 7}, seed++, -4, 4);
    // Opset 11: coerce to 2-D at axis (default 1); opset 13: one axis (default -1).
    check(op, {input(x)}, {}, 11, cat(op, "-11 default"));
    Attributes a2;
    a2.set("axis", int64_t(2));
    check(op, {input(x)}, a2, 11, cat(op, "-11 axis 2"));
    check(op, {input(x)}, {}, 13, cat(op, "-13 default"));
    Attributes a1;
    a1.set("axis", int64_t(-3));
    check(op, {input(x)}, a1, 13, cat(op, "-13 axis -3"));
    check(op, {input(random_tensor(Shape{3, 1000}, seed++, -4, 4))}, {}, 13, cat(op, " 3x1000"));
    check(op, {input(random_tensor(Shape{9}, seed++, -4, 4))}, {}, 13, cat(op, " rank 1"));
  }
}

TEST_F(VulkanReduce, CumSum) {
  uint64_t seed = 600;
  for (int64_t exclusive : {0, 1})
    for (int64_t reverse : {0, 1})
      for (int64_t axis : {0, 1, -1}) {
        Attributes a;
        a.set("exclusive", exclusive);
        a.set("reverse", reverse);
        const std::string what = cat("CumSum axis ", axis, " exclusive ", exclusive, " reverse ", reverse);
        check("CumSum", {input(random_tensor(Shape{2, 9, 5}, seed++)), constant(test::i64s({axis}))}, a, 14, what);
        expect_matches_cpu(
            single_node("CumSum", {input(test::random_int_tensor(Shape{2, 9, 5}, seed++, -50, 50, DType::i32)), constant(test::i64s({axis}))}, 1, a, 14),
            Precision::fp32, {0, 0}, false, what + " int32");
      }
  check("CumSum", {input(random_tensor(Shape{7}, seed++)), constant(Tensor::from<int32_t>(Shape{}, {0}))}, {}, 14,
        "CumSum rank 1");
  // The axis computed at run time (a graph input here), read by the shader.
  for (int64_t axis : {0, -1, 1}) {
    Attributes a;
    a.set("reverse", int64_t(axis == 1));
    check("CumSum", {input(random_tensor(Shape{3, 4, 5}, seed++)), input(Tensor::from<int64_t>(Shape{}, {axis}))}, a,
          14, cat("CumSum runtime axis ", axis));
    expect_matches_cpu(single_node("CumSum", {input(test::random_int_tensor(Shape{3, 4, 5}, seed++, -9, 9, DType::i32)),
                                              input(Tensor::from<int32_t>(Shape{1}, {int32_t(axis)}))},
                                   1, a, 14),
                       Precision::fp32, {0, 0}, false, cat("CumSum runtime axis int32 ", axis));
  }
}

// TopK: values exact (they are moved, not computed) and indices exact; many ties in the int case.
TEST_F(VulkanReduce, TopK) {
  uint64_t seed = 700;
  for (int64_t axis : {-1, 0, 1})
    for (int64_t largest : {1, 0}) {
      Attributes a;
      a.set("axis", axis);
      a.set("largest", largest);
      const std::string what = cat("TopK axis ", axis, " largest ", largest);
      Tensor k = test::i64s({3});
      for (Precision p : {Precision::fp32, Precision::fp16})
        expect_matches_cpu(single_node("TopK", {input(random_tensor(Shape{4, 9, 5}, seed++)), constant(k)}, 2, a, 11), p,
                           {0, 0}, false, what);
      expect_matches_cpu(single_node("TopK", {input(test::random_int_tensor(Shape{4, 9, 5}, seed++, -2, 2, DType::i32)), constant(k)}, 2, a, 11),
                         Precision::fp32, {0, 0}, false, what + " int32");
    }
  Attributes old;
  old.set("k", int64_t(5));
  expect_matches_cpu(single_node("TopK", {input(random_tensor(Shape{2, 1000}, seed++))}, 2, old, 1), Precision::fp32,
                     {0, 0}, false, "TopK-1 k=5 of 1000");
  expect_matches_cpu(single_node("TopK", {input(random_tensor(Shape{7}, seed++)), constant(test::i64s({7}))}, 2, {}, 11),
                     Precision::fp32, {0, 0}, false, "TopK all of rank 1");
}

TEST_F(VulkanReduce, EdgeShapes) {
  uint64_t seed = 800;
  // A scalar reduces to itself; size-1 reduced axes; an empty reduced axis gives the identity.
  check("ReduceSum", {input(Tensor::from<float>(Shape{}, {2.5f}))}, {}, 13, "ReduceSum scalar");
  Attributes a;
  a.set("axes", std::vector<int64_t>{1});
  check("ReduceMax", {input(random_tensor(Shape{3, 1, 4}, seed++))}, a, 13, "ReduceMax size-1 axis");
  check("ReduceSum", {input(Tensor(DType::f32, Shape{3, 0}))}, a, 13, "ReduceSum empty axis");
  check("Softmax", {input(random_tensor(Shape{1, 1}, seed++))}, {}, 13, "Softmax 1x1");
}

// Axes computed at run time (a graph input here): the executor observes the output shape, which
// tells the reduced axes unless extents repeat (keepdims 0 of [3, 3]): then the CPU runs the node.
TEST_F(VulkanReduce, RuntimeAxesFromTheBoundShapes) {
  uint64_t seed = 900;
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceL2", "ReduceSumSquare", "ReduceMax"})
    for (int64_t keep : {0, 1}) {
      Attributes a;
      a.set("keepdims", keep);
      const std::string what = cat(op, " runtime axes keepdims ", keep);
      check(op, {input(data_for(op, Shape{2, 3, 1, 7}, seed++)), input(test::i64s({-1, 1}))}, a, 18, what);
      check(op, {input(data_for(op, Shape{2, 3, 1, 7}, seed++)), input(test::i64s({2, 0}))}, a, 18, what + " size-1 axis");
    }
  Attributes drop;
  drop.set("keepdims", int64_t(0));
  SingleNodeCase c = single_node("ReduceSum", {input(random_tensor(Shape{3, 3}, seed++)), input(test::i64s({1}))}, 1, drop, 18);
  VulkanRun run = run_on_vulkan(ctx(), c.graph, c.inputs, Precision::fp32);
  EXPECT_FALSE(run.all_on_gpu) << "[3, 3] -> [3] does not tell which axis";
  EXPECT_TRUE(outputs_match(run_cpu_reference(c.graph, c.inputs), run.outputs, kFp32));
  Attributes noop;
  noop.set("noop_with_empty_axes", int64_t(1));
  check("ReduceSum", {input(random_tensor(Shape{2, 4}, seed++)), input(Tensor(DType::i64, Shape{0}))}, noop, 18,
        "ReduceSum runtime empty axes noop");
  check("ReduceSum", {input(random_tensor(Shape{2, 4}, seed++)), input(Tensor(DType::i64, Shape{0}))}, {}, 18,
        "ReduceSum runtime empty axes (all)");
}

// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: weights, ignore_index, every reduction,
// extra spatial axes, the optional log-probability output.
TEST_F(VulkanReduce, Losses) {
  uint64_t seed = 1000;
  Tensor labels = test::random_int_tensor(Shape{3, 4}, seed++, 0, 4, DType::i32);  // [N, d1] over C = 5 classes
  labels.set(5, 2);
  Tensor weight = random_tensor(Shape{5}, seed++, 0.5f, 2.0f);
  for (const char* reduction : {"none", "sum", "mean"})
    for (bool weighted : {false, true})
      for (bool ignore : {false, true}) {
        Attributes a;
        a.set("reduction", std::string(reduction));
        if (ignore) a.set("ignore_index", int64_t(2));
        const std::string what = cat(reduction, weighted ? " weighted" : "", ignore ? " ignore_index" : "");
        std::vector<NodeInput> nll = {input(random_tensor(Shape{3, 5, 4}, seed++, -3, 0)), input(labels)};
        std::vector<NodeInput> sce = {input(random_tensor(Shape{3, 5, 4}, seed++, -3, 3)), input(labels)};
        if (weighted) {
          nll.push_back(constant(weight));
          sce.push_back(input(weight));
        }
        check("NegativeLogLikelihoodLoss", nll, a, 13, "NLL " + what);
        check("SoftmaxCrossEntropyLoss", sce, a, 13, "SoftmaxCrossEntropyLoss " + what);
        for (Precision p : {Precision::fp32, Precision::fp16})
          expect_matches_cpu(single_node("SoftmaxCrossEntropyLoss", sce, 2, a, 13), p,
                             p == Precision::fp32 ? kFp32 : kFp16, false, "SoftmaxCrossEntropyLoss log_prob " + what);
      }
  check("NegativeLogLikelihoodLoss", {input(random_tensor(Shape{6, 3}, seed++, -3, 0)), input(test::random_int_tensor(Shape{6}, seed++, 0, 2, DType::i32))},
        {}, 13, "NLL 2-D");
}

}  // namespace
}  // namespace vx::test

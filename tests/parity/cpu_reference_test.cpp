// The CPU reference kernels against values computed by hand on tiny inputs, run through the
// executor (so attribute parsing and output shapes are covered too).
#include "backends/cpu/cpu_executable.h"
#include "common/test_util.h"
#include "ops/fused_ops.h"

namespace vx {
namespace {

// Runs a one-node graph with the reference kernels; constant inputs are given as tensors with
// `constant` set, the rest become graph inputs.
struct ReferenceNode {
  Graph g;
  std::vector<Tensor> feeds;
  std::vector<ValueId> ins;

  ReferenceNode& input(const Tensor& t) {
    ValueId id = g.add_value(cat("in", ins.size()), t.dtype(), t.shape());
    g.inputs.push_back(id);
    feeds.push_back(t);
    ins.push_back(id);
    return *this;
  }
  ReferenceNode& constant(const Tensor& t) {
    ins.push_back(g.add_constant(cat("c", ins.size()), t));
    return *this;
  }
  ReferenceNode& omitted() {
    ins.push_back(kNoValue);
    return *this;
  }
  std::vector<Tensor> run(const std::string& op, Attributes attrs, int outputs = 1) {
    std::vector<ValueId> outs;
    for (int i = 0; i < outputs; ++i) outs.push_back(g.add_value(cat("out", i), DType::f32, {}));
    g.add_node(op, "node_under_test", ins, outs, std::move(attrs));
    g.outputs = outs;
    std::map<std::string, Shape> shapes;
    for (size_t i = 0; i < g.inputs.size(); ++i) shapes[g.value(g.inputs[i]).name] = feeds[i].shape();
    cpu::CpuOptions options;
    options.reference_only = true;
    cpu::CpuExecutable exe(cpu::make_cpu_plan(g, shapes, true), options);
    return exe.run(feeds);
  }
};

void expect_values(const Tensor& t, const Shape& shape, const std::vector<double>& expected) {
  ASSERT_EQ(t.shape(), shape);
  ASSERT_EQ(size_t(t.numel()), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(t.get(int64_t(i)), expected[i], 1e-6) << "element " << i;
}

Tensor filled(Shape shape, float v) {
  Tensor t(DType::f32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, v);
  return t;
}

Attributes ints(std::initializer_list<std::pair<const char*, std::vector<int64_t>>> list) {
  Attributes a;
  for (const auto& [k, v] : list) a.set(k, v);
  return a;
}

TEST(CpuReference, ConvPlain) {
  auto y = ReferenceNode().input(test::iota({1, 1, 3, 3}, 1)).constant(filled({1, 1, 2, 2}, 1)).run("Conv", {});
  expect_values(y[0], {1, 1, 2, 2}, {12, 16, 24, 28});
}

TEST(CpuReference, ConvPadsAndStrides) {
  auto y = ReferenceNode()
               .input(test::iota({1, 1, 3, 3}, 1))
               .constant(filled({1, 1, 2, 2}, 1))
               .run("Conv", ints({{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}}));
  expect_values(y[0], {1, 1, 2, 2}, {1, 5, 11, 28});
}

TEST(CpuReference, ConvGroupsDilationsBias) {
  Tensor x = Tensor::from<float>({1, 2, 1, 5}, {1, 2, 3, 4, 5, 10, 20, 30, 40, 50});
  Tensor w = Tensor::from<float>({2, 1, 1, 2}, {1, -1, 2, 1});
  Tensor b = Tensor::from<float>({2}, {0.5f, -1});
  Attributes a = ints({{"dilations", {1, 2}}});
  a.set("group", int64_t(2));
  auto y = ReferenceNode().input(x).constant(w).constant(b).run("Conv", a);
  expect_values(y[0], {1, 2, 1, 3}, {-1.5, -1.5, -1.5, 49, 79, 109});
}

TEST(CpuReference, ConvOneDimensional) {
  auto y = ReferenceNode()
               .input(test::iota({1, 1, 4}, 1))
               .constant(Tensor::from<float>({1, 1, 3}, {1, 0, -1}))
               .run("Conv", ints({{"pads", {1, 1}}}));
  expect_values(y[0], {1, 1, 4}, {-2, -2, -2, 3});
}

TEST(CpuReference, ConvAutoPad) {
  Attributes upper = ints({{"strides", {1, 2}}});
  upper.set("auto_pad", std::string("SAME_UPPER"));
  auto y1 = ReferenceNode().input(test::iota({1, 1, 1, 4}, 1)).constant(filled({1, 1, 1, 3}, 1)).run("Conv", upper);
  expect_values(y1[0], {1, 1, 1, 2}, {6, 7});
  Attributes lower = upper;
  lower.set("auto_pad", std::string("SAME_LOWER"));
  auto y2 = ReferenceNode().input(test::iota({1, 1, 1, 4}, 1)).constant(filled({1, 1, 1, 3}, 1)).run("Conv", lower);
  expect_values(y2[0], {1, 1, 1, 2}, {3, 9});
}

TEST(CpuReference, ConvBatchAndChannels) {
  // Two images, two input channels, two output channels, 1x1 kernel: y[m] = sum_c w[m,c] x[c] + b[m].
  Tensor x = Tensor::from<float>({2, 2, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor w = Tensor::from<float>({2, 2, 1, 1}, {1, 10, -1, 0.5f});
  Tensor b = Tensor::from<float>({2}, {0, 100});
  auto y = ReferenceNode().input(x).constant(w).constant(b).run("Conv", {});
  expect_values(y[0], {2, 2, 1, 2}, {31, 42, 100.5, 100, 75, 86, 98.5, 98});
}

TEST(CpuReference, Relu) {
  auto y = ReferenceNode().input(Tensor::from<float>({4}, {-1, 0, 2.5f, -0.0f})).run("Relu", {});
  expect_values(y[0], {4}, {0, 0, 2.5, 0});
}

TEST(CpuReference, MaxPool) {
  Tensor x = Tensor::from<float>({1, 1, 4, 4}, {1, 5, 2, 0, 3, 4, 8, 7, -1, -2, -3, -4, -5, -6, -7, -9});
  auto y = ReferenceNode().input(x).run("MaxPool", ints({{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}));
  expect_values(y[0], {1, 1, 2, 2}, {5, 8, -1, -3});
  // 3x3 window, stride 2, pads 1: padding never wins even when everything is negative.
  auto z = ReferenceNode().input(x).run("MaxPool",
                                  ints({{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}));
  expect_values(z[0], {1, 1, 2, 2}, {5, 8, 4, 8});
  auto n = ReferenceNode().input(filled({1, 1, 2, 2}, -3)).run("MaxPool",
                                                          ints({{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}));
  expect_values(n[0], {1, 1, 2, 2}, {-3, -3, -3, -3});
}

TEST(CpuReference, MaxPoolCeilModeAndIndices) {
  Attributes a = ints({{"kernel_shape", {2}}, {"strides", {2}}});
  a.set("ceil_mode", int64_t(1));
  auto y = ReferenceNode().input(Tensor::from<float>({1, 1, 5}, {1, 3, 2, 0, 7})).run("MaxPool", a, 2);
  expect_values(y[0], {1, 1, 3}, {3, 2, 7});
  ASSERT_EQ(y[1].dtype(), DType::i64);
  expect_values(y[1], {1, 1, 3}, {1, 2, 4});
}

TEST(CpuReference, ResizeNearest2x) {
  Attributes a;
  a.set("mode", std::string("nearest"));
  a.set("coordinate_transformation_mode", std::string("asymmetric"));
  a.set("nearest_mode", std::string("floor"));
  auto y = ReferenceNode()
               .input(Tensor::from<float>({1, 1, 2, 2}, {1, 2, 3, 4}))
               .omitted()
               .constant(Tensor::from<float>({4}, {1, 1, 2, 2}))
               .run("Resize", a);
  expect_values(y[0], {1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
}

TEST(CpuReference, ResizeNearestSizesHalfPixel) {
  // Downsample 4 -> 2 with half_pixel / round_prefer_floor: x_in = (x + 0.5) * 2 - 0.5 = 0.5, 2.5 -> 0, 2.
  Attributes a;
  a.set("mode", std::string("nearest"));
  auto y = ReferenceNode()
               .input(Tensor::from<float>({1, 4}, {10, 20, 30, 40}))
               .omitted()
               .omitted()
               .constant(Tensor::from<int64_t>({2}, {1, 2}))
               .run("Resize", a);
  expect_values(y[0], {1, 2}, {10, 30});
}

TEST(CpuReference, ConcatAnyAxisAndDtype) {
  Attributes axis1;
  axis1.set("axis", int64_t(1));
  auto y = ReferenceNode()
               .input(Tensor::from<float>({2, 1}, {1, 2}))
               .input(Tensor::from<float>({2, 2}, {3, 4, 5, 6}))
               .run("Concat", axis1);
  expect_values(y[0], {2, 3}, {1, 3, 4, 2, 5, 6});
  Attributes axis0;
  axis0.set("axis", int64_t(-2));
  auto z = ReferenceNode()
               .input(Tensor::from<int64_t>({1, 2}, {7, 8}))
               .input(Tensor::from<int64_t>({2, 2}, {9, 10, 11, 12}))
               .run("Concat", axis0);
  ASSERT_EQ(z[0].dtype(), DType::i64);
  expect_values(z[0], {3, 2}, {7, 8, 9, 10, 11, 12});
}

TEST(CpuReference, FusedConvUpsampleConcatReluPool) {
  // X_low 1x1x1x1 = [2] upsampled to 2x2, X_skip 1x1x2x2, 1x1 conv with weights [1, -1], bias -1,
  // relu, then 2x2 pool: max(relu(2 - s - 1)).
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{1, 1});
  a.set("relu", int64_t(1));
  a.set("pool", int64_t(1));
  a.set("upsample_concat", int64_t(1));
  auto y = ReferenceNode()
               .input(Tensor::from<float>({1, 1, 1, 1}, {2}))
               .input(Tensor::from<float>({1, 1, 2, 2}, {0.5f, 3, -4, 1}))
               .constant(Tensor::from<float>({1, 2, 1, 1}, {1, -1}))
               .constant(Tensor::from<float>({1}, {-1}))
               .run(kFusedConv, a);
  expect_values(y[0], {1, 1, 1, 1}, {5});  // 2 - (-4) - 1
}

}  // namespace
}  // namespace vx

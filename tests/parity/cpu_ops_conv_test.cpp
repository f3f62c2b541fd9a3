// The Conv reference kernel (cpu/reference/conv.cpp) against values computed by hand on tiny inputs:
// pads, strides, groups, dilations, bias, 1-D, auto_pad, batches and channels.
// Cases run through the executor with the reference kernels only (ReferenceNode,
// tests/common/cpu_op_test_util.h), so attribute parsing and output shapes are covered too.
#include "common/cpu_op_test_util.h"
#include "common/test_util.h"

namespace vx::test {
namespace {

TEST(CpuConv, ConvPlain) {
  auto y = ReferenceNode().input(test::iota({1, 1, 3, 3}, 1)).constant(filled({1, 1, 2, 2}, 1)).run("Conv", {});
  expect_values(y[0], {1, 1, 2, 2}, {12, 16, 24, 28});
}

TEST(CpuConv, ConvPadsAndStrides) {
  auto y = ReferenceNode()
               .input(test::iota({1, 1, 3, 3}, 1))
               .constant(filled({1, 1, 2, 2}, 1))
               .run("Conv", ints({{"pads", {1, 1, 1, 1}}, {"strides", {2, 2}}}));
  expect_values(y[0], {1, 1, 2, 2}, {1, 5, 11, 28});
}

TEST(CpuConv, ConvGroupsDilationsBias) {
  Tensor x = Tensor::from<float>({1, 2, 1, 5}, {1, 2, 3, 4, 5, 10, 20, 30, 40, 50});
  Tensor w = Tensor::from<float>({2, 1, 1, 2}, {1, -1, 2, 1});
  Tensor b = Tensor::from<float>({2}, {0.5f, -1});
  Attributes a = ints({{"dilations", {1, 2}}});
  a.set("group", int64_t(2));
  auto y = ReferenceNode().input(x).constant(w).constant(b).run("Conv", a);
  expect_values(y[0], {1, 2, 1, 3}, {-1.5, -1.5, -1.5, 49, 79, 109});
}

TEST(CpuConv, ConvOneDimensional) {
  auto y = ReferenceNode()
               .input(test::iota({1, 1, 4}, 1))
               .constant(Tensor::from<float>({1, 1, 3}, {1, 0, -1}))
               .run("Conv", ints({{"pads", {1, 1}}}));
  expect_values(y[0], {1, 1, 4}, {-2, -2, -2, 3});
}

TEST(CpuConv, ConvAutoPad) {
  Attributes upper = ints({{"strides", {1, 2}}});
  upper.set("auto_pad", std::string("SAME_UPPER"));
  auto y1 = ReferenceNode().input(test::iota({1, 1, 1, 4}, 1)).constant(filled({1, 1, 1, 3}, 1)).run("Conv", upper);
  expect_values(y1[0], {1, 1, 1, 2}, {6, 7});
  Attributes lower = upper;
  lower.set("auto_pad", std::string("SAME_LOWER"));
  auto y2 = ReferenceNode().input(test::iota({1, 1, 1, 4}, 1)).constant(filled({1, 1, 1, 3}, 1)).run("Conv", lower);
  expect_values(y2[0], {1, 1, 1, 2}, {3, 9});
}

TEST(CpuConv, ConvBatchAndChannels) {
  // Two images, two input channels, two output channels, 1x1 kernel: y[m] = sum_c w[m,c] x[c] + b[m].
  Tensor x = Tensor::from<float>({2, 2, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor w = Tensor::from<float>({2, 2, 1, 1}, {1, 10, -1, 0.5f});
  Tensor b = Tensor::from<float>({2}, {0, 100});
  auto y = ReferenceNode().input(x).constant(w).constant(b).run("Conv", {});
  expect_values(y[0], {2, 2, 1, 2}, {31, 42, 100.5, 100, 75, 86, 98.5, 98});
}

}  // namespace
}  // namespace vx::test

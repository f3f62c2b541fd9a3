// Hand-computed cases for the trickiest ONNX semantics of the pooling kernels (cpu/reference/pool.cpp,
// or the oneDNN one where it takes the node).
// Each kernel runs through a minimal KernelContext (run_op, tests/common/cpu_op_test_util.h), the
// last cases through the executor with the reference kernels only (ReferenceNode); expected values
// were worked out by hand from the ONNX spec (and agree with onnx's reference implementation).
#include "common/cpu_op_test_util.h"
#include "common/test_util.h"

namespace vx::test {
namespace {

TEST(CpuPool, MaxPoolCeilModeWithIndices) {
  Tensor x = f32({1, 1, 3, 3}, {1, 5, 3, 4, 2, 6, 7, 9, 8});
  Attributes a = attrs_of({{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}},
                           {"ceil_mode", int64_t(1)}});
  auto out = run_op("MaxPool", {x}, a, 2);
  expect_tensor(out[0], Shape{1, 1, 2, 2}, {5, 6, 9, 8});
  expect_tensor(out[1], Shape{1, 1, 2, 2}, {1, 5, 7, 8});
  a.set("storage_order", int64_t(1));  // indices counted column-major: h + w * H
  out = run_op("MaxPool", {x}, a, 2);
  expect_tensor(out[1], Shape{1, 1, 2, 2}, {3, 7, 5, 8});
  a.set("ceil_mode", int64_t(0));
  out = run_op("MaxPool", {x}, a, 2);
  expect_tensor(out[0], Shape{1, 1, 1, 1}, {5});
  // Ties keep the first maximum in the window.
  out = run_op("MaxPool", {f32({1, 1, 1, 3}, {4, 4, 4})}, attrs_of({{"kernel_shape", std::vector<int64_t>{1, 3}}}), 2);
  expect_tensor(out[1], Shape{1, 1, 1, 1}, {0});
}

TEST(CpuPool, AveragePoolCountIncludePad) {
  Tensor x = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  Attributes a = attrs_of({{"kernel_shape", std::vector<int64_t>{2, 2}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  auto out = run_op("AveragePool", {x}, a);
  expect_tensor(out[0], Shape{1, 1, 3, 3}, {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
  a.set("count_include_pad", int64_t(1));
  out = run_op("AveragePool", {x}, a);
  expect_tensor(out[0], Shape{1, 1, 3, 3}, {0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1});
}

TEST(CpuPool, MaxPool) {
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

TEST(CpuPool, MaxPoolCeilModeAndIndices) {
  Attributes a = ints({{"kernel_shape", {2}}, {"strides", {2}}});
  a.set("ceil_mode", int64_t(1));
  auto y = ReferenceNode().input(Tensor::from<float>({1, 1, 5}, {1, 3, 2, 0, 7})).run("MaxPool", a, 2);
  expect_values(y[0], {1, 1, 3}, {3, 2, 7});
  ASSERT_EQ(y[1].dtype(), DType::i64);
  expect_values(y[1], {1, 1, 3}, {1, 2, 4});
}

}  // namespace
}  // namespace vx::test

// The Relu reference kernel (cpu/reference/eltwise_unary.cpp) against values computed by hand.
// Cases run through the executor with the reference kernels only (ReferenceNode,
// tests/common/cpu_op_test_util.h), so attribute parsing and output shapes are covered too.
#include "common/cpu_op_test_util.h"
#include "common/test_util.h"

namespace vx::test {
namespace {

TEST(CpuEltwiseUnary, Relu) {
  auto y = ReferenceNode().input(Tensor::from<float>({4}, {-1, 0, 2.5f, -0.0f})).run("Relu", {});
  expect_values(y[0], {4}, {0, 0, 2.5, 0});
}

}  // namespace
}  // namespace vx::test

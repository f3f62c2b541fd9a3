// Hand-computed cases for the trickiest ONNX semantics of the MatMul and Gemm reference kernels
// (cpu/reference/matmul.cpp).
// Each kernel runs through a minimal KernelContext (tests/common/cpu_op_test_util.h); expected values
// were worked out by hand from the ONNX spec (and agree with onnx's reference implementation).
#include "common/cpu_op_test_util.h"
#include "common/test_util.h"

namespace vx::test {
namespace {

TEST(CpuMatMul, MatMulBroadcastsBatchesAndVectors) {
  // [2, 1, 2] x [2, 1] -> [2, 1, 1]; a 1-D left operand drops its row axis.
  auto out = run_op("MatMul", {f32({2, 1, 2}, {1, 2, 3, 4}), f32({2, 1}, {10, 1})});
  expect_tensor(out[0], Shape{2, 1, 1}, {12, 34});
  out = run_op("MatMul", {f32({2}, {1, 2}), f32({2, 2}, {1, 2, 3, 4})});
  expect_tensor(out[0], Shape{2}, {7, 10});
  auto g = run_op("Gemm", {f32({2, 1}, {1, 2}), f32({2, 1}, {3, 4}), f32({1}, {1})},
                  attrs_of({{"transA", int64_t(1)}, {"alpha", 2.0f}, {"beta", 0.5f}}));
  expect_tensor(g[0], Shape{1, 1}, {2 * (3 + 8) + 0.5});
}

}  // namespace
}  // namespace vx::test

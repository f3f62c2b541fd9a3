// Hand-computed cases for the trickiest ONNX semantics of the TopK reference kernel
// (cpu/reference/topk.cpp).
// Each kernel runs through a minimal KernelContext (tests/common/cpu_op_test_util.h); expected values
// were worked out by hand from the ONNX spec (and agree with onnx's reference implementation).
#include "common/cpu_op_test_util.h"
#include "common/test_util.h"

namespace vx::test {
namespace {

TEST(CpuTopK, TopKTiesKeepLowerIndex) {
  Tensor x = f32({5}, {3, 1, 3, 2, 3});
  auto out = run_op("TopK", {x, i64({2})}, {}, 2);
  expect_tensor(out[0], Shape{2}, {3, 3});
  expect_tensor(out[1], Shape{2}, {0, 2});
  out = run_op("TopK", {x, i64({3})}, attrs_of({{"largest", int64_t(0)}}), 2);
  expect_tensor(out[0], Shape{3}, {1, 2, 3});
  expect_tensor(out[1], Shape{3}, {1, 3, 0});
  // Along axis 0 of a matrix.
  out = run_op("TopK", {f32({2, 2}, {1, 5, 2, 5}), i64({1})}, attrs_of({{"axis", int64_t(0)}}), 2);
  expect_tensor(out[0], Shape{1, 2}, {2, 5});
  expect_tensor(out[1], Shape{1, 2}, {1, 0});
}

}  // namespace
}  // namespace vx::test

// Hand-computed cases for the trickiest ONNX semantics of the QuantizeLinear and DequantizeLinear
// reference kernels (cpu/reference/quantize.cpp).
// Each kernel runs through a minimal KernelContext (tests/common/cpu_op_test_util.h); expected values
// were worked out by hand from the ONNX spec (and agree with onnx's reference implementation).
#include "common/cpu_op_test_util.h"
#include "common/test_util.h"

namespace vx::test {
namespace {

TEST(CpuQuantize, DequantizePerAxisAndQuantizeRoundsHalfToEven) {
  Tensor q(DType::u8, Shape{2, 2});
  for (int i = 0; i < 4; ++i) q.set(i, 10 + i);
  Tensor zero(DType::u8, Shape{2});
  zero.set(0, 10);
  zero.set(1, 12);
  auto out = run_op("DequantizeLinear", {q, f32({2}, {0.5f, 2.0f}), zero}, attrs_of({{"axis", int64_t(0)}}));
  expect_tensor(out[0], Shape{2, 2}, {0, 0.5, 0, 2});
  Tensor z8(DType::u8, Shape{});
  out = run_op("QuantizeLinear", {f32({4}, {0.5f, 1.5f, 2.5f, 1000}), f32({}, {1}), z8});
  EXPECT_EQ(out[0].dtype(), DType::u8);
  expect_tensor(out[0], Shape{4}, {0, 2, 2, 255});
}

}  // namespace
}  // namespace vx::test

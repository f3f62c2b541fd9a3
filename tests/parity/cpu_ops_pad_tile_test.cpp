// Hand-computed cases for the trickiest ONNX semantics of the Pad reference kernel
// (cpu/reference/pad_tile.cpp).
// Each kernel runs through a minimal KernelContext (tests/common/cpu_op_test_util.h); expected values
// were worked out by hand from the ONNX spec (and agree with onnx's reference implementation).
#include "common/cpu_op_test_util.h"
#include "common/test_util.h"

namespace vx::test {
namespace {

TEST(CpuPadTile, PadReflectEdgeConstant) {
  Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  // reflect: 2 columns on the left, 1 on the right, no rows.
  auto out = run_op("Pad", {x, i64({0, 2, 0, 1})}, attrs_of({{"mode", std::string("reflect")}}));
  expect_tensor(out[0], Shape{2, 6}, {3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5});
  out = run_op("Pad", {x, i64({1, 0, 0, 2})}, attrs_of({{"mode", std::string("edge")}}));
  expect_tensor(out[0], Shape{3, 5}, {1, 2, 3, 3, 3, 1, 2, 3, 3, 3, 4, 5, 6, 6, 6});
  out = run_op("Pad", {x, i64({0, 1, 0, -1}), f32({}, {9})});  // negative pad crops
  expect_tensor(out[0], Shape{2, 3}, {9, 1, 2, 9, 4, 5});
  // Opset 2: attributes.
  out = run_op("Pad", {x}, attrs_of({{"pads", std::vector<int64_t>{1, 0, 0, 0}}, {"value", 7.0f}}), 1, 2);
  expect_tensor(out[0], Shape{3, 3}, {7, 7, 7, 1, 2, 3, 4, 5, 6});
}

}  // namespace
}  // namespace vx::test

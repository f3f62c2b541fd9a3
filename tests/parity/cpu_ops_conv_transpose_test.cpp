// Hand-computed cases for the trickiest ONNX semantics of the ConvTranspose reference kernel
// (cpu/reference/conv_transpose.cpp).
// Each kernel runs through a minimal KernelContext (tests/common/cpu_op_test_util.h); expected values
// were worked out by hand from the ONNX spec (and agree with onnx's reference implementation).
#include "common/cpu_op_test_util.h"
#include "common/test_util.h"

namespace vx::test {
namespace {

TEST(CpuConvTranspose, ConvTransposeOutputPaddingBiasAndGroups) {
  // 1-D: x = [1, 2], w = [1, 1], stride 2, output_padding 1: extent 2*(2-1) + 1 + 2 = 5; the
  // padded position receives only the bias.
  Attributes a = attrs_of({{"strides", std::vector<int64_t>{2}}, {"output_padding", std::vector<int64_t>{1}}});
  auto out = run_op("ConvTranspose", {f32({1, 1, 2}, {1, 2}), f32({1, 1, 2}, {1, 1}), f32({1}, {0.5f})}, a);
  expect_tensor(out[0], Shape{1, 1, 5}, {1.5, 1.5, 2.5, 2.5, 0.5});
  // Same with pads [1, 0]: the first output position is cropped.
  a.set("pads", std::vector<int64_t>{1, 0});
  out = run_op("ConvTranspose", {f32({1, 1, 2}, {1, 2}), f32({1, 1, 2}, {1, 1})}, a);
  expect_tensor(out[0], Shape{1, 1, 4}, {1, 2, 2, 0});
  // Two groups of one channel each: each output channel sees only its own input channel.
  out = run_op("ConvTranspose", {f32({1, 2, 1, 1}, {1, 2}), f32({2, 1, 1, 1}, {3, 5})},
               attrs_of({{"group", int64_t(2)}}));
  expect_tensor(out[0], Shape{1, 2, 1, 1}, {3, 10});
}

}  // namespace
}  // namespace vx::test

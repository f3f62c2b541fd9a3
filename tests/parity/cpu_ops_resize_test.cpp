// Hand-computed cases for the trickiest ONNX semantics of the Resize reference kernel
// (cpu/reference/resize.cpp).
// Each kernel runs through a minimal KernelContext (run_op, tests/common/cpu_op_test_util.h), the
// last cases through the executor with the reference kernels only (ReferenceNode); expected values
// were worked out by hand from the ONNX spec (and agree with onnx's reference implementation).
#include "common/cpu_op_test_util.h"
#include "common/test_util.h"

namespace vx::test {
namespace {

TEST(CpuResize, ResizeLinearAlignCorners) {
  Tensor x = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  Attributes a = attrs_of({{"mode", std::string("linear")},
                           {"coordinate_transformation_mode", std::string("align_corners")}});
  auto out = run_op("Resize", {x, Tensor(), Tensor(), i64({1, 1, 3, 3})}, a, 1, 13);
  expect_tensor(out[0], Shape{1, 1, 3, 3}, {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
  out = run_op("Resize", {x, Tensor(), f32({4}, {1, 1, 1.5f, 1.5f})}, a, 1, 13);
  expect_tensor(out[0], Shape{1, 1, 3, 3}, {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
  // half_pixel (the default) at 2x: coordinates -0.25, 0.25, 0.75, 1.25 clamp at the edges.
  a.set("coordinate_transformation_mode", std::string("half_pixel"));
  out = run_op("Resize", {f32({1, 2}, {0, 4}), Tensor(), f32({2}, {1, 2})}, a, 1, 13);
  expect_tensor(out[0], Shape{1, 4}, {0, 1, 3, 4});
}

TEST(CpuResize, ResizeNearestModes) {
  Tensor x = f32({4}, {10, 20, 30, 40});
  // Downsample 4 -> 2 with asymmetric: coordinates 0 and 2.
  Attributes a = attrs_of({{"coordinate_transformation_mode", std::string("asymmetric")}});
  auto out = run_op("Resize", {x, Tensor(), f32({1}, {0.5f})}, a, 1, 13);
  expect_tensor(out[0], Shape{2}, {10, 30});
  // half_pixel 4 -> 2 lands exactly between pixels (0.5 and 2.5), where the nearest modes differ.
  a.set("coordinate_transformation_mode", std::string("half_pixel"));
  out = run_op("Resize", {x, Tensor(), f32({1}, {0.5f})}, a, 1, 13);
  expect_tensor(out[0], Shape{2}, {10, 30});  // round_prefer_floor
  a.set("nearest_mode", std::string("round_prefer_ceil"));
  out = run_op("Resize", {x, Tensor(), f32({1}, {0.5f})}, a, 1, 13);
  expect_tensor(out[0], Shape{2}, {20, 40});
}

TEST(CpuResize, ResizeNearest2x) {
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

TEST(CpuResize, ResizeNearestSizesHalfPixel) {
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

}  // namespace
}  // namespace vx::test

// The Vulkan ScatterElements / Scatter / ScatterND (whichever registered op takes each case: the
// movement family's, or the ordered scatters for reductions) against the CPU reference kernels on
// lavapipe with validation on: every axis, negative and repeated indices, every reduction but
// "none" (with repeated indices ONNX leaves the winner undefined, and GPUs differ: the movement
// family's tests cover "none" with distinct indices), fp32,
// fp16 and int32 data. Tolerances: fp32 |d| <= 1e-6 + 1e-5 |ref|; fp16 storage |d| <= 1e-3 +
// 1e-2 |ref|; integers exact.
#include <gtest/gtest.h>

#include <cmath>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx::test {
namespace {

using vk::Precision;

class VulkanScatterOrdered : public VulkanOpTest {};

TEST_F(VulkanScatterOrdered, ScatterElementsEveryAxisAndReduction) {
  const Shape data{3, 4, 5}, upd{2, 3, 4};
  uint64_t seed = 1;
  for (int64_t axis : {0, 1, 2, -1})
    for (const char* reduction : {"add", "mul", "max", "min"}) {
      const int64_t extent = data[size_t(axis < 0 ? axis + 3 : axis)];
      Attributes a;
      a.set("axis", axis);
      a.set("reduction", std::string(reduction));
      // Repeated indices: the reductions apply every update (in ONNX's order).
      Tensor idx = test::random_int_tensor(upd, seed++, int(-extent), int(extent - 1));
      auto c = single_node("ScatterElements", {input(random_tensor(data, seed++)), input(idx), input(random_tensor(upd, seed++))},
                           1, a, 18);
      for (Precision p : {Precision::fp32, Precision::fp16})
        expect_matches_cpu(c, p, {-1, -1}, false, cat("ScatterElements axis ", axis, " ", reduction));
    }
  auto ci = single_node("ScatterElements", {input(test::random_int_tensor(Shape{4, 3}, 90, -9, 9, DType::i32)),
                                            input(test::random_int_tensor(Shape{2, 3}, 91, 0, 3)),
                                            input(test::random_int_tensor(Shape{2, 3}, 92, -9, 9, DType::i32))});
  expect_matches_cpu(ci, Precision::fp32, {-1, -1}, false, "ScatterElements int32");
  Attributes axis1;
  axis1.set("axis", int64_t(1));
  expect_matches_cpu(single_node("Scatter", {input(random_tensor(Shape{3, 5}, 93)), input(test::random_int_tensor(Shape{3, 2}, 94, 0, 4)),
                                             input(random_tensor(Shape{3, 2}, 95))},
                                 1, axis1, 10),
                     Precision::fp32, {-1, -1}, false, "Scatter opset 10");
}

TEST_F(VulkanScatterOrdered, ScatterNDTuplesAndSlices) {
  uint64_t seed = 200;
  for (const char* reduction : {"add", "mul", "max", "min"}) {
    Attributes a;
    a.set("reduction", std::string(reduction));
    // k = 1 (slices of 4x3), k = 2 (rows of 3), k = 3 (elements), repeated tuples included.
    const std::vector<std::pair<Shape, Shape>> cases = {{Shape{5, 1}, Shape{5, 4, 3}}, {Shape{2, 3, 2}, Shape{2, 3, 3}},
                                                        {Shape{7, 3}, Shape{7}}};
    for (const auto& [ishape, ushape] : cases) {
      const int64_t k = ishape[ishape.rank() - 1];
      Tensor idx = test::random_int_tensor(ishape, seed++, -2, 1);  // within every extent, negative ones too
      auto c = single_node("ScatterND", {input(random_tensor(Shape{3, 4, 3}, seed++)), input(idx),
                                         input(random_tensor(ushape, seed++))},
                           1, a, 18);
      for (Precision p : {Precision::fp32, Precision::fp16})
        expect_matches_cpu(c, p, {-1, -1}, false, cat("ScatterND k=", k, " ", reduction));
    }
  }
}

}  // namespace
}  // namespace vx::test

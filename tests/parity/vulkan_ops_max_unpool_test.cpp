// The Vulkan MaxUnpool against the CPU reference kernel on lavapipe with validation on: indices
// from MaxPool (overlapping windows repeat them: the last value wins), 1-D and 2-D, pads, a larger
// output_shape, fp32, fp16 and int32 values. Values are copied: compared exactly at fp32 (default
// tolerances).
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx::test {
namespace {

using vk::Precision;

class VulkanMaxUnpool : public VulkanOpTest {};

// Flat indices into `unpooled` with repeats, as MaxPool with overlapping windows produces.
Tensor indices(const Shape& pooled, const Shape& unpooled, uint64_t seed) {
  Tensor r = random_tensor(pooled, seed, 0, float(unpooled.numel()) - 0.01f);
  Tensor t(DType::i64, pooled);
  const int64_t per_channel = unpooled.numel() / (unpooled[0] * unpooled[1]);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int64_t channel = i / (pooled.numel() / (pooled[0] * pooled[1]));
    t.data<int64_t>()[i] = channel * per_channel + int64_t(r.get(i)) % per_channel;
  }
  t.data<int64_t>()[1] = t.data<int64_t>()[0];  // a repeat
  return t;
}

TEST_F(VulkanMaxUnpool, ShapesPadsAndOutputShape) {
  auto attrs = [](std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> pads) {
    Attributes a;
    a.set("kernel_shape", k);
    a.set("strides", s);
    if (!pads.empty()) a.set("pads", pads);
    return a;
  };
  // 2-D 2x2 stride 2: [2,3,3,4] -> [2,3,6,8]; 3x3 stride 2 pads 1: [1,2,4,4] -> [1,2,7,7]; 1-D.
  struct Case {
    Shape pooled, unpooled;
    Attributes a;
  };
  const std::vector<Case> cases = {{Shape{2, 3, 3, 4}, Shape{2, 3, 6, 8}, attrs({2, 2}, {2, 2}, {})},
                                   {Shape{1, 2, 4, 4}, Shape{1, 2, 7, 7}, attrs({3, 3}, {2, 2}, {1, 1, 1, 1})},
                                   {Shape{2, 2, 5}, Shape{2, 2, 11}, attrs({3}, {2}, {})}};
  uint64_t seed = 1;
  for (const Case& c : cases) {
    Tensor idx = indices(c.pooled, c.unpooled, seed++);
    auto sc = single_node("MaxUnpool", {input(random_tensor(c.pooled, seed++)), input(idx)}, 1, c.a, 11);
    for (Precision p : {Precision::fp32, Precision::fp16}) expect_matches_cpu(sc, p, {-1, -1}, false, cat("MaxUnpool ", c.pooled.str()));
    std::vector<int64_t> larger = c.unpooled.dims();
    larger.back() += 2;
    Tensor shape(DType::i64, Shape{int64_t(larger.size())});
    for (size_t d = 0; d < larger.size(); ++d) shape.data<int64_t>()[d] = larger[d];
    auto wide = single_node("MaxUnpool", {input(random_tensor(c.pooled, seed++)), input(idx), constant(shape)},
                            1, c.a, 11);
    expect_matches_cpu(wide, Precision::fp32, {-1, -1}, false, cat("MaxUnpool output_shape ", Shape(larger).str()));
  }
  Tensor ints(DType::i32, Shape{1, 1, 2, 2});
  for (int i = 0; i < 4; ++i) ints.data<int32_t>()[i] = 10 * i - 7;
  expect_matches_cpu(single_node("MaxUnpool", {input(ints), input(Tensor::from<int64_t>({1, 1, 2, 2}, {0, 3, 9, 14}))}, 1,
                                 attrs({2, 2}, {2, 2}, {}), 11),
                     Precision::fp32, {-1, -1}, false, "MaxUnpool int32");
}

}  // namespace
}  // namespace vx::test

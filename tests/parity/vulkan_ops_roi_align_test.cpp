// The Vulkan RoiAlign against the CPU reference kernel on lavapipe with validation on: avg and max,
// fixed and adaptive sampling, both coordinate transformation modes, regions reaching outside the
// image. Tolerances: fp32 |d| <= 1e-5 + 1e-5 |ref|; fp16 storage |d| <= 1e-2 + 1e-2 |ref| (roi
// coordinates stored in fp16).
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx::test {
namespace {

using vk::Precision;

class VulkanRoiAlign : public VulkanOpTest {};

TEST_F(VulkanRoiAlign, ModesSamplingAndTransforms) {
  Tensor x = random_tensor(Shape{2, 3, 9, 11}, 1, -2, 2);
  Tensor rois = Tensor::from<float>({4, 4}, {0.5f, 1.0f, 7.25f, 6.5f, -2.0f, -1.5f, 4.0f, 3.0f, 3.0f, 2.0f, 13.0f, 10.5f,
                                             5.0f, 5.0f, 5.5f, 5.25f});
  Tensor batch = Tensor::from<int64_t>({4}, {0, 1, 1, 0});
  for (const char* mode : {"avg", "max"})
    for (int64_t ratio : {0, 2})
      for (const char* transform : {"half_pixel", "output_half_pixel"}) {
        Attributes a;
        a.set("mode", std::string(mode));
        a.set("sampling_ratio", ratio);
        a.set("coordinate_transformation_mode", std::string(transform));
        a.set("output_height", int64_t(3));
        a.set("output_width", int64_t(4));
        a.set("spatial_scale", 0.75f);
        auto c = single_node("RoiAlign", {input(x), input(rois), input(batch)}, 1, a, 16);
        const std::string what = cat("RoiAlign ", mode, " ratio ", ratio, " ", transform);
        expect_matches_cpu(c, Precision::fp32, {1e-5, 1e-5}, false, what);
        expect_matches_cpu(c, Precision::fp16, {1e-2, 1e-2}, false, what);
      }
}

}  // namespace
}  // namespace vx::test

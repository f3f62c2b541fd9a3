// The Vulkan GridSample against the CPU reference kernel on lavapipe with validation on: every
// mode, padding mode and align_corners, grids reaching outside [-1, 1]. Tolerances: fp32
// |d| <= 1e-5 + 1e-5 |ref| (f32 coordinates against the CPU's double); fp16 storage
// |d| <= 1e-2 + 1e-2 |ref| (grid coordinates stored in fp16 move the taps).
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx::test {
namespace {

using vk::Precision;

class VulkanGridSample : public VulkanOpTest {};

TEST_F(VulkanGridSample, ModesPaddingsAlignCorners) {
  Tensor x = random_tensor(Shape{2, 3, 5, 7}, 1, -2, 2);
  Tensor grid = random_tensor(Shape{2, 4, 6, 2}, 2, -1.4f, 1.4f);
  for (const char* mode : {"bilinear", "nearest", "bicubic"})
    for (const char* padding : {"zeros", "border", "reflection"})
      for (int64_t align : {0, 1}) {
        Attributes a;
        a.set("mode", std::string(mode));
        a.set("padding_mode", std::string(padding));
        a.set("align_corners", align);
        auto c = single_node("GridSample", {input(x), input(grid)}, 1, a, 16);
        const std::string what = cat("GridSample ", mode, " ", padding, " align ", align);
        // Nearest rounds the sampling position: a coordinate within float rounding of a half
        // could pick the other neighbour, the random grid here avoids such ties.
        expect_matches_cpu(c, Precision::fp32, {1e-5, 1e-5}, false, what);
        expect_matches_cpu(c, Precision::fp16, {1e-2, 1e-2}, false, what);
      }
}

}  // namespace
}  // namespace vx::test

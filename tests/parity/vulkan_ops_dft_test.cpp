// The Vulkan DFT and STFT against the CPU reference kernels on lavapipe with validation on: real
// and complex inputs, every axis, inverse, onesided, dft_length padding and truncation, STFT with
// runtime frame_step / frame_length and a window. Tolerances: fp32 |d| <= 1e-4 + 1e-4 |ref| (f32
// sums of up to 32 terms of size ~1 against the CPU's double); fp16 storage |d| <= 2e-2 + 1e-2 |ref|.
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx::test {
namespace {

using vk::Precision;

class VulkanDft : public VulkanOpTest {};

TEST_F(VulkanDft, AxesInverseOnesidedAndLength) {
  uint64_t seed = 1;
  for (int64_t comps : {1, 2})
    for (int64_t axis : {1, 2, -2})
      for (int64_t inverse : {0, 1})
        for (int64_t onesided : {0, 1}) {
          if (onesided && (comps == 2 || inverse)) continue;  // onesided needs a real forward input
          Attributes a;
          a.set("axis", axis);
          a.set("inverse", inverse);
          a.set("onesided", onesided);
          Tensor x = random_tensor(Shape{2, 7, 5, comps}, seed++);
          const std::string what = cat("DFT comps ", comps, " axis ", axis, " inverse ", inverse, " onesided ", onesided);
          auto c = single_node("DFT", {input(x)}, 1, a, 17);
          expect_matches_cpu(c, Precision::fp32, {1e-4, 1e-4}, false, what);
          expect_matches_cpu(c, Precision::fp16, {1e-2, 2e-2}, false, what);
          for (int64_t length : {4, 9}) {
            auto cl = single_node("DFT", {input(x), constant(Tensor::from<int64_t>({}, {length}))}, 1, a, 17);
            expect_matches_cpu(cl, Precision::fp32, {1e-4, 1e-4}, false, cat(what, " length ", length));
          }
        }
}

TEST_F(VulkanDft, StftWithWindowOrFrameLength) {
  Tensor signal = random_tensor(Shape{2, 40, 1}, 50);
  for (int64_t onesided : {0, 1}) {
    Attributes a;
    a.set("onesided", onesided);
    auto c = single_node("STFT", {input(signal), input(Tensor::from<int64_t>({}, {6})), omitted(),
                                  input(Tensor::from<int64_t>({}, {10}))},
                         1, a, 17);
    expect_matches_cpu(c, Precision::fp32, {1e-4, 1e-4}, false, cat("STFT frame_length onesided ", onesided));
    expect_matches_cpu(c, Precision::fp16, {1e-2, 2e-2}, false, cat("STFT frame_length onesided ", onesided));
    auto w = single_node("STFT", {input(signal), input(Tensor::from<int64_t>({}, {7})), input(random_tensor(Shape{12}, 51, 0, 1))},
                         1, a, 17);
    expect_matches_cpu(w, Precision::fp32, {1e-4, 1e-4}, false, cat("STFT window onesided ", onesided));
  }
  auto complex = single_node("STFT", {input(random_tensor(Shape{1, 33, 2}, 52)), input(Tensor::from<int64_t>({}, {5})),
                                      omitted(), input(Tensor::from<int64_t>({}, {8}))},
                             1, [] { Attributes a; a.set("onesided", int64_t(0)); return a; }(), 17);
  expect_matches_cpu(complex, Precision::fp32, {1e-4, 1e-4}, false, "STFT complex");
}

}  // namespace
}  // namespace vx::test

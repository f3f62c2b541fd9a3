#include "common/measurement_aid_runs.h"

#include <gtest/gtest.h>

#include "backends/vulkan/vulkan_compute_device.h"
#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx::test {

std::string stderr_under_measurement_aid(const vk::VulkanContext& ctx, const char* knob, const Graph& g,
                                         const std::vector<Tensor>& feeds, const DeviceRunnerOptions& options, int runs,
                                         const std::function<void(int, const Profile&)>& each_run) {
  std::vector<Tensor> plain;
  {
    DeviceModelRunner runner(vk::compute_device(ctx), g, options);
    plain = runner.run(feeds);
  }
  EXPECT_TRUE(outputs_match(run_cpu_reference(g, feeds), plain, {1e-4, 1e-4}));
  ScopedEnv aid(knob, "1");
  testing::internal::CaptureStderr();
  {
    DeviceModelRunner runner(vk::compute_device(ctx), g, options);
    for (int i = 0; i < runs; ++i) {
      Profile profile;
      EXPECT_TRUE(outputs_match(plain, runner.run(feeds, &profile), {0.0, 0.0})) << knob << ", run " << i;
      if (each_run) each_run(i, profile);
    }
  }
  return testing::internal::GetCapturedStderr();
}

}  // namespace vx::test

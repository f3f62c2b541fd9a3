// VOLVOX_VK_WAIT=timeline (a measurement knob, context.h's waits_on_timeline): a context of our own
// learns that each submission is done from a timeline semaphore it signals instead of a fence. Runs
// from two threads on one context (the values must rise in submission order) give the CPU's results,
// under the validation layer, and the semaphore is released with the context.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "backends/vulkan/context.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "common/graph_builder.h"
#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "session/device_model_runner.h"

namespace vx {
namespace {

class VulkanTimelineWait : public test::VulkanOpTest {};

TEST_F(VulkanTimelineWait, RunsFromTwoThreadsMatchTheCpu) {
  if (!ctx().timeline_semaphore()) GTEST_SKIP() << "the device has no timeline semaphores";
  // Conv + Sigmoid + Conv + Relu, odd sizes: several dispatches and a constant upload a runner.
  test::GraphBuilder b;
  const ValueId x = b.input("x", Shape{1, 3, 9, 7});
  Attributes a;
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const ValueId c = b.node("Conv", {x, b.constant(test::random_tensor({5, 3, 3, 3}, 3, -0.5f, 0.5f))}, a);
  b.g.outputs = {b.node("Relu", {b.node("Conv", {b.node("Sigmoid", {c}), b.constant(test::random_tensor({4, 5, 3, 3}, 4))}, a)})};
  const std::vector<Tensor> feeds[2] = {{test::random_tensor({1, 3, 9, 7}, 5)}, {test::random_tensor({1, 3, 9, 7}, 6)}};
  const int live_before = vk::live_objects(vk::ObjectKind::Semaphore);
  {
    test::ScopedEnv wait("VOLVOX_VK_WAIT", "timeline");
    vk::ContextOptions co;
    co.validation = true;
    auto context = std::make_shared<const vk::VulkanContext>(co);
    ASSERT_TRUE(context->waits_on_timeline());
    EXPECT_EQ(vk::live_objects(vk::ObjectKind::Semaphore), live_before + 1);
    std::vector<std::vector<Tensor>> last(2);
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t)
      threads.emplace_back([&, t] {
        DeviceModelRunner runner(vk::compute_device(context), b.g, DeviceRunnerOptions{});
        for (int i = 0; i < 20; ++i) last[size_t(t)] = runner.run(feeds[t]);
      });
    for (std::thread& t : threads) t.join();
    for (int t = 0; t < 2; ++t)
      EXPECT_TRUE(test::outputs_match(test::run_cpu_reference(b.g, feeds[t]), last[size_t(t)], {1e-4, 1e-4})) << "thread " << t;
    for (const std::string& m : context->validation_messages()) ADD_FAILURE() << "validation: " << m;
  }
  EXPECT_EQ(vk::live_objects(vk::ObjectKind::Semaphore), live_before);
  // Without the knob: fences, no semaphore.
  test::ScopedEnv no_wait("VOLVOX_VK_WAIT", nullptr);
  vk::ContextOptions co;
  vk::VulkanContext plain(co);
  EXPECT_FALSE(plain.waits_on_timeline());
}

}  // namespace
}  // namespace vx

// DeviceModelRunner::last_memory_needs() reports the needs of the executable each run used: one
// just built, one found in the cache, and one rebuilt because a data-dependent shape changed (a
// refused one's are checked in vulkan_memory_limit_test.cpp). Under the validation layer.
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "session/device_model_runner.h"

namespace vx::test {
namespace {

constexpr int64_t kVulkanRunnerMemoryNeedsN = 4096;

// x -> NonZero (CPU: its output's extent depends on the data) -> Cast to float (GPU).
Graph vulkan_runner_memory_needs_graph() {
  Graph g;
  g.opsets[""] = 18;
  ValueId x = g.add_value("x", DType::f32, Shape{kVulkanRunnerMemoryNeedsN});
  g.inputs = {x};
  ValueId nz = g.add_value("nz", DType::i64, Shape{});
  ValueId f = g.add_value("f", DType::f32, Shape{});
  Attributes to_f32;
  to_f32.set("to", int64_t(1));
  g.add_node("NonZero", "nonzero", {x}, {nz});
  g.add_node("Cast", "cast", {nz}, {f}, to_f32);
  g.outputs = {f};
  return g;
}

// kVulkanRunnerMemoryNeedsN floats of which the first `nonzero` are 1.
Tensor vulkan_runner_memory_needs_input(int64_t nonzero) {
  Tensor t(DType::f32, Shape{kVulkanRunnerMemoryNeedsN});
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = i < nonzero ? 1.0f : 0.0f;
  return t;
}

class VulkanRunnerMemoryNeeds : public VulkanOpTest {};

TEST_F(VulkanRunnerMemoryNeeds, AreThoseOfTheExecutableEachRunUsed) {
  const Graph g = vulkan_runner_memory_needs_graph();
  DeviceModelRunner runner(vk::compute_device(ctx()), g);
  auto expect_last_executables_needs = [&](const char* what) {
    const MemoryNeeds expected = runner.last_executable()->memory_needs();
    EXPECT_GT(expected.total(), 0u) << what;
    EXPECT_EQ(runner.last_memory_needs().arena_bytes, expected.arena_bytes) << what;
    EXPECT_EQ(runner.last_memory_needs().other_bytes, expected.other_bytes) << what;
  };
  const Tensor few = vulkan_runner_memory_needs_input(10);
  EXPECT_TRUE(outputs_match(run_cpu_reference(g, {few}), runner.run({few}), {}));
  expect_last_executables_needs("built");
  const auto first = runner.last_executable();

  EXPECT_TRUE(outputs_match(run_cpu_reference(g, {few}), runner.run({few}), {}));
  EXPECT_EQ(runner.last_executable(), first);
  EXPECT_EQ(runner.cache().hits(), 1u);
  expect_last_executables_needs("cached");

  const Tensor many = vulkan_runner_memory_needs_input(kVulkanRunnerMemoryNeedsN - 10);
  EXPECT_TRUE(outputs_match(run_cpu_reference(g, {many}), runner.run({many}), {}));
  ASSERT_NE(runner.last_executable(), first);  // rebuilt for the new extent of nz
  EXPECT_GT(runner.last_executable()->memory_needs().total(), first->memory_needs().total());
  expect_last_executables_needs("rebuilt");
}

}  // namespace
}  // namespace vx::test

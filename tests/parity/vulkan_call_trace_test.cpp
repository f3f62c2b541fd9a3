// VOLVOX_VK_CALL_TRACE=1 (a measurement aid, call_trace.h): an executable with device timestamps
// prints, when it goes, one line of medians over its segment runs (host before the submit, submit
// and wait, host after; the command buffer's span and the part of it reported as device time), and
// its results stay those of a run without the trace. Under the validation layer.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "common/graph_builder.h"
#include "common/measurement_aid_runs.h"
#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx {
namespace {

class VulkanCallTrace : public test::VulkanOpTest {};

TEST_F(VulkanCallTrace, PrintsWhereTheWallClockWentAndChangesNoResult) {
  if (!ctx().info().timestamps) GTEST_SKIP() << "the device has no timestamps, which the trace needs";
  // Conv + Sigmoid + Relu: two dispatches with a barrier between them, odd sizes.
  test::GraphBuilder b;
  const ValueId x = b.input("x", Shape{1, 3, 9, 7});
  Attributes a;
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const ValueId c = b.node("Conv", {x, b.constant(test::random_tensor({5, 3, 3, 3}, 3, -0.5f, 0.5f))}, a);
  b.g.outputs = {b.node("Relu", {b.node("Conv", {b.node("Sigmoid", {c}), b.constant(test::random_tensor({4, 5, 3, 3}, 4))}, a)})};
  const std::vector<Tensor> feeds = {test::random_tensor({1, 3, 9, 7}, 5)};
  DeviceRunnerOptions o;
  o.timestamps = runtime::Timestamps::per_segment;
  const std::string printed = test::stderr_under_measurement_aid(ctx(), "VOLVOX_VK_CALL_TRACE", b.g, feeds, o, 3);
  const size_t at = printed.find("call trace, medians of 3 segment runs (us): host before submit ");
  ASSERT_NE(at, std::string::npos) << printed;
  double before = -1, wait = -1, after = -1, span = -1, timed = -1, beyond = -1, submitted = -1, word = -1, timeline = -2,
         fence = -1;
  ASSERT_EQ(std::sscanf(printed.c_str() + at,
                        "call trace, medians of 3 segment runs (us): host before submit %lf, submit + wait %lf, host "
                        "after %lf; command buffer %lf, of it timed %lf; submit + wait beyond the command buffer %lf; "
                        "from the submit: its return %lf, the last command's word seen %lf, the timeline semaphore "
                        "seen %lf, the fence seen %lf",
                        &before, &wait, &after, &span, &timed, &beyond, &submitted, &word, &timeline, &fence),
            10)
      << printed;
  EXPECT_GE(before, 0.0);
  EXPECT_GE(after, 0.0);
  EXPECT_GT(timed, 0.0);
  EXPECT_GE(span, timed) << "the command buffer holds the timed part";
  EXPECT_GE(wait, span) << "the host waited at least the command buffer's span";
  EXPECT_GT(submitted, 0.0);
  // The word is set by the last command: seen after the submit returned and the command buffer ran
  // (a median of each, so compared with a margin for the clocks' granularity), not after the fence.
  EXPECT_GE(word, submitted);
  EXPECT_GE(word, span - 1.0);
  EXPECT_LE(word, fence);
  EXPECT_LE(fence, wait);
  // The submit signals the semaphore once its commands are done: not before the command buffer ran,
  // not after the fence (-1 on a device without timeline semaphores).
  if (ctx().timeline_semaphore()) {
    EXPECT_GE(timeline, submitted);
    EXPECT_GE(timeline, span - 1.0);
    EXPECT_LE(timeline, fence);
  } else {
    EXPECT_EQ(timeline, -1.0);
  }
}

}  // namespace
}  // namespace vx

// VOLVOX_VK_DISPATCH_PROFILE=1 (a measurement aid, dispatch_profile.h): with per-node timestamps an
// executable prints, when it goes, each dispatch's mean GPU time over its runs but the first, a
// line per dispatch in recording order; the nodes' own times stay the sums of their dispatches' and
// the results those of a run without it. Under the validation layer.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "common/graph_builder.h"
#include "common/measurement_aid_runs.h"
#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx {
namespace {

class VulkanDispatchProfile : public test::VulkanOpTest {};

TEST_F(VulkanDispatchProfile, PrintsEachDispatchOfEachNode) {
  if (!ctx().info().timestamps) GTEST_SKIP() << "the device has no timestamps, which the profile needs";
  // A product with K split in 3 (the GEMM and its reduce pass: two dispatches), then a Relu (one).
  test::ScopedEnv split("VOLVOX_VK_SPLITK", "3"), gemm("VOLVOX_VK_GEMM", "tiled"),
      as_pass("VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS", "0");
  test::GraphBuilder b;
  const ValueId x = b.input("x", Shape{5, 300});
  const ValueId y = b.node("MatMul", {x, b.constant(test::random_tensor({300, 7}, 3))});
  b.g.outputs = {b.node("Relu", {y})};
  const std::vector<Tensor> feeds = {test::random_tensor({5, 300}, 4)};
  DeviceRunnerOptions o;
  o.timestamps = runtime::Timestamps::per_node;
  o.optimize = false;  // the Relu stays a node of its own
  std::vector<double> node_ms(2, 0.0);
  auto add_node_times = [&](int run, const Profile& p) {
    ASSERT_EQ(p.entries.size(), 2u);
    if (run == 0) return;  // as the dispatch profile: the first run is not counted
    for (size_t n = 0; n < 2; ++n) node_ms[n] += p.entries[n].milliseconds / 2.0;
  };
  const std::string printed =
      test::stderr_under_measurement_aid(ctx(), "VOLVOX_VK_DISPATCH_PROFILE", b.g, feeds, o, 3, add_node_times);
  std::vector<std::string> names;
  std::vector<double> us;
  std::istringstream lines(printed);
  for (std::string line; std::getline(lines, line);) {
    const std::string tag = "dispatch profile: ";
    if (line.rfind(tag, 0) != 0) continue;
    const size_t space = line.rfind(' ');
    names.push_back(line.substr(tag.size(), space - tag.size()));
    us.push_back(std::stod(line.substr(space + 1)));
  }
  ASSERT_EQ(names.size(), 3u) << printed;
  EXPECT_EQ(names[0].rfind(b.g.nodes[0].name + " #0 gemm.f32", 0), 0u) << names[0];
  EXPECT_EQ(names[1].rfind(b.g.nodes[0].name + " #1 gemm_reduce.f32", 0), 0u) << names[1];
  EXPECT_EQ(names[2].rfind(b.g.nodes[1].name + " #0 ", 0), 0u) << names[2];
  for (double t : us) EXPECT_GE(t, 0.0);
  // A node's time is its dispatches' (the printed means have two decimals of a microsecond).
  EXPECT_NEAR(us[0] + us[1], node_ms[0] * 1000.0, 0.02) << printed;
  EXPECT_NEAR(us[2], node_ms[1] * 1000.0, 0.01) << printed;
}

}  // namespace
}  // namespace vx

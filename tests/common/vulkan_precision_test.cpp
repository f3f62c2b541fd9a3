#include "common/vulkan_precision_test.h"

#include <algorithm>
#include <cmath>

#include "backends/vulkan/context.h"
#include "common/test_util.h"

namespace vx::test {

void VulkanPrecisionTest::SetUp() {
  VulkanOpTest::SetUp();
  if (IsSkipped()) return;
  if (GetParam() == Precision::fp16 && !ctx().fp16_enabled()) GTEST_SKIP() << "the device has no fp16 storage";
}

void VulkanPrecisionTest::check(const OneNode& c, const std::string& what, const std::string& variant) {
  const Precision precision = GetParam();
  std::vector<NodeInput> inputs;
  for (const Input& in : c.inputs) {
    Tensor v = in.value;
    if (v.defined() && precision == Precision::fp16) v = v.to(DType::f16).to(DType::f32);
    inputs.push_back({v, in.constant});
  }
  test::SingleNodeCase sc = test::single_node(c.op, inputs, c.outputs, c.attrs, c.opset);
  for (size_t i = 0; i < c.declared.size(); ++i) sc.graph.value(sc.graph.outputs[i]).shape = c.declared[i];
  const std::vector<Tensor> expected = test::run_cpu_reference(sc.graph, sc.inputs);
  const test::VulkanRun run = test::run_on_vulkan(ctx(), sc.graph, sc.inputs, precision);
  std::string placement;
  for (const runtime::NodePlacement& p : run.placements)
    if (p.op == c.op) placement = p.on_host ? "cpu: " + p.reason : p.variant;
  ASSERT_TRUE(run.all_on_gpu) << what << ": " << placement;
  if (!variant.empty()) {
    // On devices with fp16 cooperative matrices, large enough fp16 products take that kernel.
    std::string alt = variant;
    if (const size_t at = alt.find("tiled"); at != std::string::npos) alt.replace(at, 5, "coopmat");
    EXPECT_TRUE(placement.rfind(variant, 0) == 0 || placement.rfind(alt, 0) == 0)
        << what << ": variant " << placement << ", expected " << variant;
  }
  ASSERT_EQ(run.outputs.size(), expected.size()) << what;
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(run.outputs[i].shape(), expected[i].shape()) << what << " output " << i;
    double peak = 1.0;
    for (int64_t j = 0; j < expected[i].numel(); ++j) peak = std::max(peak, std::abs(expected[i].get(j)));
    const bool exact = expected[i].dtype() != DType::f32 && expected[i].dtype() != DType::f16;  // indices
    const double tol = exact ? 0.0 : (precision == Precision::fp16 ? 1e-2 : 1e-4) * peak;
    const double err = test::max_abs_diff(run.outputs[i].to(DType::f32), expected[i].to(DType::f32));
    EXPECT_LE(err, tol) << what << " (" << precision_name(precision) << ", " << placement << ") output " << i
                        << ": max abs error " << err;
  }
}

}  // namespace vx::test

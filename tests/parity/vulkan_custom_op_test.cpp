// The custom-op example on Vulkan: com.example.ScaledSwish registered through the public C++ API
// (include/volvox/custom_op.hpp) with a CPU kernel and the SPIR-V of
// tests/data/custom_ops/scaled_swish.comp (compiled by the build, loaded here as a user would),
// run inside a model next to a built-in op: the custom node runs on the GPU and matches the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>

#include "backends/vulkan/shader_registry.h"
#include "common/onnx_test_models.h"
#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "volvox/custom_op.hpp"
#include "volvox/volvox.hpp"

namespace vx {
namespace {

using test::scaled_swish;

std::vector<uint32_t> read_spirv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

void register_gpu_scaled_swish() {
  static std::once_flag once;
  std::call_once(once, [] {
    volvox::CustomOp op = test::scaled_swish_op("com.example.gpu");
    // The build compiles it next to the tests; $VOLVOX_CUSTOM_OP_SPIRV_DIR points elsewhere (a test
    // binary copied to another machine).
    const char* dir = std::getenv("VOLVOX_CUSTOM_OP_SPIRV_DIR");
    op.vulkan.spirv = read_spirv(std::string(dir ? dir : VOLVOX_CUSTOM_OP_SPIRV_DIR) + "/scaled_swish.spv");
    op.vulkan.launch = [](const std::vector<volvox::TensorInfo>& in, const std::vector<volvox::TensorInfo>&,
                          const volvox::OpAttributes& attrs) {
      int64_t count = 1;
      for (int64_t d : in[0].shape) count *= d;
      struct {
        uint32_t count;
        float alpha;
      } push{uint32_t(count), attrs.get_float("alpha", 1.0f)};
      volvox::VulkanLaunch launch;
      launch.push_constants.resize(sizeof(push));
      std::memcpy(launch.push_constants.data(), &push, sizeof(push));
      launch.groups = {uint32_t((count + 255) / 256), 1, 1};
      return launch;
    };
    volvox::register_custom_op(op);
  });
}

class VulkanCustomOp : public test::VulkanOpTest {
 protected:
  void SetUp() override {
    test::VulkanOpTest::SetUp();
    if (IsSkipped()) return;
    register_gpu_scaled_swish();
    ASSERT_TRUE(vk::find_shader("custom.com.example.gpu.ScaledSwish").size() > 0)
        << "the example's SPIR-V was not found (scaled_swish.spv in VOLVOX_CUSTOM_OP_SPIRV_DIR)";
  }
};

TEST_F(VulkanCustomOp, RunsOnTheGpuNextToABuiltInOp) {
  register_gpu_scaled_swish();
  // x -> ScaledSwish(alpha 1.5) -> s; y = Add(s, x): the custom kernel's output feeds a built-in one.
  Graph g;
  g.name = "custom";
  g.opsets[""] = 17;
  g.opsets["com.example.gpu"] = 1;
  const Shape shape{3, 5, 17};  // 255 elements: not a multiple of the workgroup size
  ValueId x = g.add_value("x", DType::f32, shape);
  ValueId s = g.add_value("s", DType::f32, Shape());
  ValueId y = g.add_value("y", DType::f32, Shape());
  g.inputs = {x};
  g.outputs = {y};
  Node swish;
  swish.op = "ScaledSwish";
  swish.domain = "com.example.gpu";
  swish.name = "swish";
  swish.inputs = {x};
  swish.outputs = {s};
  swish.attrs.set("alpha", 1.5f);
  g.nodes.push_back(swish);
  Node add;
  add.op = "Add";
  add.name = "add";
  add.inputs = {s, x};
  add.outputs = {y};
  g.nodes.push_back(add);

  Tensor input = test::random_tensor({3, 5, 17}, 7, -4.0f, 4.0f);
  test::VulkanRun run = test::run_on_vulkan(ctx(), g, {input}, Precision::fp32);
  std::string placements;
  for (const auto& p : run.placements) placements += cat(p.node, ": ", p.on_host ? "cpu" : "gpu", " ", p.reason, "\n");
  ASSERT_TRUE(run.all_on_gpu) << "every node must run on the GPU:\n" << placements;
  bool custom_on_gpu = false;
  for (const auto& p : run.placements)
    if (p.node == "swish") custom_on_gpu = !p.on_host && p.variant == "custom";
  EXPECT_TRUE(custom_on_gpu);
  ASSERT_EQ(run.outputs.size(), 1u);
  const float* in = input.data<float>();
  const float* out = run.outputs[0].data<float>();
  for (int64_t i = 0; i < input.numel(); ++i)
    EXPECT_NEAR(out[i], scaled_swish(in[i], 1.5f) + in[i], 1e-5f * (1.0f + std::fabs(in[i]))) << i;

  // fp16 storage: this kernel reads float32 only, so the executor runs it on the CPU (a counted
  // fallback) and the model still gives the answer within fp16 tolerance.
  test::VulkanRun half = test::run_on_vulkan(ctx(), g, {input}, Precision::fp16);
  bool custom_on_cpu = false;
  for (const auto& p : half.placements)
    if (p.node == "swish") custom_on_cpu = p.on_host && p.reason.find("fp16") != std::string::npos;
  EXPECT_TRUE(custom_on_cpu);
  EXPECT_TRUE(test::outputs_match(run.outputs, half.outputs, test::default_tolerance(Precision::fp16)));
}

// The same through the public API: a model loaded on the "vulkan" device from ONNX bytes.
TEST_F(VulkanCustomOp, PublicModelApiOnTheVulkanDevice) {
  register_gpu_scaled_swish();
  volvox::DeviceRef device("vulkan");
  const std::string bytes = test::custom_op_model("com.example.gpu", "ScaledSwish");
  volvox::Model model(device, bytes.data(), bytes.size());
  std::vector<float> x(30);
  for (size_t i = 0; i < x.size(); ++i) x[i] = -3.0f + 0.2f * float(i);
  model.set_input("x", x.data(), {2, 3, 5});
  model.execute();
  volvox::Model::Output y = model.output("y");
  ASSERT_EQ(y.shape, (std::vector<int64_t>{2, 3, 5}));
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(y.as<float>()[i], scaled_swish(x[i], 1.5f) + x[i], 1e-5f) << i;
  // fp16 storage (the custom op itself then runs on the CPU): fp16 rounding of x, s and y.
  model.set("precision", 2);
  model.execute();
  y = model.output("y");
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(y.as<float>()[i], scaled_swish(x[i], 1.5f) + x[i], 1e-2f * (1.0f + std::fabs(x[i]))) << i;
}

}  // namespace
}  // namespace vx

// The user's memory limit on Vulkan (DeviceRunnerOptions::max_memory_mb, the C API's
// "maxMemoryMB" on a Vulkan device): an executable whose activation arena plus its other device
// buffers (constants, staging) exceed the limit is refused before any device allocation with one
// line; under the limit the model runs and matches the CPU. Under the validation layer.
#include <gtest/gtest.h>

#include "common/onnx_test_models.h"
#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "formats/onnx_import.h"
#include "session/model_runner.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "session/device_model_runner.h"
#include "volvox/volvox.hpp"

namespace vx {
namespace {

constexpr int64_t kN = 262144;  // 1 MiB of floats

Graph sigmoid_exp_graph() {
  const std::string bytes = test::sigmoid_exp_model();
  return import_onnx_buffer(bytes.data(), bytes.size());
}

uint64_t mb_up(uint64_t bytes) { return (bytes + (1 << 20) - 1) >> 20; }

class VulkanMemoryLimit : public test::VulkanOpTest {};

TEST_F(VulkanMemoryLimit, ExecutableAboveTheLimitFailsWithOneLineAndBelowItRuns) {
  const Tensor x = test::random_tensor({kN}, 3);
  DeviceRunnerOptions o;
  o.max_memory_mb = 2;
  DeviceModelRunner limited(vk::compute_device(ctx()), sigmoid_exp_graph(), o);
  try {
    limited.run({x});
    FAIL() << "the executable ran under a 2 MB limit";
  } catch (const Error& e) {
    const MemoryNeeds needs = limited.last_memory_needs();
    EXPECT_EQ(e.code(), ErrorCode::OutOfMemory);
    EXPECT_GT(needs.arena_bytes, uint64_t(1) << 20);
    EXPECT_GT(needs.other_bytes, uint64_t(1) << 20);  // staging for x and y
    EXPECT_EQ(std::string(e.what()), cat("model needs a ", mb_up(needs.arena_bytes), " MB activation arena, plus ",
                                         mb_up(needs.other_bytes), " MB of other device buffers, for input shapes x=",
                                         kN, ", above the limit of 2 MB (maxMemoryMB)"));
  }
  EXPECT_EQ(limited.cache().size(), 0u);

  o.max_memory_mb = 64;
  DeviceModelRunner roomy(vk::compute_device(ctx()), sigmoid_exp_graph(), o);
  const std::vector<Tensor> y = roomy.run({x});
  EXPECT_EQ(roomy.last_memory_needs().total(), limited.last_memory_needs().total());
  EXPECT_EQ(roomy.last_executable()->memory_needs().total(), roomy.last_memory_needs().total());
  EXPECT_TRUE(test::outputs_match(ModelRunner(sigmoid_exp_graph()).run({x}), y, {1e-5, 1e-6}));

  // A lower limit applies to the executable already built.
  roomy.set_max_memory_mb(2);
  EXPECT_THROW(roomy.run({x}), Error);
}

TEST_F(VulkanMemoryLimit, CApiMaxMemoryMBOnAVulkanDevice) {
  volvox::DeviceRef device("vulkan");
  const std::string bytes = test::sigmoid_exp_model();
  volvox::Model model(device, bytes.data(), bytes.size());
  const Tensor x = test::random_tensor({kN}, 5);
  model.set_input("x", x.data<float>(), {kN});
  model.set("maxMemoryMB", 2);
  try {
    model.execute();
    FAIL() << "the executable ran under a 2 MB limit";
  } catch (const volvox::Exception& e) {
    EXPECT_EQ(e.code(), VX_ERROR_OUT_OF_MEMORY);
    EXPECT_NE(std::string(e.what()).find("for input shapes x=262144, above the limit of 2 MB (maxMemoryMB)"),
              std::string::npos)
        << e.what();
  }
  model.set("maxMemoryMB", 0);
  model.execute();
  EXPECT_EQ(model.output("y").shape, std::vector<int64_t>{kN});
}

}  // namespace
}  // namespace vx

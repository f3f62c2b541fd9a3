// The user's memory limit on the CPU (ModelRunnerOptions::max_memory_mb, the C API's
// "maxMemoryMB"): a plan whose activation arena exceeds it fails before the arena is allocated
// with one line naming the size, the input shapes and the limit; under it the model runs; the
// eager runner is no silent way around it. The Vulkan side is in tests/parity.
#include <gtest/gtest.h>

#include "common/onnx_test_models.h"
#include "common/test_util.h"
#include "formats/onnx_import.h"
#include "session/model_runner.h"
#include "volvox/volvox.hpp"

namespace vx {
namespace {

constexpr int64_t kN = 262144;  // 1 MiB of floats: the arena holds two such intermediates

Graph sigmoid_exp_graph() {
  const std::string bytes = test::sigmoid_exp_model();
  return import_onnx_buffer(bytes.data(), bytes.size());
}

std::string limit_message(uint64_t arena_bytes, int limit_mb) {
  return cat("model needs a ", (arena_bytes + (1 << 20) - 1) >> 20, " MB activation arena for input shapes x=", kN,
             ", above the limit of ", limit_mb, " MB (maxMemoryMB)");
}

TEST(MemoryLimit, CpuPlanAboveTheLimitFailsWithOneLineAndBelowItRuns) {
  const Tensor x = test::random_tensor({kN}, 3);
  ModelRunnerOptions o;
  o.max_memory_mb = 1;
  ModelRunner limited(sigmoid_exp_graph(), o);
  try {
    limited.run({x});
    FAIL() << "a 2 MB arena ran under a 1 MB limit";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::OutOfMemory);
    EXPECT_GT(limited.last_arena_bytes(), uint64_t(1) << 20);
    EXPECT_EQ(std::string(e.what()), limit_message(limited.last_arena_bytes(), 1));
  }
  EXPECT_EQ(limited.last_executable(), nullptr);  // refused before the arena existed

  o.max_memory_mb = 64;
  ModelRunner roomy(sigmoid_exp_graph(), o);
  const std::vector<Tensor> y = roomy.run({x});
  EXPECT_TRUE(roomy.last_run_planned()) << roomy.fallback_reason();
  EXPECT_EQ(roomy.last_arena_bytes(), limited.last_arena_bytes());
  EXPECT_LE(test::max_abs_diff(y.at(0), ModelRunner(sigmoid_exp_graph()).run({x}).at(0)), 0.0);

  // A lower limit applies to the plan already made.
  roomy.set_max_memory_mb(1);
  EXPECT_THROW(roomy.run({x}), Error);
  roomy.set_max_memory_mb(0);
  EXPECT_NO_THROW(roomy.run({x}));
}

TEST(MemoryLimit, EagerRunnerIsRefusedWhileALimitIsSet) {
  ModelRunnerOptions o;
  o.planned = false;
  o.max_memory_mb = 64;
  ModelRunner eager(sigmoid_exp_graph(), o);
  try {
    eager.run({test::random_tensor({5}, 4)});
    FAIL() << "the eager runner ran under a memory limit";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    EXPECT_NE(std::string(e.what()).find("cannot bound its memory"), std::string::npos) << e.what();
  }
  eager.set_max_memory_mb(0);
  EXPECT_NO_THROW(eager.run({test::random_tensor({5}, 4)}));
}

TEST(MemoryLimit, CApiMaxMemoryMB) {
  volvox::DeviceRef device("cpu");
  const std::string bytes = test::sigmoid_exp_model();
  volvox::Model model(device, bytes.data(), bytes.size());
  const Tensor x = test::random_tensor({kN}, 5);
  model.set_input("x", x.data<float>(), {kN});
  model.set("maxMemoryMB", 1);
  try {
    model.execute();
    FAIL() << "a 2 MB arena ran under a 1 MB limit";
  } catch (const volvox::Exception& e) {
    EXPECT_EQ(e.code(), VX_ERROR_OUT_OF_MEMORY);
    EXPECT_NE(std::string(e.what()).find("MB activation arena for input shapes x=262144, above the limit of 1 MB "
                                         "(maxMemoryMB)"),
              std::string::npos)
        << e.what();
  }
  model.set("maxMemoryMB", 64);
  model.execute();
  EXPECT_EQ(model.output("y").shape, std::vector<int64_t>{kN});
  try {
    model.set("maxMemoryMB", -1);
    FAIL() << "a negative limit was accepted";
  } catch (const volvox::Exception& e) {
    EXPECT_EQ(e.code(), VX_ERROR_INVALID_ARGUMENT);
  }
}

}  // namespace
}  // namespace vx

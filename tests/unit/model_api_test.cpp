// The public model API (include/volvox/model.h, volvox.hpp's volvox::Model) and custom ops
// (include/volvox/custom_op.hpp) on the CPU device: a model mixing a custom op with a built-in one
// loads, runs and gives the values computed here; bad use gives errors, not crashes.
#include <gtest/gtest.h>

#include <cmath>
#include <mutex>

#include "common/onnx_test_models.h"
#include "volvox/custom_op.hpp"
#include "volvox/volvox.hpp"

namespace {

using vx::test::scaled_swish;

void register_scaled_swish() {
  static std::once_flag once;
  std::call_once(once, [] { volvox::register_custom_op(vx::test::scaled_swish_op("com.example")); });
}

std::string swish_model(const std::string& custom_op = "ScaledSwish") {
  return vx::test::custom_op_model("com.example", custom_op);
}

std::vector<float> ramp(size_t n) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = -3.0f + 0.2f * float(i);
  return x;
}

TEST(ModelApi, CustomOpRunsOnTheCpuNextToBuiltInOps) {
  register_scaled_swish();
  volvox::DeviceRef device("cpu");
  const std::string bytes = swish_model();
  volvox::Model model(device, bytes.data(), bytes.size());
  EXPECT_EQ(model.input_names(), std::vector<std::string>{"x"});
  EXPECT_EQ(model.output_names(), std::vector<std::string>{"y"});
  const std::vector<float> x = ramp(30);
  model.set_input("x", x.data(), {2, 3, 5});
  model.execute();
  volvox::Model::Output y = model.output("y");
  ASSERT_EQ(y.type, VX_TYPE_FLOAT32);
  ASSERT_EQ(y.shape, (std::vector<int64_t>{2, 3, 5}));
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(y.as<float>()[i], scaled_swish(x[i], 1.5f) + x[i], 1e-6f) << i;
}

TEST(ModelApi, UnregisteredCustomOpFailsAtLoadNamingTheNode) {
  volvox::DeviceRef device("cpu");
  const std::string bytes = swish_model("NotRegistered");
  try {
    volvox::Model model(device, bytes.data(), bytes.size());
    FAIL() << "expected an error";
  } catch (const volvox::Exception& e) {
    EXPECT_EQ(e.code(), VX_ERROR_UNSUPPORTED);
    EXPECT_NE(std::string(e.what()).find("swish (com.example.NotRegistered)"), std::string::npos) << e.what();
  }
}

TEST(ModelApi, BadRegistrationsAreRejected) {
  register_scaled_swish();
  volvox::CustomOp op;
  op.domain = "com.example";
  op.op_type = "ScaledSwish";
  op.infer_outputs = [](const auto& in, const auto&) { return in; };
  op.cpu = [](const auto&, const auto&, const auto&) {};
  auto code_of = [](const volvox::CustomOp& o) {
    try {
      volvox::register_custom_op(o);
    } catch (const volvox::Exception& e) {
      return e.code();
    }
    return VX_ERROR_NONE;
  };
  EXPECT_EQ(code_of(op), VX_ERROR_INVALID_ARGUMENT);  // already registered
  op.op_type = "Other";
  op.domain = "";
  EXPECT_EQ(code_of(op), VX_ERROR_INVALID_ARGUMENT);  // reserved domain
  op.domain = "com.example";
  op.vulkan.spirv = {1, 2, 3, 4, 5, 6};
  op.vulkan.launch = [](const auto&, const auto&, const auto&) { return volvox::VulkanLaunch{}; };
  EXPECT_EQ(code_of(op), VX_ERROR_INVALID_ARGUMENT);  // not SPIR-V
  op.vulkan = {};
  op.cpu = nullptr;
  EXPECT_EQ(code_of(op), VX_ERROR_INVALID_ARGUMENT);  // no CPU kernel
}

TEST(ModelApi, MisuseGivesErrors) {
  register_scaled_swish();
  volvox::DeviceRef device("cpu");
  const std::string bytes = swish_model();
  volvox::Model model(device, bytes.data(), bytes.size());
  auto code_of = [](auto&& fn) {
    try {
      fn();
    } catch (const volvox::Exception& e) {
      return e.code();
    }
    return VX_ERROR_NONE;
  };
  EXPECT_EQ(code_of([&] { model.execute(); }), VX_ERROR_INVALID_ARGUMENT);  // x not set
  EXPECT_EQ(code_of([&] { model.output("y"); }), VX_ERROR_INVALID_ARGUMENT);  // no run yet
  const std::vector<float> x = ramp(30);
  EXPECT_EQ(code_of([&] { model.set_input("nope", x.data(), {2, 3, 5}); }), VX_ERROR_INVALID_ARGUMENT);
  // A shape the model's declaration rules out is refused when set.
  EXPECT_EQ(code_of([&] { model.set_input("x", x.data(), {2, 3, 4}); }), VX_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(code_of([&] { model.execute(); }), VX_ERROR_INVALID_ARGUMENT);  // x still not set
  model.set_input("x", x.data(), {2, 3, 5});
  model.execute();
  EXPECT_EQ(code_of([&] { model.output("s"); }), VX_ERROR_INVALID_ARGUMENT);  // not an output
  EXPECT_EQ(code_of([&] { model.set("precision", 2); }), VX_ERROR_UNSUPPORTED);  // fp16 on cpu
  const char garbage[] = "not a model";
  EXPECT_EQ(code_of([&] { volvox::Model bad(device, garbage, sizeof(garbage)); }), VX_ERROR_INVALID_FILE);
  // IO binding needs a Vulkan device: refused at execute, one line; host inputs work again after.
  EXPECT_EQ(code_of([&] { model.set_input_vulkan_buffer("x", {2, 3, 5}, 0, 0); }), VX_ERROR_INVALID_ARGUMENT);  // null buffer
  model.set_input_vulkan_buffer("x", {2, 3, 5}, 0x1234, 0);
  EXPECT_EQ(code_of([&] { model.execute(); }), VX_ERROR_UNSUPPORTED);
  EXPECT_EQ(code_of([&] { model.set_output_vulkan_buffer("nope", 0x1234, 0); }), VX_ERROR_INVALID_ARGUMENT);
  model.set_input("x", x.data(), {2, 3, 5});
  model.execute();
}

}  // namespace

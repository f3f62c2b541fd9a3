// The model C API's queries for bindings such as the Python package (include/volvox/model.h): the
// declared types and shapes of inputs and outputs (symbolic names kept), inputs checked against them
// when set, and per-node profiles of an execute, on the CPU and on Vulkan (lavapipe in CI).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/onnx_test_models.h"
#include "volvox/volvox.h"

namespace {

// The device's pending error (cleared), VX_ERROR_NONE when there is none; the message into `message`.
VXError take_model_error(VXDevice device, std::string* message = nullptr) {
  const char* text = nullptr;
  const VXError e = vxGetDeviceError(device, &text);
  if (message) *message = text ? text : "";
  return e;
}

struct DeclaredInfo {
  VXDataType type;
  std::vector<int64_t> dims;
  std::vector<std::string> names;
};

DeclaredInfo declared_input(VXModel model, size_t index, bool output = false) {
  VXDataType type{};
  const int64_t* dims = nullptr;
  const char* const* names = nullptr;
  size_t rank = 0;
  const bool ok = output ? vxGetModelOutputInfo(model, index, &type, &dims, &names, &rank)
                         : vxGetModelInputInfo(model, index, &type, &dims, &names, &rank);
  EXPECT_TRUE(ok);
  DeclaredInfo info{type, {}, {}};
  for (size_t i = 0; ok && i < rank; ++i) {
    info.dims.push_back(dims[i]);
    info.names.push_back(names[i]);
  }
  return info;
}

TEST(ModelQueryApi, InputsAndOutputsReportTheDeclaredTypesAndShapes) {
  VXDevice device = vxNewDevice("cpu", 0);
  ASSERT_NE(device, nullptr);
  const std::string bytes = vx::test::declared_shapes_model();
  VXModel model = vxNewModelFromMemory(device, bytes.data(), bytes.size());
  ASSERT_NE(model, nullptr);
  ASSERT_EQ(vxGetModelInputCount(model), 2u);
  DeclaredInfo x = declared_input(model, 0);
  EXPECT_EQ(x.type, VX_TYPE_FLOAT32);
  EXPECT_EQ(x.dims, (std::vector<int64_t>{-1, 3, -1}));
  EXPECT_EQ(x.names, (std::vector<std::string>{"batch", "", ""}));
  DeclaredInfo steps = declared_input(model, 1);
  EXPECT_EQ(steps.type, VX_TYPE_INT64);
  EXPECT_EQ(steps.dims, (std::vector<int64_t>{2}));
  EXPECT_EQ(steps.names, (std::vector<std::string>{""}));
  DeclaredInfo y = declared_input(model, 0, /*output=*/true);
  EXPECT_EQ(y.dims, (std::vector<int64_t>{-1, 3, -1}));
  EXPECT_EQ(y.names[0], "batch");
  EXPECT_EQ(declared_input(model, 1, true).type, VX_TYPE_INT64);
  // Out-pointers may be NULL.
  EXPECT_TRUE(vxGetModelInputInfo(model, 0, nullptr, nullptr, nullptr, nullptr));
  // Out of range: false and one error naming the count.
  std::string message;
  EXPECT_FALSE(vxGetModelOutputInfo(model, 2, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(take_model_error(device, &message), VX_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("output index 2 is out of range (the model has 2)"), std::string::npos) << message;
  EXPECT_FALSE(vxGetModelInputInfo(nullptr, 0, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(take_model_error(nullptr), VX_ERROR_INVALID_ARGUMENT);
  vxReleaseModel(model);
  vxReleaseDevice(device);
}

TEST(ModelQueryApi, InputsAreCheckedAgainstTheDeclarationWhenSet) {
  VXDevice device = vxNewDevice("cpu", 0);
  const std::string bytes = vx::test::declared_shapes_model();
  VXModel model = vxNewModelFromMemory(device, bytes.data(), bytes.size());
  ASSERT_NE(model, nullptr);
  const std::vector<float> x(2 * 3 * 4, -1.0f);
  const std::vector<int64_t> steps = {7, -9};
  std::string message;
  auto set_x = [&](std::vector<int64_t> shape, VXDataType type = VX_TYPE_FLOAT32) {
    vxSetModelInput(model, "x", type, shape.data(), shape.size(), x.data());
    return take_model_error(device, &message);
  };
  // The free extents take any size; the fixed one must be 3; the rank must be 3.
  EXPECT_EQ(set_x({2, 3, 4}), VX_ERROR_NONE) << message;
  EXPECT_EQ(set_x({4, 3, 2}), VX_ERROR_NONE) << message;
  EXPECT_EQ(set_x({2, 4, 3}), VX_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("input 'x' has shape [2, 4, 3] but the model declares [?, 3, ?] (dimension 1 must be 3)"),
            std::string::npos)
      << message;
  EXPECT_EQ(set_x({24}), VX_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("input 'x' has rank 1"), std::string::npos) << message;
  EXPECT_EQ(set_x({2, 3, 4}, VX_TYPE_INT32), VX_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("input 'x' is i32 but the model declares f32"), std::string::npos) << message;
  const int64_t steps_shape[] = {2};
  vxSetModelInput(model, "steps", VX_TYPE_INT64, steps_shape, 1, steps.data());
  EXPECT_EQ(take_model_error(device, &message), VX_ERROR_NONE) << message;
  // The last accepted x (4x3x2) runs.
  vxExecuteModel(model);
  ASSERT_EQ(take_model_error(device, &message), VX_ERROR_NONE) << message;
  VXDataType type{};
  const int64_t* shape = nullptr;
  size_t rank = 0;
  const void* data = nullptr;
  ASSERT_TRUE(vxGetModelOutput(model, "y", &type, &shape, &rank, &data));
  EXPECT_EQ(std::vector<int64_t>(shape, shape + rank), (std::vector<int64_t>{4, 3, 2}));
  EXPECT_EQ(static_cast<const float*>(data)[0], 0.0f);
  ASSERT_TRUE(vxGetModelOutput(model, "z", &type, &shape, &rank, &data));
  EXPECT_EQ(type, VX_TYPE_INT64);
  EXPECT_EQ(static_cast<const int64_t*>(data)[1], -9);
  vxReleaseModel(model);
  vxReleaseDevice(device);
}

// Profiles one execute on `kind`; the kernels must be that device's.
void expect_profile_of_every_node(const char* kind, const std::string& kernel_prefix) {
  VXDevice device = vxNewDevice(kind, 0);
  if (!device) {
    std::string why;
    take_model_error(nullptr, &why);
    GTEST_SKIP() << "no " << kind << " device: " << why;
  }
  const std::string bytes = vx::test::sigmoid_exp_model();
  VXModel model = vxNewModelFromMemory(device, bytes.data(), bytes.size());
  ASSERT_NE(model, nullptr);
  std::vector<float> x(1000, 0.5f);
  const int64_t shape[] = {1000};
  vxSetModelInput(model, "x", VX_TYPE_FLOAT32, shape, 1, x.data());
  vxExecuteModel(model);
  EXPECT_EQ(vxGetModelProfileCount(model), 0u);  // off by default
  vxSetModelInt(model, "profiling", 1);
  vxExecuteModel(model);
  std::string message;
  ASSERT_EQ(take_model_error(device, &message), VX_ERROR_NONE) << message;
  const size_t count = vxGetModelProfileCount(model);
  ASSERT_GE(count, 1u);
  double total = 0;
  for (size_t i = 0; i < count; ++i) {
    const char *node = nullptr, *op = nullptr, *kernel = nullptr;
    double ms = -1;
    ASSERT_TRUE(vxGetModelProfileEntry(model, i, &node, &op, &kernel, &ms));
    EXPECT_FALSE(std::string(node).empty());
    EXPECT_FALSE(std::string(op).empty());
    EXPECT_EQ(std::string(kernel).rfind(kernel_prefix, 0), 0u) << kernel;
    EXPECT_GE(ms, 0.0);
    total += ms;
  }
  EXPECT_GT(total, 0.0);
  EXPECT_FALSE(vxGetModelProfileEntry(model, count, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(take_model_error(device, &message), VX_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(message.find("out of range"), std::string::npos) << message;
  vxSetModelInt(model, "profiling", 2);
  EXPECT_EQ(take_model_error(device), VX_ERROR_INVALID_ARGUMENT);
  // Off again: the next execute leaves no profile.
  vxSetModelInt(model, "profiling", 0);
  vxExecuteModel(model);
  EXPECT_EQ(vxGetModelProfileCount(model), 0u);
  EXPECT_EQ(take_model_error(device, &message), VX_ERROR_NONE) << message;
  vxReleaseModel(model);
  vxReleaseDevice(device);
}

TEST(ModelQueryApi, ProfilingTimesEveryNodeOnTheCpu) { expect_profile_of_every_node("cpu", "cpu:"); }

TEST(ModelQueryApi, ProfilingTimesEveryNodeOnVulkan) { expect_profile_of_every_node("vulkan", "vulkan:"); }

}  // namespace

// The C API gives the same pixels as the C++ filter, and reports errors per device without throwing.
#include <cmath>

#include "common/test_util.h"
#include "denoise/denoise_helpers.h"
#include "volvox/volvox.h"
#include "volvox/volvox.hpp"

namespace vx {
namespace {

TEST(CApi, MatchesTheCppFilter) {
  const int W = 37, H = 29;
  test::DenoiseInputs in{Image(W, H, 3), Image(W, H, 3), Image(W, H, 3)};
  Tensor r = test::random_tensor({W * H * 3}, 3, 0.0f, 2.0f);
  for (size_t i = 0; i < in.color.pixels.size(); ++i) {
    in.color.pixels[i] = r.data<float>()[i];
    in.albedo.pixels[i] = 0.5f;
    in.normal.pixels[i] = i % 3 == 2 ? 1.0f : 0.0f;
  }
  const auto blob = test::random_weights_blob(UNetVariant::small, 9, 5);
  const Image expected = test::denoise_cpu(in, blob, true);

  std::vector<float> out(size_t(W) * H * 3, -1.0f);
  VXDevice dev = vxNewDevice("cpu", 0);
  ASSERT_NE(dev, nullptr);
  VXFilter f = vxNewFilter(dev, "RT");
  vxSetFilterImage(f, "color", in.color.pixels.data(), VX_FORMAT_FLOAT3, W, H, 0, 0);
  vxSetFilterImage(f, "albedo", in.albedo.pixels.data(), VX_FORMAT_FLOAT3, W, H, 0, 0);
  vxSetFilterImage(f, "normal", in.normal.pixels.data(), VX_FORMAT_FLOAT3, W, H, 0, 0);
  vxSetFilterImage(f, "output", out.data(), VX_FORMAT_FLOAT3, W, H, 0, 0);
  vxSetFilterBool(f, "hdr", true);
  vxSetFilterFloat(f, "inputScale", NAN);
  vxSetFilterWeights(f, blob.data(), blob.size());
  vxCommitFilter(f);
  vxExecuteFilter(f);
  const char* message = nullptr;
  EXPECT_EQ(vxGetDeviceError(dev, &message), VX_ERROR_NONE) << (message ? message : "");
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], expected.pixels[i]) << i;

  // Errors: recorded, first one kept, cleared when read.
  vxSetFilterBool(f, "hdrr", true);
  vxSetFilterInt(f, "quality", 7);
  EXPECT_EQ(vxGetDeviceError(dev, &message), VX_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(message).find("hdrr"), std::string::npos) << message;
  EXPECT_EQ(vxGetDeviceError(dev, nullptr), VX_ERROR_NONE);
  vxSetFilterWeights(f, blob.data(), 100);  // truncated
  vxCommitFilter(f);
  EXPECT_EQ(vxGetDeviceError(dev, &message), VX_ERROR_INVALID_FILE);
  vxReleaseFilter(f);
  vxReleaseDevice(dev);

  EXPECT_EQ(vxNewDevice("npu", 0), nullptr);
  EXPECT_EQ(vxGetDeviceError(nullptr, &message), VX_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(message).find("npu"), std::string::npos);
  vxExecuteFilter(nullptr);
  EXPECT_EQ(vxGetDeviceError(nullptr, nullptr), VX_ERROR_INVALID_ARGUMENT);
}

TEST(CApi, ProgressMonitorCancels) {
  const int W = 300, H = 300;
  std::vector<float> color(size_t(W) * H * 3, 0.5f), out(color.size());
  const auto blob = test::random_weights_blob(UNetVariant::small, 3, 5);
  volvox::DeviceRef dev("cpu");
  volvox::FilterRef f(dev);
  f.set_image("color", color.data(), VX_FORMAT_FLOAT3, W, H);
  f.set_image("output", out.data(), VX_FORMAT_FLOAT3, W, H);
  f.set("maxTileSize", 224);
  f.set_weights(blob.data(), blob.size());
  int calls = 0;
  vxSetFilterProgressMonitorFunction(
      nullptr, [](void*, double) { return true; }, nullptr);  // null filter: recorded, no crash
  EXPECT_EQ(vxGetDeviceError(nullptr, nullptr), VX_ERROR_INVALID_ARGUMENT);
  struct Ctx {
    int* calls;
  } ctx{&calls};
  // Cancel on the second call (after the first tile).
  VXFilter raw = vxNewFilter(dev.get(), "RT");
  vxSetFilterImage(raw, "color", color.data(), VX_FORMAT_FLOAT3, W, H, 0, 0);
  vxSetFilterImage(raw, "output", out.data(), VX_FORMAT_FLOAT3, W, H, 0, 0);
  vxSetFilterInt(raw, "maxTileSize", 224);
  vxSetFilterWeights(raw, blob.data(), blob.size());
  vxSetFilterProgressMonitorFunction(
      raw, [](void* p, double) { return ++*static_cast<Ctx*>(p)->calls < 2; }, &ctx);
  vxExecuteFilter(raw);
  EXPECT_EQ(vxGetDeviceError(dev.get(), nullptr), VX_ERROR_CANCELLED);
  EXPECT_EQ(calls, 2);
  vxReleaseFilter(raw);
  EXPECT_NO_THROW(f.execute());
  try {
    f.set("nope", 1);
    FAIL();
  } catch (const volvox::Exception& e) {
    EXPECT_EQ(e.code(), VX_ERROR_INVALID_ARGUMENT);
  }
}

// "temporal" 1 through the C API: the second frame moves toward the first one's output (still
// camera: zero motion), vxResetFilterHistory gives the per-frame output again, bad values are errors.
TEST(CApi, TemporalStageAndReset) {
  const int W = 40, H = 24;
  Tensor noise = test::random_tensor({2 * W * H * 3}, 9, 0.0f, 1.0f);
  std::vector<float> first(noise.data<float>(), noise.data<float>() + W * H * 3),
      second(noise.data<float>() + W * H * 3, noise.data<float>() + 2 * W * H * 3), out(size_t(W) * H * 3),
      motion(size_t(W) * H * 2, 0.0f), depth(size_t(W) * H, 1.0f);
  const auto blob = test::random_weights_blob(UNetVariant::small, 3, 5);
  volvox::DeviceRef dev("cpu");
  auto make_filter = [&](int temporal) {
    auto f = std::make_unique<volvox::FilterRef>(dev);
    f->set_weights(blob.data(), blob.size());
    f->set_image("output", out.data(), VX_FORMAT_FLOAT3, W, H);
    f->set_image("motion", motion.data(), VX_FORMAT_FLOAT2, W, H);
    f->set_image("depth", depth.data(), VX_FORMAT_FLOAT, W, H);
    f->set("temporal", temporal);
    f->set("temporalBlend", 0.5f);
    return f;
  };
  auto denoise = [&](volvox::FilterRef& f, std::vector<float>& color) {
    f.set_image("color", color.data(), VX_FORMAT_FLOAT3, W, H);
    f.execute();
    return out;
  };
  const std::vector<float> plain_second = denoise(*make_filter(0), second);
  auto temporal = make_filter(1);
  const std::vector<float> first_out = denoise(*temporal, first);
  const std::vector<float> stabilised = denoise(*temporal, second);
  temporal->reset_history();
  const std::vector<float> after_reset = denoise(*temporal, second);
  double moved = 0, reset_diff = 0, to_history = 0, plain_to_history = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    moved = std::max(moved, double(std::abs(stabilised[i] - plain_second[i])));
    reset_diff = std::max(reset_diff, double(std::abs(after_reset[i] - plain_second[i])));
    to_history += std::abs(stabilised[i] - first_out[i]);
    plain_to_history += std::abs(plain_second[i] - first_out[i]);
  }
  EXPECT_GT(moved, 1e-3);
  EXPECT_LT(to_history, 0.8 * plain_to_history) << "not moved toward the first frame's output";
  EXPECT_EQ(reset_diff, 0.0);

  VXFilter raw = vxNewFilter(dev.get(), "RT");
  vxSetFilterInt(raw, "temporal", 2);
  const char* message = nullptr;
  EXPECT_EQ(vxGetDeviceError(dev.get(), &message), VX_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(message).find("temporal must be 0 (off) or 1 (stabilize)"), std::string::npos) << message;
  vxSetFilterFloat(raw, "temporalBlend", -0.1f);
  EXPECT_EQ(vxGetDeviceError(dev.get(), nullptr), VX_ERROR_INVALID_ARGUMENT);
  vxReleaseFilter(raw);
  vxResetFilterHistory(nullptr);
  EXPECT_EQ(vxGetDeviceError(nullptr, nullptr), VX_ERROR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace vx

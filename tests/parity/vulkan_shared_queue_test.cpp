// One lock per VkQueue for every submission in the process (Vulkan requires vkQueueSubmit and
// vkQueueWaitIdle on one queue to be externally synchronised): a denoise Filter and an ONNX model
// on one Vulkan device run from two threads at once and give their single-threaded results with no
// validation message (the layer's thread checks report unsynchronised queue use); every submission
// waits for the context's queue lock; contexts over the same application queue share that lock.
// Tiny sizes: lavapipe in CI.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <future>

#include "backends/vulkan/context.h"
#include "common/graph_builder.h"
#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "denoise/denoise_helpers.h"
#include "denoise/filter.h"
#include "denoise_vulkan/vulkan_device.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "session/device_model_runner.h"

namespace vx {
namespace {

using namespace std::chrono_literals;

constexpr int kIterations = 6;

// A Filter (small U-Net, random weights, 19x13 color image) and a model (MatMul + Sigmoid) on one
// validated Vulkan device.
class VulkanSharedQueue : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      denoise::VulkanDeviceOptions o;
      o.validation = true;
      device_ = denoise::make_vulkan_device("vulkan", o);
    } catch (const Error& e) {
      GTEST_SKIP() << "no Vulkan device: " << e.what();
    }
    color_ = Image(kWidth, kHeight, 3);
    Tensor noise = test::random_tensor({int64_t(color_.pixels.size())}, 3, 0.0f, 1.0f);
    std::copy(noise.data<float>(), noise.data<float>() + noise.numel(), color_.pixels.begin());
    output_ = Image(kWidth, kHeight, 3);
    weights_ = test::random_weights_blob(UNetVariant::small, 3);
    filter_ = std::make_unique<denoise::Filter>(device_);
    filter_->set_image("color", test::view_of(color_));
    filter_->set_image("output", test::view_of(output_));
    filter_->params().precision = Precision::fp32;
    filter_->set_weights_blob(weights_);
    filter_->commit();

    test::GraphBuilder b;
    const ValueId x = b.input("x", {9, 24});
    const ValueId m = b.node("MatMul", {x, b.constant(test::random_tensor({24, 11}, 5))});
    b.g.outputs = {b.node("Sigmoid", {m})};
    feeds_ = b.feeds;
    runner_ = std::make_unique<DeviceModelRunner>(device_->compute_device(), b.g);
    seen_messages_ = denoise::vulkan_validation_messages(*device_).size();
  }
  void TearDown() override {
    if (!device_) return;
    const auto messages = denoise::vulkan_validation_messages(*device_);
    for (size_t i = seen_messages_; i < messages.size(); ++i) ADD_FAILURE() << "validation: " << messages[i];
    runner_.reset();
    filter_.reset();
  }

  std::vector<float> denoise() {
    filter_->execute();
    return output_.pixels;
  }
  Tensor model() { return runner_->run(feeds_).at(0); }

  static constexpr int kWidth = 19, kHeight = 13;
  std::shared_ptr<denoise::Device> device_;
  Image color_, output_;
  std::vector<std::byte> weights_;
  std::unique_ptr<denoise::Filter> filter_;
  std::vector<Tensor> feeds_;
  std::unique_ptr<DeviceModelRunner> runner_;
  size_t seen_messages_ = 0;
};

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

TEST_F(VulkanSharedQueue, FilterAndModelFromTwoThreadsGiveTheirSingleThreadedResults) {
  const std::vector<float> denoised = denoise();
  const Tensor modelled = model();
  auto filter_runs = std::async(std::launch::async, [&] {
    int same = 0;
    for (int i = 0; i < kIterations; ++i) same += denoise() == denoised;
    return same;
  });
  auto model_runs = std::async(std::launch::async, [&] {
    int same = 0;
    for (int i = 0; i < kIterations; ++i) same += same_bytes(model(), modelled);
    return same;
  });
  EXPECT_EQ(filter_runs.get(), kIterations);
  EXPECT_EQ(model_runs.get(), kIterations);
}

TEST_F(VulkanSharedQueue, FilterAndModelSubmitUnderTheDevicesQueueLock) {
  denoise();  // plans, pipelines and uploads made: what follows only submits
  model();
  std::unique_lock<std::mutex> lock = device_->compute_device()->lock_queue();
  auto filter_run = std::async(std::launch::async, [&] { denoise(); });
  auto model_run = std::async(std::launch::async, [&] { model(); });
  // Neither can finish without submitting; both finish once the lock is released.
  EXPECT_EQ(filter_run.wait_for(300ms), std::future_status::timeout);
  EXPECT_EQ(model_run.wait_for(1ms), std::future_status::timeout);
  lock.unlock();
  filter_run.get();
  model_run.get();
}

TEST(VulkanQueueLock, ContextsOnOneApplicationQueueShareIt) {
  std::string why;
  if (!test::vulkan_test_context(&why)) GTEST_SKIP() << "no Vulkan device: " << why;
  vk::ContextOptions o;
  o.pipeline_cache_dir = "none";
  vk::VulkanContext own(o);
  const vk::ExternalDevice external{own.instance(), own.physical_device(), own.device(), own.queue_family(), 0, false};
  vk::VulkanContext a(external, o), b(external, o);
  for (const vk::VulkanContext* other : {&b, &own}) {
    std::unique_lock<std::mutex> lock = a.lock_queue();
    auto locked = std::async(std::launch::async, [&] { (void)other->lock_queue(); });
    EXPECT_EQ(locked.wait_for(200ms), std::future_status::timeout);
    lock.unlock();
    locked.get();
  }
}

}  // namespace
}  // namespace vx

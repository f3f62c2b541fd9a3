// The filter's temporal stage (FilterParams::temporal) on the CPU and on a Vulkan device (lavapipe
// here): a stabilised sequence equals TemporalStabilizer applied to the per-frame outputs (the same
// code, so exactly), a reset starts over, half and strided outputs work, and bad inputs are one
// clear error.
#include <gtest/gtest.h>

#include <cmath>

#include "core/half.h"
#include "denoise/denoise_helpers.h"
#include "denoise/temporal_stabilizer.h"
#include "denoise_vulkan/vulkan_device.h"

namespace vx::denoise {
namespace {

struct Frame {
  Image color, albedo, normal, motion, depth;
};

// A textured wall panning right by 1.5 pixels a frame, with fresh noise in every frame.
Frame make_frame(int w, int h, int index) {
  Frame f{Image(w, h, 3), Image(w, h, 3), Image(w, h, 3), Image(w, h, 2), Image(w, h, 1)};
  uint64_t state = 0x9E3779B97F4A7C15ull * uint64_t(index + 1);
  auto noise = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return float(state >> 40) / float(1 << 24);
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float u = float(x) - 1.5f * float(index);
      for (int c = 0; c < 3; ++c) {
        const float base = 0.4f + 0.3f * std::sin(0.2f * u + float(c)) * std::cos(0.15f * float(y));
        f.albedo.at(x, y, c) = base;
        f.color.at(x, y, c) = base * (0.5f + noise());
        f.normal.at(x, y, c) = c == 2 ? 1.0f : 0.0f;
      }
      f.motion.at(x, y, 0) = -1.5f;  // the surface was 1.5 pixels to the left in the previous frame
      f.depth.at(x, y, 0) = 2.0f;
    }
  return f;
}

class FilterTemporal : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    try {
      if (GetParam() == "cpu") {
        device_ = Device::create("cpu");
      } else {
        VulkanDeviceOptions o;
        o.validation = true;
        device_ = make_vulkan_device("vulkan", o);
      }
    } catch (const Error& e) {
      GTEST_SKIP() << "no " << GetParam() << " device: " << e.what();
    }
  }
  // Runs `frames` through one filter; temporal stage on or off; a reset before frame `reset_at`.
  std::vector<Image> run(std::vector<Frame>& frames, TemporalMode mode, int reset_at = -1) {
    Filter filter(device_);
    filter.set_weights_blob(test::random_weights_blob(UNetVariant::small, 9, 3));
    filter.params().temporal = mode;
    std::vector<Image> outputs;
    for (size_t i = 0; i < frames.size(); ++i) {
      Frame& f = frames[i];
      Image out(f.color.width, f.color.height, 3);
      filter.set_image("color", test::view_of(f.color));
      filter.set_image("albedo", test::view_of(f.albedo));
      filter.set_image("normal", test::view_of(f.normal));
      filter.set_image("motion", image_view(f.motion));
      filter.set_image("depth", image_view(f.depth));
      filter.set_image("output", test::view_of(out));
      if (int(i) == reset_at) filter.reset_history();
      filter.execute();
      outputs.push_back(out);
    }
    return outputs;
  }
  std::shared_ptr<Device> device_;
};

TEST_P(FilterTemporal, StabilisesThePerFrameOutputsAndAResetStartsOver) {
  std::vector<Frame> frames;
  for (int i = 0; i < 4; ++i) frames.push_back(make_frame(37, 29, i));
  const std::vector<Image> per_frame = run(frames, TemporalMode::none);
  const std::vector<Image> stabilised = run(frames, TemporalMode::stabilize);
  TemporalStabilizer reference(0.8f);
  double changed = 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    const Image expected = reference.apply(per_frame[i], frames[i].motion, frames[i].depth, frames[i].normal);
    EXPECT_EQ(expected.pixels, stabilised[i].pixels) << "frame " << i;
    for (size_t k = 0; k < expected.pixels.size(); ++k)
      changed = std::max(changed, double(std::abs(expected.pixels[k] - per_frame[i].pixels[k])));
  }
  EXPECT_GT(changed, 1e-3) << "the history changed nothing: the test would not see a broken stage";

  const std::vector<Image> with_reset = run(frames, TemporalMode::stabilize, 2);
  EXPECT_EQ(with_reset[1].pixels, stabilised[1].pixels);
  EXPECT_EQ(with_reset[2].pixels, per_frame[2].pixels) << "after a reset the first frame passes through";
  EXPECT_NE(with_reset[3].pixels, per_frame[3].pixels);
}

// A half-float RGBA output with a row stride: the stage reads and writes it in place, to within
// fp16 rounding of the fp32 output.
TEST_P(FilterTemporal, HalfStridedOutput) {
  const int w = 23, h = 17;
  std::vector<Frame> frames = {make_frame(w, h, 0), make_frame(w, h, 1)};
  const std::vector<Image> expected = run(frames, TemporalMode::stabilize);
  Filter filter(device_);
  filter.set_weights_blob(test::random_weights_blob(UNetVariant::small, 9, 3));
  filter.params().temporal = TemporalMode::stabilize;
  const size_t row_stride = size_t(w) * 8 + 16;
  std::vector<uint16_t> out(row_stride / 2 * h, 0);
  for (Frame& f : frames) {
    filter.set_image("color", test::view_of(f.color));
    filter.set_image("albedo", test::view_of(f.albedo));
    filter.set_image("normal", test::view_of(f.normal));
    filter.set_image("motion", image_view(f.motion));
    filter.set_image("depth", image_view(f.depth));
    ImageView half{out.data(), PixelType::f16, 3, w, h, 8, row_stride};
    filter.set_image("output", half);
    filter.execute();
  }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) {
        const float got = half_to_float(out[(size_t(y) * row_stride) / 2 + size_t(x) * 4 + size_t(c)]);
        const float want = expected[1].at(x, y, c);
        ASSERT_NEAR(got, want, 2e-3 * std::max(1.0f, std::abs(want))) << x << "," << y << "," << c;
      }
}

TEST_P(FilterTemporal, MissingOrMismatchedGuidesAreOneClearError) {
  Frame f = make_frame(20, 18, 0);
  Image out(20, 18, 3), small_depth(19, 18, 1), one_channel(20, 18, 1);
  Filter filter(device_);
  filter.set_weights_blob(test::random_weights_blob(UNetVariant::small, 3, 3));
  filter.set_image("color", test::view_of(f.color));
  filter.set_image("output", test::view_of(out));
  filter.params().temporal = TemporalMode::stabilize;
  auto message = [&] {
    try {
      filter.commit();
      filter.execute();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message().find("needs the 'motion' and 'depth' images (motion is not set)"), std::string::npos) << message();
  filter.set_image("motion", image_view(f.motion));
  EXPECT_NE(message().find("(depth is not set)"), std::string::npos) << message();
  filter.set_image("depth", image_view(small_depth));
  EXPECT_NE(message().find("image 'depth' is 19x18 but 'output' is 20x18"), std::string::npos) << message();
  filter.set_image("depth", image_view(f.depth));
  filter.set_image("motion", image_view(one_channel));
  EXPECT_NE(message().find("it needs 2 (dx, dy in pixels)"), std::string::npos) << message();
  filter.set_image("motion", image_view(f.motion));
  filter.params().temporal_blend = 1.0f;
  EXPECT_NE(message().find("temporalBlend 1 must be in [0, 1)"), std::string::npos) << message();
  filter.params().temporal_blend = 0.5f;
  EXPECT_EQ(message(), "no error");
  Image gray(20, 18, 1), gray_out(20, 18, 1);
  filter.set_image("color", test::view_of(gray));
  filter.set_image("output", test::view_of(gray_out));
  EXPECT_NE(message().find("temporal denoising needs a colour output (3 channels), not 1"), std::string::npos)
      << message();
}

INSTANTIATE_TEST_SUITE_P(Devices, FilterTemporal, ::testing::Values("cpu", "vulkan"));

}  // namespace
}  // namespace vx::denoise

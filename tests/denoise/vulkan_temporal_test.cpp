// The filter's temporal stage on a Vulkan device for images in device buffers
// (denoise_vulkan/vulkan_temporal_stage.h) against the reference, TemporalStabilizer applied on the
// host to the same per-frame outputs: a camera pan with sub-pixel motion (Catmull-Rom), a moving
// foreground band whose trail is disoccluded (depth), a band whose normals turn between frames
// (normals on and off), a sky (depth 0), odd sizes, f32 and f16 outputs with strides and offsets,
// f16 guides, a reset in the middle and a change of size. Bad inputs are one clear error. lavapipe
// under the validation layers here (any message fails the test); skipped without Vulkan.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <tuple>

#include "denoise/denoise_helpers.h"
#include "denoise/temporal_stabilizer.h"
#include "denoise_vulkan/vulkan_device.h"
#include "runtime/buffer.h"
#include "runtime/device.h"

namespace vx::denoise {
namespace {

// fp32 outputs: the device computes the reference's formulas with fused multiply-adds and its own
// rounding; f16 outputs: one half-float step (the rounding of values that differ in the last bits).
constexpr double kTemporalFp32Tolerance = 1e-5;  // relative, absolute below 1
constexpr double kTemporalHalfTolerance = 1e-3;  // relative (2^-10 is one f16 step), absolute below 1e-3

// The scene's inputs of one frame (f32, packed), as TemporalStabilizer takes them.
struct TemporalSceneFrame {
  Image color, albedo, normal, motion, depth;
};

// Rows and columns of the scene's regions (frame i), so that the test can check each one's validity.
constexpr int kSkyRows = 3;                        // y < 3: no surface (depth 0)
constexpr int kTurningRow0 = 20, kTurningRow1 = 24;  // rows whose normals turn by ~37 degrees every frame
int band_x0(int frame) { return 8 + 3 * frame; }   // the foreground band: 6 columns moving 3 px right a frame
constexpr int kBandWidth = 6;

// A textured background panning by (1.3, 0.35) pixels a frame (sub-pixel: Catmull-Rom matters), in
// front of it a band moving by 3 pixels (what it leaves behind is disoccluded), with fresh noise.
TemporalSceneFrame make_temporal_scene_frame(int w, int h, int frame) {
  TemporalSceneFrame f{Image(w, h, 3), Image(w, h, 3), Image(w, h, 3), Image(w, h, 2), Image(w, h, 1)};
  uint64_t state = 0xD1B54A32D192ED03ull * uint64_t(frame + 3);
  auto noise = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return float(state >> 40) / float(1 << 24);
  };
  const float pan_x = 1.3f, pan_y = 0.35f, band_speed = 3.0f;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const bool band = x >= band_x0(frame) && x < band_x0(frame) + kBandWidth;
      const bool sky = !band && y < kSkyRows;
      const bool turned = !band && y >= kTurningRow0 && y < kTurningRow1 && frame % 2 == 1;
      const float u = band ? float(x) - band_speed * float(frame) : float(x) - pan_x * float(frame);
      const float v = band ? float(y) : float(y) - pan_y * float(frame);
      for (int c = 0; c < 3; ++c) {
        const float base = band ? 0.9f + 0.4f * std::sin(0.7f * v + float(c))
                                : 0.5f + 0.35f * std::sin(0.45f * u + float(c)) * std::cos(0.3f * v);
        f.albedo.at(x, y, c) = base;
        f.color.at(x, y, c) = base * (0.4f + 1.2f * noise());
      }
      const float n[3] = {turned ? 0.6f : 0.0f, 0.0f, turned ? 0.8f : 1.0f};
      for (int c = 0; c < 3; ++c) f.normal.at(x, y, c) = n[c];
      f.motion.at(x, y, 0) = band ? -band_speed : -pan_x;  // where the surface was in the previous frame
      f.motion.at(x, y, 1) = band ? 0.0f : -pan_y;
      f.depth.at(x, y, 0) = band ? 1.5f : sky ? 0.0f : 4.0f;
    }
  return f;
}

// An image in a chosen layout inside a byte array (the first `offset` bytes unused): the host copy
// for the reference filter and the contents of a device buffer for the device filter.
struct LaidOutImage {
  std::vector<uint8_t> bytes;
  uint64_t offset = 0;
  ImageView view;  // data points into bytes
  LaidOutImage(int w, int h, int channels, PixelType type, int pixel_elems, int row_pad_bytes, uint64_t offset_bytes)
      : offset(offset_bytes) {
    view.type = type;
    view.channels = channels;
    view.width = w;
    view.height = h;
    view.pixel_stride = size_t(pixel_elems) * view.element_size();
    view.row_stride = size_t(w) * view.pixel_stride + size_t(row_pad_bytes);
    bytes.assign(offset + view.row_stride * size_t(h), 0x5A);  // 0x5A5A: a value no stage may invent
    view.data = bytes.data() + offset;
  }
  LaidOutImage(const LaidOutImage& other) : bytes(other.bytes), offset(other.offset), view(other.view) {
    view.data = bytes.data() + offset;  // this copy's bytes
  }
  LaidOutImage& operator=(const LaidOutImage&) = delete;
  void store(const Image& image) const {
    for (int y = 0; y < view.height; ++y)
      for (int x = 0; x < view.width; ++x)
        for (int c = 0; c < view.channels; ++c) view.store(x, y, c, image.at(x, y, c));
  }
  Image load() const {
    Image image(view.width, view.height, view.channels);
    for (int y = 0; y < view.height; ++y)
      for (int x = 0; x < view.width; ++x)
        for (int c = 0; c < view.channels; ++c) image.at(x, y, c) = view.load(x, y, c);
    return image;
  }
};

// The same laid-out bytes in a device-local buffer of the filter's device.
struct DeviceCopy {
  std::shared_ptr<runtime::Buffer> buffer;
  DeviceImage image;
  DeviceCopy(const runtime::ComputeDevice& device, const LaidOutImage& host) {
    buffer = device.make_buffer(host.bytes.size(), runtime::BufferStorage::device);
    upload(host);
    image = {buffer->native_handle(), host.offset};
  }
  void upload(const LaidOutImage& host) { buffer->write(0, host.bytes.size(), host.bytes.data()); }
  void download(LaidOutImage& host) const { buffer->read(0, host.bytes.size(), host.bytes.data()); }
};

// The layouts of one sequence: the output's and the guides'.
struct TemporalLayouts {
  PixelType output_type = PixelType::f32;
  int output_pixel_elems = 3, output_row_pad = 0;
  uint64_t output_offset = 0;
  PixelType guide_type = PixelType::f32;  // motion and depth
  int motion_pixel_elems = 2;
};

class VulkanTemporal : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (device_ || !skip_.empty()) return;
    try {
      VulkanDeviceOptions o;
      o.validation = true;
      device_ = make_vulkan_device("vulkan", o);
    } catch (const Error& e) {
      skip_ = e.what();
    }
  }
  // Devices go before the process exits: the loader and layers must still be there to destroy them.
  static void TearDownTestSuite() {
    device_.reset();
    skip_.clear();
  }
  void SetUp() override {
    if (!device_) GTEST_SKIP() << "no Vulkan device: " << skip_;
    seen_ = vulkan_validation_messages(*device_).size();
  }
  void TearDown() override {
    if (!device_) return;
    auto m = vulkan_validation_messages(*device_);
    for (size_t i = seen_; i < m.size(); ++i) ADD_FAILURE() << "validation: " << m[i];
  }

  std::unique_ptr<Filter> make_filter(int input_channels, TemporalMode mode) {
    auto f = std::make_unique<Filter>(device_);
    f->set_weights_blob(test::random_weights_blob(UNetVariant::small, input_channels, 11));
    f->params().precision = Precision::fp32;
    f->params().temporal = mode;
    return f;
  }

  // Runs a sequence through two filters on the device: the reference's per-frame outputs (host
  // images, no temporal stage) and the device stage's (every image in a device buffer), with a
  // reset before frame `reset_at`. Checks every frame against TemporalStabilizer, and that the
  // scene's regions are what the test means them to be (history used, or not, where designed).
  void run_sequence(int w, int h, int frames, int input_channels, const TemporalLayouts& layouts, int reset_at) {
    const bool normals = input_channels == 9;
    const bool half_output = layouts.output_type == PixelType::f16;
    auto per_frame_filter = make_filter(input_channels, TemporalMode::none);
    auto device_filter = make_filter(input_channels, TemporalMode::stabilize);
    auto compute = device_->compute_device();
    auto laid_out_output = [&] {
      return LaidOutImage(w, h, 3, layouts.output_type, layouts.output_pixel_elems, layouts.output_row_pad,
                          layouts.output_offset);
    };
    LaidOutImage per_frame_out = laid_out_output(), device_out = laid_out_output();
    DeviceCopy device_out_buffer(*compute, device_out);
    TemporalStabilizer reference(0.8f);
    for (int i = 0; i < frames; ++i) {
      SCOPED_TRACE(cat("frame ", i));
      TemporalSceneFrame f = make_temporal_scene_frame(w, h, i);
      LaidOutImage color(w, h, 3, PixelType::f32, 3, 0, 0), albedo(w, h, 3, PixelType::f32, 3, 0, 0),
          normal(w, h, 3, PixelType::f32, 3, 0, 0);
      LaidOutImage motion(w, h, 2, layouts.guide_type, layouts.motion_pixel_elems, 8, 0),
          depth(w, h, 1, layouts.guide_type, 1, 4, 256 + 32);
      color.store(f.color), albedo.store(f.albedo), normal.store(f.normal), motion.store(f.motion), depth.store(f.depth);

      // The per-frame output: what the network writes before any temporal stage.
      per_frame_filter->set_image("color", color.view);
      per_frame_filter->set_image("albedo", albedo.view);
      if (normals) per_frame_filter->set_image("normal", normal.view);
      per_frame_filter->set_image("output", per_frame_out.view);
      per_frame_filter->execute();

      DeviceCopy color_d(*compute, color), albedo_d(*compute, albedo), normal_d(*compute, normal),
          motion_d(*compute, motion), depth_d(*compute, depth);
      device_filter->set_device_image("color", color.view, color_d.image);
      device_filter->set_device_image("albedo", albedo.view, albedo_d.image);
      if (normals) device_filter->set_device_image("normal", normal.view, normal_d.image);
      device_filter->set_device_image("motion", motion.view, motion_d.image);
      device_filter->set_device_image("depth", depth.view, depth_d.image);
      device_filter->set_device_image("output", device_out.view, device_out_buffer.image);
      if (i == reset_at) device_filter->reset_history();
      device_filter->execute();
      device_out_buffer.download(device_out);

      // The reference: the same per-frame output (as stored, f16 included) and the same guides
      // (as stored: f16 guides are rounded on both sides).
      if (i == reset_at) reference.reset();
      const Image per_frame = per_frame_out.load();
      const Image expected = reference.apply(per_frame, motion.load(), depth.load(), normals ? normal.load() : Image());
      const Image got = device_out.load();
      const double tolerance = half_output ? kTemporalHalfTolerance : kTemporalFp32Tolerance;
      const double floor = half_output ? 1e-3 : 1.0;
      int mismatches = 0;
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          for (int c = 0; c < 3; ++c) {
            const double want = expected.at(x, y, c), have = got.at(x, y, c);
            if (std::abs(have - want) > tolerance * std::max(floor, std::abs(want)) && ++mismatches <= 5)
              ADD_FAILURE() << "pixel " << x << "," << y << " channel " << c << ": device " << have << ", host "
                            << want << " (per-frame output " << per_frame.at(x, y, c) << ")";
          }
      EXPECT_EQ(mismatches, 0);
      // Channels past the third (alpha) are the caller's: never written.
      const ImageView& o = device_out.view;
      for (int y = 0; y < h && layouts.output_pixel_elems > 3; ++y)
        for (int x = 0; x < w; ++x) {
          const uint8_t* alpha = static_cast<const uint8_t*>(o.data) + size_t(y) * o.row_bytes() +
                                 size_t(x) * o.pixel_bytes() + 3 * o.element_size();
          for (size_t b = 0; b < o.element_size(); ++b) ASSERT_EQ(alpha[b], 0x5A) << x << "," << y;
        }

      // The regions as designed (so that the comparison above covers each case): history used in
      // the background, not where the band was, nor (normals on) where normals turned.
      const bool first = i == 0 || i == reset_at;
      int changed = 0, kept_where_invalid = 0, invalid = 0;
      for (int y = kSkyRows; y < h; ++y)
        for (int x = 2; x < w; ++x) {
          const bool band = x >= band_x0(i) && x < band_x0(i) + kBandWidth;
          const bool trail = x >= band_x0(i) - 2 && x < band_x0(i);  // covered by the band a frame ago
          const bool turned_row = y >= kTurningRow0 && y < kTurningRow1;
          float delta = 0;
          for (int c = 0; c < 3; ++c) delta = std::max(delta, std::abs(got.at(x, y, c) - per_frame.at(x, y, c)));
          if (!band && !trail && !turned_row && delta > 1e-3f) ++changed;
          if (!first && (trail || (normals && turned_row && !band))) {
            ++invalid;
            if (delta == 0) ++kept_where_invalid;
          }
        }
      if (first) {
        EXPECT_EQ(max_abs_difference(got, per_frame), 0.0) << "a first frame passes through";
      } else {
        EXPECT_GT(changed, 50) << "the history changed little: the test would not see a broken stage";
        EXPECT_EQ(kept_where_invalid, invalid) << "pixels without a valid history must keep the current output";
      }
    }
  }

  static double max_abs_difference(const Image& a, const Image& b) {
    double worst = 0;
    for (size_t k = 0; k < a.pixels.size(); ++k) worst = std::max(worst, double(std::abs(a.pixels[k] - b.pixels[k])));
    return worst;
  }

  static std::shared_ptr<Device> device_;
  static std::string skip_;
  size_t seen_ = 0;
};
std::shared_ptr<Device> VulkanTemporal::device_;
std::string VulkanTemporal::skip_;

TEST_F(VulkanTemporal, Fp32OutputWithNormalsMatchesTheHostStage) {
  run_sequence(37, 29, 4, 9, TemporalLayouts{}, -1);
}

// f16 RGBA output (alpha kept) with a row stride at an offset that is no multiple of the binding
// alignment, f16 guides with a 3-element motion pixel, a reset in the middle.
TEST_F(VulkanTemporal, HalfStridedOutputAndAResetMatchTheHostStage) {
  TemporalLayouts layouts;
  layouts.output_type = PixelType::f16;
  layouts.output_pixel_elems = 4;
  layouts.output_row_pad = 12;
  layouts.output_offset = 64 + 8;
  layouts.guide_type = PixelType::f16;
  layouts.motion_pixel_elems = 3;
  run_sequence(37, 29, 4, 9, layouts, 2);
}

// Without normals depth alone decides: the turning rows keep their history.
TEST_F(VulkanTemporal, Fp32StridedOutputWithoutNormalsMatchesTheHostStage) {
  TemporalLayouts layouts;
  layouts.output_pixel_elems = 4;
  layouts.output_row_pad = 20;
  layouts.output_offset = 4;
  run_sequence(31, 21, 3, 6, layouts, -1);
}

// A new size starts a new history: its first frame passes through, the next one is stabilised.
TEST_F(VulkanTemporal, ASizeChangeStartsANewHistory) {
  auto filter = make_filter(3, TemporalMode::stabilize);
  auto reference_filter = make_filter(3, TemporalMode::stabilize);  // host images: TemporalStage
  auto compute = device_->compute_device();
  for (const auto& [w, h, frame] : {std::tuple{24, 20, 0}, {24, 20, 1}, {29, 17, 2}, {29, 17, 3}}) {
    SCOPED_TRACE(cat(w, "x", h, " frame ", frame));
    TemporalSceneFrame f = make_temporal_scene_frame(w, h, frame);
    LaidOutImage color(w, h, 3, PixelType::f32, 3, 0, 0), motion(w, h, 2, PixelType::f32, 2, 0, 0),
        depth(w, h, 1, PixelType::f32, 1, 0, 0), out(w, h, 3, PixelType::f32, 3, 0, 0),
        host_out(w, h, 3, PixelType::f32, 3, 0, 0);
    color.store(f.color), motion.store(f.motion), depth.store(f.depth);
    DeviceCopy color_d(*compute, color), motion_d(*compute, motion), depth_d(*compute, depth), out_d(*compute, out);
    filter->set_device_image("color", color.view, color_d.image);
    filter->set_device_image("motion", motion.view, motion_d.image);
    filter->set_device_image("depth", depth.view, depth_d.image);
    filter->set_device_image("output", out.view, out_d.image);
    filter->execute();
    out_d.download(out);
    reference_filter->set_image("color", color.view);
    reference_filter->set_image("motion", motion.view);
    reference_filter->set_image("depth", depth.view);
    reference_filter->set_image("output", host_out.view);
    reference_filter->execute();
    EXPECT_LE(test::max_rel_diff(host_out.load(), out.load()), kTemporalFp32Tolerance);
  }
}

// The stage takes normals from a device buffer only: a frame whose normal is in host memory has
// none, and normals that appear or disappear start a new history (as on the host).
TEST_F(VulkanTemporal, NormalsAppearingOrDisappearingStartANewHistory) {
  const int w = 26, h = 22;
  auto filter = make_filter(9, TemporalMode::stabilize);
  auto per_frame_filter = make_filter(9, TemporalMode::none);
  auto compute = device_->compute_device();
  const bool normal_on_device[] = {true, false, true, true};
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(cat("frame ", i));
    TemporalSceneFrame f = make_temporal_scene_frame(w, h, i);
    LaidOutImage color(w, h, 3, PixelType::f32, 3, 0, 0), albedo(w, h, 3, PixelType::f32, 3, 0, 0),
        normal(w, h, 3, PixelType::f32, 3, 0, 0), motion(w, h, 2, PixelType::f32, 2, 0, 0),
        depth(w, h, 1, PixelType::f32, 1, 0, 0), out(w, h, 3, PixelType::f32, 3, 0, 0),
        per_frame_out(w, h, 3, PixelType::f32, 3, 0, 0);
    color.store(f.color), albedo.store(f.albedo), normal.store(f.normal), motion.store(f.motion), depth.store(f.depth);
    DeviceCopy color_d(*compute, color), albedo_d(*compute, albedo), normal_d(*compute, normal),
        motion_d(*compute, motion), depth_d(*compute, depth), out_d(*compute, out);
    filter->set_device_image("color", color.view, color_d.image);
    filter->set_device_image("albedo", albedo.view, albedo_d.image);
    if (normal_on_device[i]) filter->set_device_image("normal", normal.view, normal_d.image);
    else filter->set_image("normal", normal.view);
    filter->set_device_image("motion", motion.view, motion_d.image);
    filter->set_device_image("depth", depth.view, depth_d.image);
    filter->set_device_image("output", out.view, out_d.image);
    filter->execute();
    out_d.download(out);
    per_frame_filter->set_image("color", color.view);
    per_frame_filter->set_image("albedo", albedo.view);
    per_frame_filter->set_image("normal", normal.view);
    per_frame_filter->set_image("output", per_frame_out.view);
    per_frame_filter->execute();
    const double difference = test::max_rel_diff(per_frame_out.load(), out.load());
    if (i < 3) EXPECT_EQ(difference, 0.0) << "the first frame of a history passes through";
    else EXPECT_GT(difference, 1e-3) << "normals on device in two frames in a row: stabilised";
  }
}

// Each bad input is one clear error, and a refused frame leaves the history as it was: the next
// good frame is stabilised against the last good one, as on the host.
TEST_F(VulkanTemporal, BadInputsAreOneClearErrorAndKeepTheHistory) {
  const int w = 20, h = 18;
  auto compute = device_->compute_device();
  auto filter = make_filter(3, TemporalMode::stabilize);
  auto host_filter = make_filter(3, TemporalMode::stabilize);  // host images: the reference
  struct Images {
    LaidOutImage color, motion, depth, out, host_out;
    DeviceCopy color_d, motion_d, depth_d, out_d;
  };
  auto frame_images = [&](int index) {
    TemporalSceneFrame f = make_temporal_scene_frame(w, h, index);
    LaidOutImage color(w, h, 3, PixelType::f32, 3, 0, 0), motion(w, h, 2, PixelType::f32, 2, 0, 0),
        depth(w, h, 1, PixelType::f32, 1, 0, 0), out(w, h, 3, PixelType::f32, 3, 0, 0);
    color.store(f.color), motion.store(f.motion), depth.store(f.depth);
    return std::make_unique<Images>(Images{color, motion, depth, out, out, DeviceCopy(*compute, color),
                                           DeviceCopy(*compute, motion), DeviceCopy(*compute, depth),
                                           DeviceCopy(*compute, out)});
  };
  auto set_frame = [&](Images& im) {
    filter->set_device_image("color", im.color.view, im.color_d.image);
    filter->set_device_image("motion", im.motion.view, im.motion_d.image);
    filter->set_device_image("depth", im.depth.view, im.depth_d.image);
    filter->set_device_image("output", im.out.view, im.out_d.image);
    host_filter->set_image("color", im.color.view);
    host_filter->set_image("motion", im.motion.view);
    host_filter->set_image("depth", im.depth.view);
    host_filter->set_image("output", im.host_out.view);
  };
  auto message = [&] {
    try {
      filter->execute();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto frame0 = frame_images(0), frame1 = frame_images(1);
  set_frame(*frame0);
  filter->execute();
  host_filter->execute();

  set_frame(*frame1);
  // The motion vectors in host memory while the output is in a device buffer.
  filter->set_image("motion", frame1->motion.view);
  EXPECT_NE(message().find("image 'motion' is in host memory but 'output' is in a device buffer: the temporal stage "
                           "needs them in the same place"),
            std::string::npos)
      << message();
  // An offset the shaders cannot address (f32 elements at a 2-byte offset).
  filter->set_device_image("motion", frame1->motion.view, {frame1->motion_d.image.buffer, 2});
  EXPECT_NE(message().find("image 'motion' in a Vulkan buffer: offset 2 and strides must be multiples of the element "
                           "size (4 bytes)"),
            std::string::npos)
      << message();
  // A one-channel output has no colour to stabilise (the filter says so before the device stage would).
  LaidOutImage grey(w, h, 1, PixelType::f32, 1, 0, 0);
  DeviceCopy grey_d(*compute, grey);
  filter->set_device_image("motion", frame1->motion.view, frame1->motion_d.image);
  filter->set_device_image("output", grey.view, grey_d.image);
  EXPECT_NE(message().find("temporal denoising needs a colour output (3 channels), not 1"), std::string::npos)
      << message();

  filter->set_device_image("output", frame1->out.view, frame1->out_d.image);
  EXPECT_EQ(message(), "no error");
  EXPECT_GT(filter->stats().ms_temporal, 0.0);
  host_filter->execute();
  frame1->out_d.download(frame1->out);
  const Image host = frame1->host_out.load(), device = frame1->out.load();
  EXPECT_LE(test::max_rel_diff(host, device), kTemporalFp32Tolerance);
  // Frame 1 was stabilised (not a first frame), so the comparison saw the kept history.
  Image unstabilised(w, h, 3);
  auto plain = make_filter(3, TemporalMode::none);
  plain->set_image("color", frame1->color.view);
  plain->set_image("output", image_view(unstabilised));
  plain->execute();
  EXPECT_GT(test::max_rel_diff(unstabilised, device), 1e-3);
}

}  // namespace
}  // namespace vx::denoise

// The Vulkan filter's whole-image path (processing, autoexposure and tiles on the device) against the
// CPU filter: odd sizes, strided f16/f32 images with NaN/Inf pixels, 1-channel output, in-place
// filtering; interactive mode (tiles sized from an injected clock, cancellable, equal to untiled);
// memory limits and device loss reported as vx::Error (device loss injected through the failure
// hook: lavapipe never loses its device). Validation layer on: any message fails the test.
#include <cmath>
#include <cstring>
#include <random>

#include "common/test_util.h"
#include "core/half.h"
#include "denoise/autoexposure.h"
#include "denoise/denoise_helpers.h"
#include "denoise_vulkan/vulkan_adaptive_tiles.h"
#include "denoise_vulkan/vulkan_device.h"
#include "denoise_vulkan/vulkan_image_runner.h"
#include "runtime/device.h"
#include "volvox/volvox.h"

namespace vx {
namespace {

using test::max_rel_diff;

using denoise::ImageView;
using denoise::PixelType;

using test::kFp32Tolerance;
constexpr double kHostileFp32Tolerance = 5e-4;  // images with 1e6 and NaN pixels (see the test)

// An image in caller-chosen layout, and a float copy of its pixels for the CPU filter.
struct Strided {
  std::vector<uint8_t> bytes;
  ImageView view;
  Strided(int w, int h, int channels, PixelType type, int extra_elems, int extra_row) {
    view.type = type;
    view.channels = channels;
    view.width = w;
    view.height = h;
    const size_t e = type == PixelType::f32 ? 4 : 2;
    view.pixel_stride = (size_t(channels) + size_t(extra_elems)) * e;
    view.row_stride = size_t(w) * view.pixel_stride + size_t(extra_row);
    bytes.assign(view.row_stride * size_t(h), 0x5A);
    view.data = bytes.data();
  }
  // The same pixels, packed f32 with the same channel count (what the CPU filter gets).
  Image packed() const {
    Image img(view.width, view.height, view.channels);
    for (int y = 0; y < view.height; ++y)
      for (int x = 0; x < view.width; ++x)
        for (int c = 0; c < view.channels; ++c)
          img.pixels[(size_t(y) * view.width + x) * view.channels + c] = view.load(x, y, c);
    return img;
  }
};

// hostile: some NaN, -3 and 1e6 pixels, and +-Inf unless finite_only (an Inf colour pixel makes an
// HDR output overflow to Inf on both sides: nothing left to compare).
void fill(Strided& img, uint64_t seed, float lo, float hi, bool hostile, bool finite_only = false) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  const float specials[] = {NAN, -3.0f, 1e6f, INFINITY, -INFINITY};
  for (int y = 0; y < img.view.height; ++y)
    for (int x = 0; x < img.view.width; ++x)
      for (int c = 0; c < img.view.channels; ++c) {
        float base = 0.5f + 0.4f * std::sin(0.11f * float(x + 5 * c)) * std::cos(0.07f * float(y));
        float v = base * (hi - lo) + lo + 0.1f * d(rng);
        if (hostile && rng() % 31 == 0) v = specials[rng() % (finite_only ? 3 : 5)];
        img.view.store(x, y, c, v);
      }
}

class VulkanImagePath : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (device_ || !skip_.empty()) return;
    try {
      denoise::VulkanDeviceOptions o;
      o.validation = true;
      device_ = denoise::make_vulkan_device("vulkan", o);
      o.device_processing = false;
      host_processing_ = denoise::make_vulkan_device("vulkan", o);
      cpu_ = denoise::Device::create("cpu");
    } catch (const Error& e) {
      skip_ = e.what();
    }
  }
  // Devices go before the process exits: the loader and layers must still be there to destroy them.
  static void TearDownTestSuite() {
    device_.reset();
    host_processing_.reset();
    cpu_.reset();
    skip_.clear();
  }
  void SetUp() override {
    if (!device_) GTEST_SKIP() << "no Vulkan device: " << skip_;
    seen_ = denoise::vulkan_validation_messages(*device_).size();
  }
  void TearDown() override {
    denoise::set_vulkan_failure_hook({});
    if (!device_) return;
    auto m = denoise::vulkan_validation_messages(*device_);
    for (size_t i = seen_; i < m.size(); ++i) ADD_FAILURE() << "validation: " << m[i];
  }

  static std::unique_ptr<denoise::Filter> filter(const std::shared_ptr<denoise::Device>& dev,
                                                 std::span<const std::byte> weights, bool hdr, bool srgb = false) {
    auto f = std::make_unique<denoise::Filter>(dev);
    f->params().hdr = hdr;
    f->params().srgb = srgb;
    f->params().precision = dev == cpu_ ? std::nullopt : std::optional(Precision::fp32);
    f->set_weights_blob(weights);
    return f;
  }

  static std::shared_ptr<denoise::Device> device_, cpu_, host_processing_;
  static std::string skip_;
  size_t seen_ = 0;
};
std::shared_ptr<denoise::Device> VulkanImagePath::device_, VulkanImagePath::cpu_, VulkanImagePath::host_processing_;
std::string VulkanImagePath::skip_;

TEST_F(VulkanImagePath, HostileStridedInputsMatchCpu) {
  struct Case {
    int ic;
    bool hdr, srgb;
    int color_channels;
    PixelType color_type;
    int out_channels;
    PixelType out_type;
  };
  const Case cases[] = {
      {9, true, false, 3, PixelType::f32, 3, PixelType::f32},   // autoexposure on the device
      {6, false, false, 2, PixelType::f16, 1, PixelType::f32},  // sRGB curve, 1-channel output
      {3, false, true, 1, PixelType::f32, 3, PixelType::f16},   // linear, f16 output
  };
  const int W = 37, H = 23;
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(cat("case ", n, " ic ", c.ic));
    Strided color(W, H, c.color_channels, c.color_type, 1, 8);  // an alpha channel and padded rows
    Strided albedo(W, H, 3, PixelType::f16, 0, 2);
    Strided normal(W, H, 3, PixelType::f32, 1, 0);
    fill(color, 10 + n, 0.0f, c.hdr ? 8.0f : 1.0f, true, c.hdr);
    fill(albedo, 20 + n, 0.0f, 1.0f, true);
    fill(normal, 30 + n, -1.0f, 1.0f, true);
    const auto weights = test::random_weights_blob(UNetVariant::small, c.ic, 40 + n);

    Image color_p = color.packed(), albedo_p = albedo.packed(), normal_p = normal.packed();
    Image cpu_out(W, H, c.out_channels);
    auto cf = filter(cpu_, weights, c.hdr, c.srgb);
    cf->set_image("color", denoise::image_view(color_p));
    if (c.ic >= 6) cf->set_image("albedo", denoise::image_view(albedo_p));
    if (c.ic >= 9) cf->set_image("normal", denoise::image_view(normal_p));
    cf->set_image("output", denoise::image_view(cpu_out));
    cf->execute();

    Strided out(W, H, c.out_channels, c.out_type, 1, 4);
    auto vf = filter(device_, weights, c.hdr, c.srgb);
    vf->set_image("color", color.view);
    if (c.ic >= 6) vf->set_image("albedo", albedo.view);
    if (c.ic >= 9) vf->set_image("normal", normal.view);
    vf->set_image("output", out.view);
    vf->execute();
    // The same Vulkan network with the processing on the host: what the device processing adds.
    Image host_out(W, H, c.out_channels);
    auto hf = filter(host_processing_, weights, c.hdr, c.srgb);
    hf->set_image("color", denoise::image_view(color_p));
    if (c.ic >= 6) hf->set_image("albedo", denoise::image_view(albedo_p));
    if (c.ic >= 9) hf->set_image("normal", denoise::image_view(normal_p));
    hf->set_image("output", denoise::image_view(host_out));
    hf->execute();
    if (c.hdr) {
      EXPECT_NEAR(vf->stats().input_scale, denoise::compute_autoexposure(color.view),
                  1e-5 * denoise::compute_autoexposure(color.view));
      EXPECT_NEAR(vf->stats().input_scale, cf->stats().input_scale, 1e-5 * cf->stats().input_scale);
    }
    const Image gpu_out = out.packed();
    const double err = max_rel_diff(cpu_out, gpu_out), err_host = max_rel_diff(host_out, gpu_out);
    // Against the host processing on the same network: the processing's float rounding (<= 2.4e-7
    // per input value, tests/parity/vulkan_denoise_io_test.cpp), carried through the network; for
    // HDR the inverse PU curve turns an absolute error dx of the network output into a relative
    // one of about 16 dx, and pixels of 1e6 sit where that matters most. Against the CPU network
    // the fp32 kernels also differ from oneDNN's in summation order.
    const double tol = c.out_type == PixelType::f16 ? 1e-3 : c.hdr ? kHostileFp32Tolerance : 1e-5;
    EXPECT_LE(err_host, tol);
    EXPECT_LE(err, c.out_type == PixelType::f16 ? 1e-3 : kHostileFp32Tolerance);
    // The output's padding bytes (alpha, row ends) are untouched.
    for (int y = 0; y < H; ++y) {
      const size_t e = c.out_type == PixelType::f32 ? 4 : 2;
      for (int x = 0; x < W; ++x)
        for (size_t b = size_t(c.out_channels) * e; b < out.view.pixel_bytes(); ++b)
          ASSERT_EQ(out.bytes[size_t(y) * out.view.row_bytes() + size_t(x) * out.view.pixel_bytes() + b], 0x5A);
      for (size_t b = size_t(W) * out.view.pixel_bytes(); b < out.view.row_bytes(); ++b)
        ASSERT_EQ(out.bytes[size_t(y) * out.view.row_bytes() + b], 0x5A);
    }
    std::printf("case %d: max error vs cpu %.3g, vs host processing %.3g\n", n, err, err_host);
    ++n;
  }
}

TEST_F(VulkanImagePath, InPlaceTiledMatchesCpu) {
  const int W = 300, H = 100;
  Strided color(W, H, 3, PixelType::f32, 0, 0);
  fill(color, 5, 0.0f, 4.0f, false);
  const auto weights = test::random_weights_blob(UNetVariant::small, 3, 6);
  Image color_p = color.packed();
  Image cpu_out(W, H, 3);
  auto cf = filter(cpu_, weights, true);
  cf->set_image("color", denoise::image_view(color_p));
  cf->set_image("output", denoise::image_view(cpu_out));
  cf->execute();
  auto vf = filter(device_, weights, true);
  vf->params().max_tile_size = 208;  // several tiles: later tiles must still read the input
  vf->set_image("color", color.view);
  vf->set_image("output", color.view);
  vf->execute();
  EXPECT_GT(vf->stats().tiles, 1);
  EXPECT_LE(max_rel_diff(cpu_out, color.packed()), kFp32Tolerance);
}

// Images in buffers of the device's own memory, made through its compute device (no Vulkan calls
// here), denoise in place of host images: the same output.
TEST_F(VulkanImagePath, ComputeDeviceBuffersServeAsDeviceImages) {
  const int W = 45, H = 37;
  Strided color(W, H, 3, PixelType::f32, 0, 0);
  fill(color, 8, 0.0f, 3.0f, false);
  Image color_p = color.packed();
  const auto weights = test::random_weights_blob(UNetVariant::small, 3, 9);
  Image host_out(W, H, 3);
  auto hf = filter(device_, weights, true);
  hf->set_image("color", denoise::image_view(color_p));
  hf->set_image("output", denoise::image_view(host_out));
  hf->execute();

  auto compute = device_->compute_device();
  const uint64_t bytes = uint64_t(W) * H * 3 * sizeof(float);
  auto in = compute->make_buffer(bytes, runtime::BufferStorage::device);
  auto out = compute->make_buffer(bytes, runtime::BufferStorage::managed);
  in->write(0, bytes, color_p.pixels.data());
  denoise::ImageView layout;
  layout.width = W;
  layout.height = H;
  auto df = filter(device_, weights, true);
  df->set_device_image("color", layout, {in->native_handle(), 0});
  df->set_device_image("output", layout, {out->native_handle(), 0});
  df->execute();
  Image device_out(W, H, 3);
  out->read(0, bytes, device_out.pixels.data());
  EXPECT_LE(max_rel_diff(host_out, device_out), 1e-6);
}

TEST_F(VulkanImagePath, TooLittleMemoryIsAClearOutOfMemoryError) {
  Strided color(64, 64, 3, PixelType::f32, 0, 0), out(64, 64, 3, PixelType::f32, 0, 0);
  fill(color, 7, 0.0f, 1.0f, false);
  auto vf = filter(device_, test::random_weights_blob(UNetVariant::small, 3, 8), false);
  vf->set_image("color", color.view);
  vf->set_image("output", out.view);
  vf->params().max_memory_mb = 1;
  try {
    vf->execute();
    FAIL() << "1 MiB cannot hold the network";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::OutOfMemory) << e.what();
    EXPECT_NE(std::string(e.what()).find("maxMemoryMB 1 is too small"), std::string::npos) << e.what();
  }
  // A limit that fits works, and matches an unlimited run.
  vf->params().max_memory_mb = 512;
  vf->execute();
  const Image limited = out.packed();
  vf->params().max_memory_mb = -1;
  vf->execute();
  EXPECT_EQ(max_rel_diff(limited, out.packed()), 0.0);
}

TEST_F(VulkanImagePath, DeviceLossAndDeviceOutOfMemoryAreReported) {
  Strided color(40, 24, 3, PixelType::f32, 0, 0), out(40, 24, 3, PixelType::f32, 0, 0);
  fill(color, 9, 0.0f, 1.0f, false);
  auto vf = filter(device_, test::random_weights_blob(UNetVariant::small, 3, 10), false);
  vf->set_image("color", color.view);
  vf->set_image("output", out.view);
  vf->execute();
  const Image reference = out.packed();
  int calls = 0;
  denoise::set_vulkan_failure_hook([&](const char* call) {
    ++calls;
    EXPECT_STREQ(call, "vkQueueSubmit");
    return VK_ERROR_DEVICE_LOST;
  });
  try {
    vf->execute();
    FAIL() << "an injected device loss must surface";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::DeviceLost) << e.what();
    const std::string m = e.what();
    EXPECT_NE(m.find("was lost"), std::string::npos) << m;
    EXPECT_NE(m.find("VK_ERROR_DEVICE_LOST"), std::string::npos) << m;
    EXPECT_NE(m.find("created again"), std::string::npos) << m;
  }
  EXPECT_EQ(calls, 1);
  denoise::set_vulkan_failure_hook([](const char*) { return VK_ERROR_OUT_OF_DEVICE_MEMORY; });
  try {
    vf->execute();
    FAIL() << "an injected out-of-memory must surface";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::OutOfMemory) << e.what();
    EXPECT_NE(std::string(e.what()).find("VK_ERROR_OUT_OF_DEVICE_MEMORY"), std::string::npos) << e.what();
  }
  // The same through the C API: error codes, no exception across the boundary.
  denoise::set_vulkan_failure_hook([](const char*) { return VK_ERROR_DEVICE_LOST; });
  VXDevice dev = vxNewDevice("vulkan", 0);
  ASSERT_NE(dev, nullptr);
  VXFilter f = vxNewFilter(dev, "RT");
  const auto blob = test::random_weights_blob(UNetVariant::small, 3, 10);
  vxSetFilterImage(f, "color", color.bytes.data(), VX_FORMAT_FLOAT3, 40, 24, 0, 0);
  vxSetFilterImage(f, "output", out.bytes.data(), VX_FORMAT_FLOAT3, 40, 24, 0, 0);
  vxSetFilterInt(f, "precision", 1);
  vxSetFilterWeights(f, blob.data(), blob.size());
  vxExecuteFilter(f);
  const char* message = nullptr;
  EXPECT_EQ(vxGetDeviceError(dev, &message), VX_ERROR_DEVICE_LOST);
  EXPECT_NE(std::string(message ? message : "").find("was lost"), std::string::npos);
  vxReleaseFilter(f);
  vxReleaseDevice(dev);
  // Without the hook the (real, healthy) device works again and gives the same pixels.
  denoise::set_vulkan_failure_hook({});
  vf->execute();
  EXPECT_EQ(max_rel_diff(reference, out.packed()), 0.0);
}

TEST_F(VulkanImagePath, InteractiveTilesFollowTheClockAndEqualUntiled) {
  const int W = 230, H = 120;  // the untiled network input is 240x128
  Strided color(W, H, 3, PixelType::f32, 0, 0), out(W, H, 3, PixelType::f32, 0, 0);
  fill(color, 11, 0.0f, 3.0f, false);
  const auto weights = test::random_weights_blob(UNetVariant::small, 3, 12);
  auto vf = filter(device_, weights, true);
  vf->set_image("color", color.view);
  vf->set_image("output", out.view);
  vf->execute();
  const Image untiled = out.packed();
  EXPECT_EQ(vf->stats().tiles, 1);

  // The injected clock says the first three tiles were too slow for the target, then fast: the
  // tiler goes from its first 64 px side down to 16 px (buffer 16 + 2 * 96 = 208 wide; the height
  // is capped at the image's 128), then up to the whole rest (capped at 240x128). Tiles: band
  // one owns x in [0,64), [64,80), [80,96), [96,112), [112,230) (the last one reads from x = 16 and
  // so sits at the far end of its buffer), then band two takes the rest of the image.
  const double target = 10.0;
  std::vector<double> script = {1.5 * target, 1.5 * target, 1.5 * target, 1.0, 1.0, 1.0};
  std::vector<std::pair<int, int>> seen;
  vf->params().target_tile_ms = target;
  vf->params().tile_time_source = [&](int w, int h, double measured_ms) {
    EXPECT_GE(measured_ms, 0.0);
    seen.emplace_back(w, h);
    return script.at(seen.size() - 1);
  };
  std::vector<double> progress;
  vf->set_progress([&](double p) {
    progress.push_back(p);
    return true;
  });
  std::fill(out.bytes.begin(), out.bytes.end(), 0);
  vf->execute();
  const std::vector<std::pair<int, int>> expected_shapes = {{240, 128}, {208, 128}, {208, 128},
                                                             {208, 128}, {240, 128}, {240, 128}};
  EXPECT_EQ(seen, expected_shapes);
  EXPECT_EQ(vf->stats().tiles, 6);
  EXPECT_LE(max_rel_diff(untiled, out.packed()), 1e-5);
  const std::vector<double> expected_progress = {0.0,
                                                 64.0 * 64 / (W * H),
                                                 80.0 * 64 / (W * H),
                                                 96.0 * 64 / (W * H),
                                                 112.0 * 64 / (W * H),
                                                 230.0 * 64 / (W * H),
                                                 1.0};
  ASSERT_EQ(progress.size(), expected_progress.size());
  for (size_t i = 0; i < progress.size(); ++i) EXPECT_NEAR(progress[i], expected_progress[i], 1e-12) << i;

  // Cancelled after the first tile: the callback's "no" stops before the second tile runs.
  seen.clear();
  int answers = 0;
  vf->set_progress([&](double) { return ++answers < 2; });  // yes to 0.0, no after tile 1
  try {
    vf->execute();
    FAIL() << "the progress callback cancelled";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Cancelled) << e.what();
  }
  EXPECT_EQ(seen.size(), 1u);
}

// The tiler alone, on a large virtual image: sizes follow the clock, tiles partition the image,
// inputs hold the owned pixels plus the overlap, 16-aligned.
TEST(AdaptiveTiler, SizesFollowTheClockAndTilesPartitionTheImage) {
  const int W = 3001, H = 2003, overlap = 96;
  const double ms_per_pixel = 2e-5, target = 16.0;
  denoise::AdaptiveTiler tiler(W, H, overlap, target);
  std::vector<uint8_t> owned(size_t(W) * H, 0);
  int tiles = 0;
  std::vector<int> widths;
  while (auto t = tiler.next()) {
    ++tiles;
    const denoise::Tile& tile = t->tile;
    ASSERT_EQ(tile.out_x % 16, 0);
    ASSERT_EQ(tile.out_y % 16, 0);
    ASSERT_EQ(tile.in_x % 16, 0);
    ASSERT_EQ(tile.in_y % 16, 0);
    ASSERT_EQ(tile.in_x, std::max(0, tile.out_x - overlap));
    ASSERT_EQ(tile.in_x + tile.in_w, std::min(W, tile.out_x + tile.out_w + overlap));
    ASSERT_EQ(tile.in_y + tile.in_h, std::min(H, tile.out_y + tile.out_h + overlap));
    ASSERT_LE(tile.buffer_x + tile.in_w, t->buffer_w);
    ASSERT_LE(tile.buffer_y + tile.in_h, t->buffer_h);
    ASSERT_EQ(tile.buffer_x % 16, 0);
    ASSERT_EQ(tile.buffer_y % 16, 0);
    // The image's edges sit where they sit in the untiled buffer: the near edge at 0, the far edge
    // padded to 16 at the buffer's end.
    if (tile.in_x == 0) {
      ASSERT_EQ(tile.buffer_x, 0);
    }
    if (tile.in_x + tile.in_w == W) {
      ASSERT_EQ(tile.buffer_x + (tile.in_w + 15) / 16 * 16, t->buffer_w);
    }
    if (tile.in_y == 0) {
      ASSERT_EQ(tile.buffer_y, 0);
    }
    if (tile.in_y + tile.in_h == H) {
      ASSERT_EQ(tile.buffer_y + (tile.in_h + 15) / 16 * 16, t->buffer_h);
    }
    ASSERT_EQ(t->buffer_w % 16, 0);
    ASSERT_EQ(t->buffer_h % 16, 0);
    for (int y = tile.out_y; y < tile.out_y + tile.out_h; ++y)
      for (int x = tile.out_x; x < tile.out_x + tile.out_w; ++x) ++owned[size_t(y) * W + x];
    widths.push_back(t->buffer_w);
    tiler.report(ms_per_pixel * t->buffer_w * t->buffer_h);
  }
  for (uint8_t o : owned) ASSERT_EQ(o, 1);
  // 16 ms at 2e-5 ms/pixel: buffers up to 894 px a side; the ladder's owned side 512 (buffer 704)
  // fits, 768 (buffer 960) does not.
  EXPECT_EQ(widths.front(), 64 + 2 * overlap);
  for (size_t i = 1; i < widths.size(); ++i) EXPECT_EQ(widths[i], 512 + 2 * overlap) << i;
  EXPECT_EQ(tiler.current_side(), 512);
  EXPECT_GT(tiles, 10);
  EXPECT_DOUBLE_EQ(tiler.covered_fraction(), 1.0);
}

}  // namespace
}  // namespace vx

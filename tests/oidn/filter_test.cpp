// OIDN's RT and RTLightmap filters on the CPU and on Vulkan: images (buffers and shared host
// memory, every format, strides, offsets, in place), parameters and their errors, commit rules,
// user weights, progress monitoring and cancellation, asynchronous execution.
//
// Tolerances: two runs of the same network on the same inputs through different API paths agree
// bitwise on the CPU and within 1e-5 on Vulkan (same_device_tolerance, in max_rel_diff); a half
// output within one half rounding more (half_tolerance). Other checks are exact (bytes, values
// that were set) or qualitative (finite, "differs by more than 1e-3").
#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>

#include "oidn_test_util.h"

namespace oidn_test {
namespace {

using oidn::Error;
using oidn::Format;
using oidn::Quality;

constexpr int W = 37, H = 29;  // small and odd: fast on lavapipe, no tile or alignment luck

// ---- Image layouts in bytes -------------------------------------------------------------------

int channels_of(Format f) {
  switch (f) {
    case Format::Float: case Format::Half: return 1;
    case Format::Float2: case Format::Half2: return 2;
    case Format::Float3: case Format::Half3: return 3;
    case Format::Float4: case Format::Half4: return 4;
    default: return 0;
  }
}
bool is_half(Format f) { return int(f) >= OIDN_FORMAT_HALF; }
size_t element_bytes(Format f) { return is_half(f) ? 2 : 4; }

struct Layout {
  Format format = Format::Float3;
  size_t offset = 0, pixel_stride = 0, row_stride = 0;  // 0 strides: packed
  size_t pixel_bytes() const { return pixel_stride ? pixel_stride : channels_of(format) * element_bytes(format); }
  size_t row_bytes() const { return row_stride ? row_stride : W * pixel_bytes(); }
  // OIDN's image size: up to the last pixel's last channel.
  size_t image_bytes() const {
    return (H - 1) * row_bytes() + (W - 1) * pixel_bytes() + channels_of(format) * element_bytes(format);
  }
  size_t total_bytes() const { return offset + image_bytes(); }
  size_t at(int x, int y, int c) const {
    return offset + size_t(y) * row_bytes() + size_t(x) * pixel_bytes() + size_t(c) * element_bytes(format);
  }
};

constexpr uint8_t kSentinel = 0x7B;  // 0x7B7B7B7B and 0x7B7B are finite float / half values

// Stores img's channels (img.channels == the format's) into bytes at the layout.
void store(std::vector<uint8_t>& bytes, const Layout& l, const Image& img) {
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < img.channels; ++c) {
        uint8_t* p = bytes.data() + l.at(x, y, c);
        if (is_half(l.format)) {
          const uint16_t h = float_to_half(img.at(x, y, c));
          std::memcpy(p, &h, 2);
        } else {
          const float v = img.at(x, y, c);
          std::memcpy(p, &v, 4);
        }
      }
}

Image load(const std::vector<uint8_t>& bytes, const Layout& l, int channels) {
  Image img(W, H, channels);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < channels; ++c) {
        const uint8_t* p = bytes.data() + l.at(x, y, c);
        if (is_half(l.format)) {
          uint16_t h;
          std::memcpy(&h, p, 2);
          img.at(x, y, c) = half_to_float(h);
        } else {
          std::memcpy(&img.at(x, y, c), p, 4);
        }
      }
  return img;
}

// The bytes of channels [0, channels) of every pixel: the only ones the output may change.
std::vector<bool> written_mask(size_t size, const Layout& l, int channels) {
  std::vector<bool> m(size, false);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < channels; ++c)
        for (size_t b = 0; b < element_bytes(l.format); ++b) m[l.at(x, y, c) + b] = true;
  return m;
}

// The number of bytes outside the mask that differ.
size_t changed_outside(const std::vector<uint8_t>& before, const std::vector<uint8_t>& after,
                       const std::vector<bool>& mask) {
  size_t n = 0;
  for (size_t i = 0; i < before.size(); ++i)
    if (!mask[i] && before[i] != after[i]) ++n;
  return n;
}

// ---- The fixture ------------------------------------------------------------------------------

class OidnFilter : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    std::string why;
    device = shared_device(GetParam(), &why);
    if (!device) GTEST_SKIP() << why;
  }

  double tol() const { return same_device_tolerance(GetParam()); }

  // Runs a filter over host images (shared memory, Float3) and returns its output; every error is
  // a test failure. configure() sets parameters before the commit.
  Image denoise(Image color, Image* albedo = nullptr, Image* normal = nullptr,
                const std::function<void(oidn::FilterRef&)>& configure = {}, const char* type = "RT") {
    Image out(W, H, 3, -1.0f);
    oidn::FilterRef f = device.newFilter(type);
    f.setImage("color", color.px.data(), Format::Float3, W, H);
    if (albedo) f.setImage("albedo", albedo->px.data(), Format::Float3, W, H);
    if (normal) f.setImage("normal", normal->px.data(), Format::Float3, W, H);
    f.setImage("output", out.px.data(), Format::Float3, W, H);
    if (configure) configure(f);
    f.commit();
    f.execute();
    EXPECT_OIDN_OK(device);
    EXPECT_TRUE(all_finite(out.px));
    return out;
  }

  // Runs the RT filter with one input and the output in buffers of the given layouts (the output
  // buffer starts as `out_bytes`, which receives it).
  void denoise_layout(const std::vector<uint8_t>& in_bytes, const Layout& in, std::vector<uint8_t>& out_bytes,
                      const Layout& out) {
    oidn::BufferRef ib = device.newBuffer(in_bytes.size());
    oidn::BufferRef ob = device.newBuffer(out_bytes.size());
    ASSERT_TRUE(ib && ob);
    ib.write(0, in_bytes.size(), in_bytes.data());
    ob.write(0, out_bytes.size(), out_bytes.data());
    oidn::FilterRef f = device.newFilter("RT");
    f.setImage("color", ib, in.format, W, H, in.offset, in.pixel_stride, in.row_stride);
    f.setImage("output", ob, out.format, W, H, out.offset, out.pixel_stride, out.row_stride);
    f.commit();
    f.execute();
    ob.read(0, out_bytes.size(), out_bytes.data());
    EXPECT_OIDN_OK(device);
  }

  oidn::DeviceRef device;
};

#define REQUIRE_RT_LDR() OIDN_TEST_REQUIRE_WEIGHTS("rt_ldr")

// ---- Creation and parameters ------------------------------------------------------------------

TEST_P(OidnFilter, FilterTypes) {
  EXPECT_TRUE(bool(device.newFilter("RT")));
  EXPECT_TRUE(bool(device.newFilter("RTLightmap")));
  EXPECT_OIDN_OK(device);
  EXPECT_FALSE(bool(device.newFilter("RTX")));
  EXPECT_OIDN_ERROR(device, InvalidArgument);
  EXPECT_FALSE(bool(device.newFilter(nullptr)));
  EXPECT_OIDN_ERROR(device, InvalidArgument);
  // The SYCL execution (no wrapper without SYCL's headers) is refused: no device is a SYCL one.
  oidn::FilterRef f = device.newFilter("RT");
  oidnExecuteSYCLFilterAsync(f.getHandle(), nullptr, 0, nullptr);
  EXPECT_FALSE(has_error(device, Error::None)) << "oidnExecuteSYCLFilterAsync on a " << backend_name(GetParam())
                                               << " filter";
}

TEST_P(OidnFilter, ParameterDefaultsAndSetGet) {
  oidn::FilterRef f = device.newFilter("RT");
  ASSERT_TRUE(bool(f));
  EXPECT_FALSE(f.get<bool>("hdr"));
  EXPECT_FALSE(f.get<bool>("srgb"));
  EXPECT_FALSE(f.get<bool>("cleanAux"));
  EXPECT_EQ(f.get<Quality>("quality"), Quality::High) << "OIDN's default quality is High";
  EXPECT_EQ(f.get<int>("maxMemoryMB"), -1);
  EXPECT_TRUE(std::isnan(f.get<float>("inputScale"))) << "NaN: automatic";
  EXPECT_OIDN_OK(device);

  f.set("hdr", true);
  EXPECT_TRUE(f.get<bool>("hdr"));
  EXPECT_EQ(f.get<int>("hdr"), 1) << "bools are ints in OIDN";
  f.set("hdr", false);
  f.set("srgb", true);
  EXPECT_TRUE(f.get<bool>("srgb"));
  oidnSetFilterInt(f.getHandle(), "cleanAux", 1);
  EXPECT_TRUE(f.get<bool>("cleanAux"));
  f.set("inputScale", 0.375f);
  EXPECT_EQ(f.get<float>("inputScale"), 0.375f);
  f.set("inputScale", std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(std::isnan(f.get<float>("inputScale")));
  f.set("maxMemoryMB", 123);
  EXPECT_EQ(f.get<int>("maxMemoryMB"), 123);
  for (Quality q : {Quality::Fast, Quality::Balanced, Quality::High}) {
    f.set("quality", q);
    EXPECT_EQ(f.get<Quality>("quality"), q);
  }
  f.set("quality", Quality::Default);
  EXPECT_EQ(f.get<Quality>("quality"), Quality::High) << "OIDN stores Default as High";
  EXPECT_OIDN_OK(device);

  // Invalid qualities: InvalidArgument, the value unchanged.
  f.set("quality", Quality::Fast);
  for (int bad : {1, 2, 3, 7, -1}) {
    f.set("quality", bad);
    EXPECT_OIDN_ERROR(device, InvalidArgument) << "quality " << bad;
    EXPECT_EQ(f.get<Quality>("quality"), Quality::Fast);
  }

  // RTLightmap: "directional" instead of hdr / srgb / cleanAux.
  oidn::FilterRef lm = device.newFilter("RTLightmap");
  EXPECT_FALSE(lm.get<bool>("directional"));
  lm.set("directional", true);
  EXPECT_TRUE(lm.get<bool>("directional"));
  EXPECT_EQ(lm.get<Quality>("quality"), Quality::High);
  EXPECT_TRUE(std::isnan(lm.get<float>("inputScale")));
  EXPECT_OIDN_OK(device);
}

// OIDN: setting an unknown name (or a known one with the wrong type) warns and is ignored;
// reading one is InvalidArgument. Either way the filter counts as changed (needs a commit).
TEST_P(OidnFilter, UnknownNamesWarnOnSetAndFailOnGet) {
  oidn::FilterRef f = device.newFilter("RT");
  f.set("noSuchParam", true);
  f.set("noSuchParam", 3);
  f.set("noSuchParam", 1.5f);
  f.set("hdr", 2.0f);  // hdr is not a float parameter
  float dummy[3] = {};
  f.setImage("noSuchImage", dummy, Format::Float3, 1, 1);
  f.unsetImage("noSuchImage");
  f.setData("noSuchData", dummy, sizeof(dummy));
  f.updateData("noSuchData");
  f.unsetData("noSuchData");
  EXPECT_OIDN_OK(device) << "warnings, not errors";
  EXPECT_FALSE(f.get<bool>("hdr")) << "the float was ignored";

  EXPECT_EQ(f.get<int>("noSuchParam"), 0);
  EXPECT_OIDN_ERROR(device, InvalidArgument);
  EXPECT_FALSE(f.get<bool>("noSuchParam"));
  EXPECT_OIDN_ERROR(device, InvalidArgument);
  (void)f.get<float>("noSuchParam");
  EXPECT_OIDN_ERROR(device, InvalidArgument);
  (void)f.get<float>("hdr");  // a bool read as a float
  EXPECT_OIDN_ERROR(device, InvalidArgument);
  (void)f.get<int>("inputScale");  // a float read as an int
  EXPECT_OIDN_ERROR(device, InvalidArgument);
  (void)oidnGetFilterInt(f.getHandle(), nullptr);
  EXPECT_OIDN_ERROR(device, InvalidArgument);

  // RTLightmap has no albedo / normal / hdr: ignored with a warning.
  oidn::FilterRef lm = device.newFilter("RTLightmap");
  lm.setImage("albedo", dummy, Format::Float3, 1, 1);
  lm.set("cleanAux", true);
  EXPECT_OIDN_OK(device);
  (void)lm.get<bool>("cleanAux");
  EXPECT_OIDN_ERROR(device, InvalidArgument);
}

TEST_P(OidnFilter, UnknownSetMarksTheFilterChanged) {
  REQUIRE_RT_LDR();
  Image color = noisy_color(W, H, 4);
  Image out(W, H, 3);
  oidn::FilterRef f = device.newFilter("RT");
  f.setImage("color", color.px.data(), Format::Float3, W, H);
  f.setImage("output", out.px.data(), Format::Float3, W, H);
  f.commit();
  f.execute();
  EXPECT_OIDN_OK(device);
  f.set("noSuchParam", 1);
  f.execute();
  EXPECT_OIDN_ERROR(device, InvalidOperation) << "OIDN marks the filter dirty even for unknown names";
}

TEST_P(OidnFilter, ExecuteNeedsACommitAfterEveryChange) {
  REQUIRE_RT_LDR();
  Image color = noisy_color(W, H, 5), out(W, H, 3), out2(W, H, 3);
  oidn::FilterRef f = device.newFilter("RT");
  f.setImage("color", color.px.data(), Format::Float3, W, H);
  f.setImage("output", out.px.data(), Format::Float3, W, H);
  f.execute();  // never committed
  EXPECT_OIDN_ERROR(device, InvalidOperation);
  f.commit();
  f.execute();
  EXPECT_OIDN_OK(device);
  f.execute();  // again, unchanged: fine
  EXPECT_OIDN_OK(device);

  f.set("srgb", false);  // the same value is still a change to commit
  f.execute();
  EXPECT_OIDN_ERROR(device, InvalidOperation);
  f.commit();
  f.execute();
  EXPECT_OIDN_OK(device);

  f.setImage("output", out2.px.data(), Format::Float3, W, H);  // another pointer
  f.executeAsync();
  device.sync();
  EXPECT_OIDN_ERROR(device, InvalidOperation);
  f.commit();
  f.executeAsync();
  device.sync();
  EXPECT_OIDN_OK(device);
  EXPECT_EQ(max_rel_diff(out, out2), 0.0) << "the same result into the new output";

  f.set("inputScale", 1.0f);
  f.execute();
  EXPECT_OIDN_ERROR(device, InvalidOperation);
  f.commit();
  EXPECT_OIDN_OK(device);
  f.commit();  // committing twice is fine
  EXPECT_OIDN_OK(device);

  // The progress monitor is not a parameter: it needs no commit.
  f.setProgressMonitorFunction([](void*, double) { return true; });
  f.execute();
  EXPECT_OIDN_OK(device);
}

TEST_P(OidnFilter, CommitChecksTheImages) {
  Image color = noisy_color(W, H, 6), out(W, H, 3);
  Image small(W - 1, H, 3);
  oidn::FilterRef f = device.newFilter("RT");
  f.commit();
  EXPECT_OIDN_ERROR(device, InvalidOperation) << "no images";
  f.setImage("color", color.px.data(), Format::Float3, W, H);
  f.commit();
  EXPECT_OIDN_ERROR(device, InvalidOperation) << "no output";
  f.setImage("output", small.px.data(), Format::Float3, W - 1, H);
  f.commit();
  EXPECT_OIDN_ERROR(device, InvalidOperation) << "sizes differ";
  f.setImage("output", out.px.data(), Format::Float, W, H);
  f.commit();
  EXPECT_OIDN_ERROR(device, InvalidOperation) << "channel counts differ";
  f.setImage("output", out.px.data(), Format::Float3, W, H);
  f.set("hdr", true);
  f.set("srgb", true);
  f.commit();
  EXPECT_OIDN_ERROR(device, InvalidOperation) << "hdr and srgb together";
  f.set("srgb", false);
  f.setImage("albedo", color.px.data(), Format::Float3, W, H - 1);
  f.commit();
  EXPECT_OIDN_ERROR(device, InvalidOperation) << "albedo size differs";
  f.execute();
  EXPECT_OIDN_ERROR(device, InvalidOperation) << "a failed commit leaves the filter uncommitted";
}

TEST_P(OidnFilter, SetImageChecksTheLayout) {
  oidn::FilterRef f = device.newFilter("RT");
  std::vector<float> mem(size_t(W) * H * 4);
  f.setImage("color", mem.data(), Format::Float3, W, H, 0, 8, 0);
  EXPECT_OIDN_ERROR(device, InvalidArgument) << "pixel stride below the pixel size";
  f.setImage("color", mem.data(), Format::Float3, W, H, 0, 12, W * 12 - 4);
  EXPECT_OIDN_ERROR(device, InvalidArgument) << "row stride below width * pixel stride";
  f.setImage("color", nullptr, Format::Float3, W, H);
  EXPECT_OIDN_ERROR(device, InvalidArgument) << "null image pointer";
  f.setImage("color", mem.data(), Format::Undefined, W, H);
  EXPECT_FALSE(has_error(device, Error::None)) << "undefined format";
  f.setImage("color", mem.data(), static_cast<Format>(-1), W, H);
  EXPECT_OIDN_ERROR(device, InvalidArgument) << "a format value OIDN does not define (as apps/oidnTest.cpp checks)";
  f.setImage(nullptr, mem.data(), Format::Float3, W, H);
  EXPECT_OIDN_ERROR(device, InvalidArgument) << "null name";

  // A buffer image must fit in its buffer: OIDN's size is up to the last pixel's last byte.
  Layout l;
  l.offset = 64;
  l.pixel_stride = 16;
  l.row_stride = W * 16 + 20;
  oidn::BufferRef exact = device.newBuffer(l.total_bytes());
  oidn::BufferRef short_by_one = device.newBuffer(l.total_bytes() - 1);
  f.setImage("color", exact, Format::Float3, W, H, l.offset, l.pixel_stride, l.row_stride);
  EXPECT_OIDN_OK(device);
  f.setImage("color", short_by_one, Format::Float3, W, H, l.offset, l.pixel_stride, l.row_stride);
  EXPECT_OIDN_ERROR(device, InvalidArgument) << "one byte beyond the buffer";
  f.setImage("color", oidn::BufferRef(), Format::Float3, W, H);
  EXPECT_OIDN_ERROR(device, InvalidArgument) << "null buffer";
}

// ---- Images: formats, layouts, buffers and shared memory -------------------------------------

// Every format, as OIDN 2.4 reads and writes them (devices/cpu/image_accessor.isph,
// cpu_output_process.isph): a 1-channel input is broadcast to (v, v, v) and a 2-channel one to
// (v0, v1, v1); a 1-channel output is the mean of the three output channels, a 2-channel output
// their first two. Float4 / Half4 (Volvox) filter RGB and leave the output's fourth channel as it
// was. The 1-channel mean is taken here from the 3-channel result: within 1e-6 more (float
// rounding of the sum; the colors stay below 0.8 so that OIDN's clamp at 1, applied after its
// mean, does not come in).
TEST_P(OidnFilter, EveryFormat) {
  REQUIRE_RT_LDR();
  const Image rgb = noisy_color(W, H, 7, 0.0f, 0.75f);  // multiples of 1/1024: exact in half too
  const Image ref_rgb = denoise(rgb);
  const Image ref_gray = denoise(select_channels(rgb, {0, 0, 0}));
  const Image ref_xyy = denoise(select_channels(rgb, {0, 1, 1}));
  Image rgba(W, H, 4);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      for (int c = 0; c < 3; ++c) rgba.at(x, y, c) = rgb.at(x, y, c);
      rgba.at(x, y, 3) = float((x + y) % 4) * 0.25f;
    }

  for (Format fmt : {Format::Float, Format::Float2, Format::Float3, Format::Float4, Format::Half, Format::Half2,
                     Format::Half3, Format::Half4}) {
    const int C = channels_of(fmt);
    SCOPED_TRACE("format " + std::to_string(int(fmt)) + " (" + std::to_string(C) + " channels" +
                 (is_half(fmt) ? ", half)" : ")"));
    const Layout l{fmt};
    std::vector<uint8_t> in(l.total_bytes(), 0), out(l.total_bytes(), kSentinel);
    const Image input = C == 4 ? rgba : select_channels(rgb, C == 1 ? std::vector<int>{0}
                                                             : C == 2 ? std::vector<int>{0, 1}
                                                                      : std::vector<int>{0, 1, 2});
    store(in, l, input);
    const std::vector<uint8_t> before = out;
    denoise_layout(in, l, out, l);

    const Image got = load(out, l, std::min(C, 3));
    Image expected;
    if (C == 1) {
      expected = Image(W, H, 1);
      for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
          expected.at(x, y, 0) = (ref_gray.at(x, y, 0) + ref_gray.at(x, y, 1) + ref_gray.at(x, y, 2)) * (1.0f / 3.0f);
    } else {
      expected = select_channels(C == 2 ? ref_xyy : ref_rgb, C == 2 ? std::vector<int>{0, 1} : std::vector<int>{0, 1, 2});
    }
    const double tolerance = (is_half(fmt) ? half_tolerance(GetParam()) : tol()) + (C == 1 ? 1e-6 : 0.0);
    EXPECT_LE(max_rel_diff(expected, got), tolerance);
    EXPECT_EQ(changed_outside(before, out, written_mask(out.size(), l, std::min(C, 3))), 0u)
        << "bytes other than the output's first three channels were written";
  }
}

// Pixel and row strides and a byte offset, in and out, give the packed result; the padding is
// left alone.
TEST_P(OidnFilter, StridesAndOffsets) {
  REQUIRE_RT_LDR();
  const Image rgb = noisy_color(W, H, 8);
  const Image ref = denoise(rgb);
  struct Case {
    Layout in, out;
  };
  const Case cases[] = {
      {{Format::Float3, 0, 16, 0}, {Format::Float3, 0, 0, 0}},               // RGBX input
      {{Format::Float3, 0, 0, W * 12 + 36}, {Format::Float3, 0, 20, 0}},     // padded rows / wide pixels
      {{Format::Float3, 100, 0, 0}, {Format::Float3, 52, 24, W * 24 + 8}},   // offsets (multiples of 4)
      {{Format::Half3, 6, 8, W * 8 + 2}, {Format::Float3, 4, 16, 0}},        // half in, float out
      {{Format::Float3, 0, 0, 0}, {Format::Half3, 10, 6, W * 6 + 14}},       // float in, half out
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("in offset " + std::to_string(c.in.offset) + " pixel " + std::to_string(c.in.pixel_stride) +
                 " row " + std::to_string(c.in.row_stride) + "; out offset " + std::to_string(c.out.offset) +
                 " pixel " + std::to_string(c.out.pixel_stride) + " row " + std::to_string(c.out.row_stride));
    std::vector<uint8_t> in(c.in.total_bytes(), kSentinel), out(c.out.total_bytes(), kSentinel);
    store(in, c.in, rgb);
    const std::vector<uint8_t> before = out;
    denoise_layout(in, c.in, out, c.out);
    const double tolerance = is_half(c.out.format) ? half_tolerance(GetParam()) : tol();
    EXPECT_LE(max_rel_diff(ref, load(out, c.out, 3)), tolerance);
    EXPECT_EQ(changed_outside(before, out, written_mask(out.size(), c.out, 3)), 0u) << "padding was written";
  }
}

// Buffers of each storage and shared host memory give the same result.
TEST_P(OidnFilter, BuffersOfEachStorageAndSharedMemory) {
  REQUIRE_RT_LDR();
  Image rgb = noisy_color(W, H, 9);
  const Image ref = denoise(rgb);  // shared host memory
  const size_t bytes = rgb.bytes();
  std::vector<oidn::Storage> storages = {oidn::Storage::Host, oidn::Storage::Device};
  if (device.get<bool>("managedMemorySupported")) storages.push_back(oidn::Storage::Managed);
  for (oidn::Storage s : storages) {
    SCOPED_TRACE(::testing::PrintToString(s));
    oidn::BufferRef in = device.newBuffer(bytes, s), out = device.newBuffer(bytes, s);
    ASSERT_TRUE(in && out);
    in.write(0, bytes, rgb.px.data());
    oidn::FilterRef f = device.newFilter("RT");
    f.setImage("color", in, Format::Float3, W, H);
    f.setImage("output", out, Format::Float3, W, H);
    f.commit();
    f.execute();
    Image got(W, H, 3);
    out.read(0, bytes, got.px.data());
    EXPECT_OIDN_OK(device);
    EXPECT_LE(max_rel_diff(ref, got), tol());
  }
  // A shared buffer (oidnNewSharedBuffer) over the caller's memory.
  Image got(W, H, 3, -1.0f);
  oidn::BufferRef in = device.newBuffer(rgb.px.data(), bytes), out = device.newBuffer(got.px.data(), bytes);
  oidn::FilterRef f = device.newFilter("RT");
  f.setImage("color", in, Format::Float3, W, H);
  f.setImage("output", out, Format::Float3, W, H);
  f.commit();
  f.execute();
  EXPECT_OIDN_OK(device);
  EXPECT_LE(max_rel_diff(ref, got), tol()) << "shared buffers";
}

TEST_P(OidnFilter, InPlace) {
  REQUIRE_RT_LDR();
  Image rgb = noisy_color(W, H, 10);
  const Image ref = denoise(rgb);
  // Shared memory: output = color.
  Image inplace = rgb;
  {
    oidn::FilterRef f = device.newFilter("RT");
    f.setImage("color", inplace.px.data(), Format::Float3, W, H);
    f.setImage("output", inplace.px.data(), Format::Float3, W, H);
    f.commit();
    f.execute();
    EXPECT_OIDN_OK(device);
    EXPECT_LE(max_rel_diff(ref, inplace), tol()) << "shared memory in place";
  }
  // One buffer for both.
  oidn::BufferRef b = device.newBuffer(rgb.bytes());
  b.write(0, rgb.bytes(), rgb.px.data());
  oidn::FilterRef f = device.newFilter("RT");
  f.setImage("color", b, Format::Float3, W, H);
  f.setImage("output", b, Format::Float3, W, H);
  f.commit();
  f.execute();
  Image got(W, H, 3);
  b.read(0, rgb.bytes(), got.px.data());
  EXPECT_OIDN_OK(device);
  EXPECT_LE(max_rel_diff(ref, got), tol()) << "one buffer in place";
}

TEST_P(OidnFilter, ExecuteAsyncThenSync) {
  REQUIRE_RT_LDR();
  Image rgb = noisy_color(W, H, 11);
  const Image ref = denoise(rgb);
  oidn::BufferRef in = device.newBuffer(rgb.bytes()), out = device.newBuffer(rgb.bytes());
  in.writeAsync(0, rgb.bytes(), rgb.px.data());
  oidn::FilterRef f = device.newFilter("RT");
  f.setImage("color", in, Format::Float3, W, H);
  f.setImage("output", out, Format::Float3, W, H);
  f.commit();
  f.executeAsync();
  Image got(W, H, 3);
  out.readAsync(0, rgb.bytes(), got.px.data());
  device.sync();
  EXPECT_OIDN_OK(device);
  EXPECT_LE(max_rel_diff(ref, got), tol());
}

// oidnExecuteFilterAsync returns before the filter has run: the progress monitor (called on the
// device's worker) waits for the caller to say the call has returned. Were the call synchronous,
// the monitor would time out (5 s) and see false.
TEST_P(OidnFilter, ExecuteAsyncReturnsBeforeTheWorkIsDone) {
  REQUIRE_RT_LDR();
  Image rgb = noisy_color(W, H, 12);
  Image out(W, H, 3);
  oidn::FilterRef f = device.newFilter("RT");
  f.setImage("color", rgb.px.data(), Format::Float3, W, H);
  f.setImage("output", out.px.data(), Format::Float3, W, H);
  struct Gate {
    std::mutex mutex;
    std::condition_variable returned;
    bool call_returned = false;
    std::optional<bool> seen_returned;  // what the first progress call saw
  } gate;
  f.setProgressMonitorFunction(
      [](void* user, double) {
        auto* g = static_cast<Gate*>(user);
        std::unique_lock<std::mutex> lock(g->mutex);
        if (!g->seen_returned)
          g->seen_returned = g->returned.wait_for(lock, std::chrono::seconds(5), [&] { return g->call_returned; });
        return true;
      },
      &gate);
  f.commit();
  f.executeAsync();
  {
    std::lock_guard<std::mutex> lock(gate.mutex);
    gate.call_returned = true;
  }
  gate.returned.notify_all();
  device.sync();
  EXPECT_OIDN_OK(device);
  ASSERT_TRUE(gate.seen_returned.has_value());
  EXPECT_TRUE(*gate.seen_returned) << "the filter ran before oidnExecuteFilterAsync returned";
}

// Handles released with work still queued: the work completes (it holds its filter and buffers),
// and the device's last reference may go on its own worker.
TEST_P(OidnFilter, ReleasingEverythingBeforeTheSync) {
  REQUIRE_RT_LDR();
  std::string why;
  oidn::DeviceRef own = new_device(GetParam(), &why);
  if (!own) GTEST_SKIP() << why;
  own.commit();
  Image rgb = noisy_color(W, H, 13);
  const Image ref = denoise(rgb);
  Image got(W, H, 3);
  {
    oidn::BufferRef in = own.newBuffer(rgb.bytes()), out = own.newBuffer(rgb.bytes());
    in.writeAsync(0, rgb.bytes(), rgb.px.data());
    oidn::FilterRef f = own.newFilter("RT");
    f.setImage("color", in, Format::Float3, W, H);
    f.setImage("output", out, Format::Float3, W, H);
    f.commit();
    f.executeAsync();
    out.readAsync(0, rgb.bytes(), got.px.data());
  }  // filter and buffers released here: as OIDN's, each release waits for the queued work
  EXPECT_LE(max_rel_diff(ref, got), tol()) << "the read had not run when the releases returned";
  own.sync();
  EXPECT_OIDN_OK(own);
  own.release();  // the last reference
}

TEST_P(OidnFilter, UnsetImage) {
  REQUIRE_RT_LDR();
  OIDN_TEST_REQUIRE_WEIGHTS("rt_ldr_alb_nrm");
  Image rgb = noisy_color(W, H, 12), albedo = plain_albedo(W, H), normal = plain_normal(W, H);
  const Image ref = denoise(rgb);
  const Image with_aux = denoise(rgb, &albedo, &normal);
  EXPECT_GT(max_rel_diff(ref, with_aux), 1e-3) << "the auxiliary images change the result";
  Image got(W, H, 3);
  oidn::FilterRef f = device.newFilter("RT");
  f.setImage("color", rgb.px.data(), Format::Float3, W, H);
  f.setImage("albedo", albedo.px.data(), Format::Float3, W, H);
  f.setImage("normal", normal.px.data(), Format::Float3, W, H);
  f.setImage("output", got.px.data(), Format::Float3, W, H);
  f.commit();
  f.execute();
  EXPECT_LE(max_rel_diff(with_aux, got), tol());
  f.unsetImage("albedo");
  f.unsetImage("normal");
  f.commit();
  f.execute();
  EXPECT_OIDN_OK(device);
  EXPECT_LE(max_rel_diff(ref, got), tol()) << "back to color only";
}

// Filtering the auxiliary images alone (OIDN's rt_alb / rt_nrm weights).
TEST_P(OidnFilter, AuxiliaryImagesAlone) {
  OIDN_TEST_REQUIRE_WEIGHTS("rt_alb");
  Image albedo = plain_albedo(W, H), out(W, H, 3, -1.0f);
  oidn::FilterRef f = device.newFilter("RT");
  f.setImage("albedo", albedo.px.data(), Format::Float3, W, H);
  f.setImage("output", out.px.data(), Format::Float3, W, H);
  f.commit();
  f.execute();
  EXPECT_OIDN_OK(device);
  EXPECT_TRUE(all_finite(out.px));
  EXPECT_LT(max_rel_diff(albedo, out), 0.5) << "a denoised albedo stays close to a clean one";
  f.set("hdr", true);
  f.commit();
  EXPECT_OIDN_ERROR(device, InvalidOperation) << "hdr albedo filtering (OIDN's rule)";
}

// Non-finite and out-of-range inputs give finite outputs in range: [0, 1] for LDR, [0, FLT_MAX]
// for HDR (OIDN's sanitization, as its own test suite checks with the same constant in all three
// images). Exact bounds.
TEST_P(OidnFilter, Sanitization) {
  OIDN_TEST_REQUIRE_WEIGHTS("rt_ldr_alb_nrm");
  OIDN_TEST_REQUIRE_WEIGHTS("rt_hdr_alb_nrm");
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  struct Case {
    bool hdr;
    float value;
  };
  for (const Case c : {Case{true, nan}, Case{true, inf}, Case{true, -inf}, Case{true, -100.0f}, Case{false, nan},
                       Case{false, inf}, Case{false, 10.0f}, Case{false, -2.0f}}) {
    SCOPED_TRACE(std::string(c.hdr ? "hdr " : "ldr ") + std::to_string(c.value));
    Image in(W, H, 3, c.value), out(W, H, 3, -1000.0f);
    oidn::FilterRef f = device.newFilter("RT");
    f.setImage("color", in.px.data(), Format::Float3, W, H);
    f.setImage("albedo", in.px.data(), Format::Float3, W, H);
    f.setImage("normal", in.px.data(), Format::Float3, W, H);
    f.setImage("output", out.px.data(), Format::Float3, W, H);
    f.set("hdr", c.hdr);
    f.commit();
    f.execute();
    EXPECT_OIDN_OK(device);
    const float hi = c.hdr ? std::numeric_limits<float>::max() : 1.0f;
    size_t bad = 0;
    for (float v : out.px) bad += !(v >= 0.0f && v <= hi);
    EXPECT_EQ(bad, 0u) << "values outside [0, " << hi << "] (or NaN)";
  }
}

// ---- Modes: hdr, srgb, inputScale, cleanAux, quality, maxMemoryMB -----------------------------

TEST_P(OidnFilter, HdrAndInputScale) {
  OIDN_TEST_REQUIRE_WEIGHTS("rt_hdr_alb_nrm");
  Image color = noisy_color(W, H, 13, 0.0f, 8.0f), albedo = plain_albedo(W, H), normal = plain_normal(W, H);
  auto hdr = [](float scale) {
    return [scale](oidn::FilterRef& f) {
      f.set("hdr", true);
      f.set("inputScale", scale);
    };
  };
  const Image automatic = denoise(color, &albedo, &normal, [](oidn::FilterRef& f) { f.set("hdr", true); });
  const Image unit_scale = denoise(color, &albedo, &normal, hdr(1.0f));
  // inputScale multiplies the color before the network and divides the output after it, so
  // denoising 2x the color at scale 0.5 is exactly 2x the result at scale 1 (every factor is a
  // power of two); tolerance 1e-6 in case an implementation folds the scale differently.
  Image doubled = color;
  for (float& v : doubled.px) v *= 2.0f;
  Image twice = denoise(doubled, &albedo, &normal, hdr(0.5f));
  for (float& v : twice.px) v *= 0.5f;
  EXPECT_LE(max_rel_diff(unit_scale, twice), 1e-6 + tol());
  // Another scale gives another result; the automatic one is some scale.
  const Image quarter = denoise(color, &albedo, &normal, hdr(0.25f));
  EXPECT_GT(max_rel_diff(unit_scale, quarter), 1e-4);
  EXPECT_TRUE(all_finite(automatic.px));
  // LDR and HDR differ on the same input.
  OIDN_TEST_REQUIRE_WEIGHTS("rt_ldr_alb_nrm");
  Image ldr_color = noisy_color(W, H, 13);
  const Image as_ldr = denoise(ldr_color, &albedo, &normal);
  const Image as_hdr = denoise(ldr_color, &albedo, &normal, hdr(1.0f));
  EXPECT_GT(max_rel_diff(as_ldr, as_hdr), 1e-3);
}

TEST_P(OidnFilter, Srgb) {
  REQUIRE_RT_LDR();
  Image rgb = noisy_color(W, H, 14);
  const Image linear = denoise(rgb);
  const Image srgb = denoise(rgb, nullptr, nullptr, [](oidn::FilterRef& f) { f.set("srgb", true); });
  EXPECT_GT(max_rel_diff(linear, srgb), 1e-3) << "srgb input skips the sRGB transfer curve";
}

TEST_P(OidnFilter, CleanAux) {
  OIDN_TEST_REQUIRE_WEIGHTS("rt_ldr_alb_nrm");
  Image rgb = noisy_color(W, H, 15), albedo = plain_albedo(W, H), normal = plain_normal(W, H);
  // User weights stand in for rt_ldr_calb_cnrm (same inputs): cleanAux changes only the choice of
  // built-in weights, so with the same user weights both runs agree.
  std::vector<char> blob = read_weights("rt_ldr_alb_nrm");
  auto with = [&](bool clean) {
    return [&, clean](oidn::FilterRef& f) {
      f.setData("weights", blob.data(), blob.size());
      f.set("cleanAux", clean);
    };
  };
  const Image noisy_aux = denoise(rgb, &albedo, &normal, with(false));
  const Image clean_aux = denoise(rgb, &albedo, &normal, with(true));
  EXPECT_LE(max_rel_diff(noisy_aux, clean_aux), tol());
  if (have_weights("rt_ldr_calb_cnrm")) {
    const Image builtin_clean = denoise(rgb, &albedo, &normal, [](oidn::FilterRef& f) { f.set("cleanAux", true); });
    EXPECT_GT(max_rel_diff(noisy_aux, builtin_clean), 1e-4) << "cleanAux picks rt_ldr_calb_cnrm";
  }
}

// Volvox's extension for animations: "motion" and "depth" images and the "temporal" parameters
// (oidn.h). With a still camera the second frame's output moves toward the first's; a
// "temporalReset" (no commit needed) makes it the per-frame output again.
TEST_P(OidnFilter, TemporalExtension) {
  REQUIRE_RT_LDR();
  Image first = noisy_color(W, H, 20), second = noisy_color(W, H, 21);
  std::vector<float> motion(size_t(W) * H * 2, 0.0f), depth(size_t(W) * H, 1.0f);
  const Image plain_second = denoise(second);
  Image out(W, H, 3, -1.0f);
  oidn::FilterRef f = device.newFilter("RT");
  f.setImage("output", out.px.data(), Format::Float3, W, H);
  f.setImage("motion", motion.data(), Format::Float2, W, H);
  f.setImage("depth", depth.data(), Format::Float, W, H);
  f.set("temporal", 1);
  f.set("temporalBlend", 0.5f);
  EXPECT_EQ(f.get<int>("temporal"), 1);
  EXPECT_EQ(f.get<float>("temporalBlend"), 0.5f);
  auto run = [&](Image& color) {
    f.setImage("color", color.px.data(), Format::Float3, W, H);
    f.commit();
    f.execute();
    EXPECT_OIDN_OK(device);
  };
  run(first);
  const Image first_out = out;
  run(second);
  EXPECT_GT(max_rel_diff(out, plain_second), 1e-3) << "the history changed nothing";
  EXPECT_LT(max_rel_diff(out, first_out), max_rel_diff(plain_second, first_out)) << "not moved toward the history";
  f.set("temporalReset", true);
  f.execute();  // no commit: a reset is not a change
  EXPECT_OIDN_OK(device);
  EXPECT_LE(max_rel_diff(out, plain_second), tol());
  f.set("temporal", 2);
  EXPECT_OIDN_ERROR(device, InvalidArgument);
  f.set("temporalBlend", 1.0f);
  EXPECT_OIDN_ERROR(device, InvalidArgument);
}

TEST_P(OidnFilter, QualityModes) {
  REQUIRE_RT_LDR();
  Image rgb = noisy_color(W, H, 16);
  std::vector<char> blob = read_weights("rt_ldr");
  // With user weights every mode runs the given network.
  for (Quality q : {Quality::Fast, Quality::Balanced, Quality::High, Quality::Default}) {
    SCOPED_TRACE(::testing::PrintToString(q));
    const Image out = denoise(rgb, nullptr, nullptr, [&](oidn::FilterRef& f) {
      f.setData("weights", blob.data(), blob.size());
      f.set("quality", q);
    });
    EXPECT_TRUE(all_finite(out.px));
  }
  // With built-in weights Fast picks the small network (rt_ldr_small) where it exists.
  if (have_weights("rt_ldr_small")) {
    const Image high = denoise(rgb);
    const Image fast = denoise(rgb, nullptr, nullptr, [](oidn::FilterRef& f) { f.set("quality", Quality::Fast); });
    EXPECT_GT(max_rel_diff(high, fast), 1e-3) << "Fast and High use different networks";
    // Balanced is the base network: rt_ldr, which High uses too (there is no large rt_ldr);
    // within half precision, as Balanced may compute in fp16 on GPUs (OIDN's fast math).
    const Image balanced =
        denoise(rgb, nullptr, nullptr, [](oidn::FilterRef& f) { f.set("quality", Quality::Balanced); });
    EXPECT_LE(max_rel_diff(high, balanced), GetParam() == Backend::cpu ? 0.0 : 2e-2);
  }
}

TEST_P(OidnFilter, MaxMemoryAndTileParameters) {
  REQUIRE_RT_LDR();
  Image rgb = noisy_color(W, H, 17);
  const Image ref = denoise(rgb);
  Image out(W, H, 3);
  oidn::FilterRef f = device.newFilter("RT");
  f.setImage("color", rgb.px.data(), Format::Float3, W, H);
  f.setImage("output", out.px.data(), Format::Float3, W, H);
  f.set("maxMemoryMB", 200);
  f.commit();
  EXPECT_EQ(f.get<int>("maxMemoryMB"), 200);
  const int alignment = f.get<int>("tileAlignment");
  const int overlap = f.get<int>("tileOverlap");
  EXPECT_OIDN_OK(device);
  EXPECT_GE(alignment, 1);
  EXPECT_GE(overlap, 0);
  if (alignment > 0) {
    EXPECT_EQ(overlap % alignment, 0) << "OIDN rounds the overlap up to the alignment";
  }
  f.execute();
  EXPECT_OIDN_OK(device);
  EXPECT_LE(max_rel_diff(ref, out), tol()) << "one tile either way at this size";
  f.set("maxMemoryMB", -1);
  f.commit();
  f.execute();
  EXPECT_OIDN_OK(device);
  EXPECT_LE(max_rel_diff(ref, out), tol());
  // OIDN's limit sizes tiles but never below 768 pixels and never refuses: 0 MB (OIDN's own tests
  // use it) still denoises this image in one tile.
  f.set("maxMemoryMB", 0);
  f.commit();
  f.execute();
  EXPECT_OIDN_OK(device) << "maxMemoryMB 0";
  EXPECT_LE(max_rel_diff(ref, out), tol());
}

// ---- Weights ----------------------------------------------------------------------------------

TEST_P(OidnFilter, UserWeightsSetUpdateUnset) {
  REQUIRE_RT_LDR();
  Image rgb = noisy_color(W, H, 18);
  const Image builtin = denoise(rgb);
  std::vector<char> blob = read_weights("rt_ldr");
  Image out(W, H, 3);
  oidn::FilterRef f = device.newFilter("RT");
  f.setImage("color", rgb.px.data(), Format::Float3, W, H);
  f.setImage("output", out.px.data(), Format::Float3, W, H);
  f.setData("weights", blob.data(), blob.size());
  f.commit();
  f.execute();
  EXPECT_OIDN_OK(device);
  EXPECT_LE(max_rel_diff(builtin, out), tol()) << "the same weights as the built-in ones";

  // Change a tensor in place, tell the filter, and the result changes; restore it and it is back.
  // (enc_conv0.bias: the first layer's biases, not zero in OIDN's files; dec_conv0.bias is.)
  const std::vector<TzaTensor> tensors = tza_tensors(blob);
  const TzaTensor* bias = nullptr;
  for (const TzaTensor& t : tensors) {
    if (t.name == "enc_conv0.bias") bias = &t;
  }
  ASSERT_NE(bias, nullptr) << "rt_ldr.tza has enc_conv0.bias";
  ASSERT_TRUE(std::any_of(blob.begin() + bias->offset, blob.begin() + bias->offset + bias->bytes,
                          [](char c) { return c != 0; }))
      << "enc_conv0.bias is not all zero";
  const std::vector<char> saved(blob.begin() + bias->offset, blob.begin() + bias->offset + bias->bytes);
  std::memset(blob.data() + bias->offset, 0, bias->bytes);
  f.updateData("weights");
  f.execute();
  EXPECT_OIDN_ERROR(device, InvalidOperation) << "updateData is a change to commit";
  f.commit();
  f.execute();
  EXPECT_OIDN_OK(device);
  EXPECT_GT(max_rel_diff(builtin, out), 1e-3) << "zeroed first-layer biases change the result";
  std::memcpy(blob.data() + bias->offset, saved.data(), saved.size());
  f.updateData("weights");
  f.commit();
  f.execute();
  EXPECT_OIDN_OK(device);
  EXPECT_LE(max_rel_diff(builtin, out), tol()) << "restored";

  // Corrupt weights: a clean error at commit.
  f.setData("weights", blob.data(), 100);
  f.commit();
  EXPECT_FALSE(has_error(device, Error::None)) << "a truncated weights blob";
  f.execute();
  EXPECT_FALSE(has_error(device, Error::None)) << "executing after the failed commit";

  // unsetData: back to the built-in weights.
  f.unsetData("weights");
  f.commit();
  f.execute();
  EXPECT_OIDN_OK(device);
  EXPECT_LE(max_rel_diff(builtin, out), tol());
}

TEST_P(OidnFilter, RTLightmap) {
  Image color = noisy_color(W, H, 19, 0.0f, 4.0f), out(W, H, 3, -1.0f);
  oidn::FilterRef f = device.newFilter("RTLightmap");
  f.setImage("color", color.px.data(), Format::Float3, W, H);
  f.setImage("output", out.px.data(), Format::Float3, W, H);
  f.commit();
  EXPECT_FALSE(has_error(device, Error::None)) << "no lightmap weights are built in (oidn.h): commit fails";
  f.execute();
  EXPECT_FALSE(has_error(device, Error::None)) << "nor can it execute";

  // Any RT 3-channel TZA stands in for lightmap weights.
  REQUIRE_RT_LDR();
  std::vector<char> blob = read_weights("rt_ldr");
  f.setData("weights", blob.data(), blob.size());
  f.commit();
  f.execute();
  EXPECT_OIDN_OK(device);
  EXPECT_TRUE(all_finite(out.px));
  const Image hdr_out = out;
  f.set("directional", true);
  f.commit();
  f.execute();
  EXPECT_OIDN_OK(device);
  EXPECT_TRUE(all_finite(out.px));
  EXPECT_GT(max_rel_diff(hdr_out, out), 1e-4) << "directional uses the linear transfer instead of the log one";
  f.set("inputScale", 0.5f);
  EXPECT_EQ(f.get<float>("inputScale"), 0.5f);
  f.commit();
  f.execute();
  EXPECT_OIDN_OK(device);
}

// ---- Progress and cancellation ----------------------------------------------------------------

struct ProgressLog {
  std::vector<double> values;
  int cancel_at = -1;  // the call (0-based) that returns false; -1: never
  static bool callback(void* user, double n) {
    auto* log = static_cast<ProgressLog*>(user);
    log->values.push_back(n);
    return int(log->values.size()) - 1 != log->cancel_at;
  }
};

TEST_P(OidnFilter, ProgressMonitor) {
  REQUIRE_RT_LDR();
  Image rgb = noisy_color(W, H, 20);
  const Image ref = denoise(rgb);
  Image out(W, H, 3);
  oidn::FilterRef f = device.newFilter("RT");
  f.setImage("color", rgb.px.data(), Format::Float3, W, H);
  f.setImage("output", out.px.data(), Format::Float3, W, H);
  ProgressLog log;
  f.setProgressMonitorFunction(ProgressLog::callback, &log);
  f.commit();
  f.execute();
  EXPECT_OIDN_OK(device);
  ASSERT_GE(log.values.size(), 1u);
  for (size_t i = 0; i < log.values.size(); ++i) {
    EXPECT_GE(log.values[i], 0.0) << i;
    EXPECT_LE(log.values[i], 1.0) << i;
    if (i) {
      EXPECT_GE(log.values[i], log.values[i - 1]) << "progress never goes back (call " << i << ")";
    }
  }
  EXPECT_NEAR(log.values.back(), 1.0, 1e-9) << "a finished execution reports 1";
  if (GetParam() == Backend::cpu)  // per layer (OIDN: per operation), so that a cancel is quick
    EXPECT_GT(log.values.size(), 10u) << "progress calls in a one-tile CPU execution";
  EXPECT_LE(max_rel_diff(ref, out), tol()) << "monitoring does not change the result";

  // Asynchronous execution reports progress too.
  log.values.clear();
  f.executeAsync();
  device.sync();
  EXPECT_OIDN_OK(device);
  EXPECT_GE(log.values.size(), 1u);

  // Removing the monitor: no more calls.
  log.values.clear();
  f.setProgressMonitorFunction(nullptr);
  f.execute();
  EXPECT_OIDN_OK(device);
  EXPECT_TRUE(log.values.empty());
}

TEST_P(OidnFilter, ProgressMonitorCancels) {
  REQUIRE_RT_LDR();
  Image rgb = noisy_color(W, H, 21);
  const Image ref = denoise(rgb);
  Image out(W, H, 3);
  oidn::FilterRef f = device.newFilter("RT");
  f.setImage("color", rgb.px.data(), Format::Float3, W, H);
  f.setImage("output", out.px.data(), Format::Float3, W, H);
  f.commit();
  ProgressLog log;
  log.cancel_at = 0;  // the first call cancels
  f.setProgressMonitorFunction(ProgressLog::callback, &log);
  f.execute();
  EXPECT_OIDN_ERROR(device, Cancelled);
  EXPECT_GE(log.values.size(), 1u);

  // Cancelled asynchronously: reported by the sync at the latest.
  log.values.clear();
  f.executeAsync();
  device.sync();
  EXPECT_OIDN_ERROR(device, Cancelled);

  // The filter still works afterwards.
  log.values.clear();
  log.cancel_at = -1;
  f.execute();
  EXPECT_OIDN_OK(device);
  EXPECT_LE(max_rel_diff(ref, out), tol());
}

// ---- References and deprecated names ----------------------------------------------------------

TEST_P(OidnFilter, ReferenceCountingAndDeprecatedNames) {
  oidn::FilterRef f = device.newFilter("RT");
  ASSERT_TRUE(bool(f));
  const OIDNFilter h = f.getHandle();
  {
    oidn::FilterRef copy = f;
    oidn::FilterRef other = device.newFilter("RTLightmap");
    other = copy;
    other = std::move(copy);
    EXPECT_EQ(other.getHandle(), h);
    oidn::FilterRef adopted;
    adopted = h;  // a new reference
  }
  oidnRetainFilter(h);
  oidnReleaseFilter(h);
  f.set("hdr", true);
  EXPECT_TRUE(f.get<bool>("hdr"));
  EXPECT_OIDN_OK(device);

#if defined(__GNUC__)
  #pragma GCC diagnostic push
  #pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
  float px[3] = {};
  f.setImage("albedo", px, Format::Float3, 1, 1);
  f.removeImage("albedo");
  f.setData("weights", px, sizeof(px));
  f.removeData("weights");
  oidnSetFilter1b(h, "srgb", true);
  EXPECT_TRUE(oidnGetFilter1b(h, "srgb"));
  oidnSetFilter1i(h, "maxMemoryMB", 64);
  EXPECT_EQ(oidnGetFilter1i(h, "maxMemoryMB"), 64);
  oidnSetFilter1f(h, "inputScale", 2.0f);
  EXPECT_EQ(oidnGetFilter1f(h, "inputScale"), 2.0f);
  oidnRemoveFilterImage(h, "color");
  oidnRemoveFilterData(h, "weights");
#if defined(__GNUC__)
  #pragma GCC diagnostic pop
#endif
  EXPECT_OIDN_OK(device);
}

INSTANTIATE_TEST_SUITE_P(, OidnFilter, kBackends, backend_param_name);

}  // namespace
}  // namespace oidn_test

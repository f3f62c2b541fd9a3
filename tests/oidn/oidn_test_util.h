// Shared by the OIDN API tests (test_oidn_api): the devices under test, weights files, images,
// half floats and error checks. Everything here uses only OIDN's public headers (and the C
// library): the suite tests libOpenImageDenoise.so.2 as a program written for OIDN sees it.
#pragma once

#include <gtest/gtest.h>

#include <OpenImageDenoise/oidn.hpp>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

// gtest prints the enums by name.
namespace oidn {
void PrintTo(Error e, std::ostream* os);
void PrintTo(DeviceType t, std::ostream* os);
void PrintTo(Storage s, std::ostream* os);
void PrintTo(Quality q, std::ostream* os);
void PrintTo(Format f, std::ostream* os);
}  // namespace oidn

namespace oidn_test {

// ---- Devices ----------------------------------------------------------------------------------

enum class Backend { cpu, vulkan };
std::string backend_name(Backend b);
void PrintTo(Backend b, std::ostream* os);  // "Cpu" / "Vulkan" in failure messages
inline std::string backend_param_name(const ::testing::TestParamInfo<Backend>& info) {
  return backend_name(info.param);
}
inline const auto kBackends = ::testing::Values(Backend::cpu, Backend::vulkan);

// The ID of the first physical device whose "type" is OIDN_DEVICE_TYPE_VULKAN, or -1.
int vulkan_physical_device_id();
// Why there is no Vulkan device (the physical devices' types), for a skip message.
std::string no_vulkan_reason();

// A new, uncommitted device of the backend (the CPU by type, Vulkan by the physical device's ID);
// empty with `why` set when the backend has no device here.
oidn::DeviceRef new_device(Backend b, std::string* why);
// One committed device per backend for the whole run (buffer, filter and number tests share it:
// creating a Vulkan device is slow on lavapipe); empty with `why` set when there is none. Its
// error function is cleared and its pending error dropped on each call.
oidn::DeviceRef shared_device(Backend b, std::string* why);

// The device's pending error is `expected` (message printed on mismatch); clears it.
::testing::AssertionResult has_error(oidn::DeviceRef& device, oidn::Error expected);
// The calling thread's pending error of calls without a device is `expected`; clears it.
::testing::AssertionResult has_global_error(oidn::Error expected);
#define EXPECT_OIDN_OK(device) EXPECT_TRUE(::oidn_test::has_error(device, ::oidn::Error::None))
#define ASSERT_OIDN_OK(device) ASSERT_TRUE(::oidn_test::has_error(device, ::oidn::Error::None))
#define EXPECT_OIDN_ERROR(device, code) EXPECT_TRUE(::oidn_test::has_error(device, ::oidn::Error::code))

// Every error a device reported through its error function.
struct ErrorLog {
  struct Entry {
    oidn::Error code;
    std::string message;
    bool message_was_null;
  };
  std::vector<Entry> entries;
  static void callback(void* user, oidn::Error code, const char* message);
};

// ---- Weights ----------------------------------------------------------------------------------

// The folder of OIDN's weight files the suite uses: $VOLVOX_WEIGHTS when set; else ../shared/weights
// beside the source tree ($VOLVOX_SHARED/weights when that is set), and then the suite sets
// VOLVOX_WEIGHTS to it at start-up so that the libraries find the same files. A folder of all 21
// OIDN files runs the tests that ../shared's three files skip (rt_alb, rt_ldr_small, ...).
std::filesystem::path weights_dir();
bool have_weights(const std::string& name);  // <weights_dir>/<name>.tza exists
std::vector<char> read_weights(const std::string& name);  // empty when absent

#define OIDN_TEST_REQUIRE_WEIGHTS(name)                                                           \
  do {                                                                                           \
    if (!::oidn_test::have_weights(name))                                                        \
      GTEST_SKIP() << (name) << ".tza is absent from " << ::oidn_test::weights_dir().string()     \
                   << " (set VOLVOX_WEIGHTS to a folder of OIDN's weights)";                    \
  } while (0)

// A TZA tensor's data inside a blob (offset and byte count), to edit weights in place.
struct TzaTensor {
  std::string name;
  size_t offset = 0, bytes = 0;
};
std::vector<TzaTensor> tza_tensors(const std::vector<char>& blob);

// ---- Images -----------------------------------------------------------------------------------

// Interleaved float pixels.
struct Image {
  int width = 0, height = 0, channels = 0;
  std::vector<float> px;
  Image() = default;
  Image(int w, int h, int c, float fill = 0.0f) : width(w), height(h), channels(c), px(size_t(w) * h * c, fill) {}
  float& at(int x, int y, int c) { return px[(size_t(y) * width + x) * channels + c]; }
  float at(int x, int y, int c) const { return px[(size_t(y) * width + x) * channels + c]; }
  size_t bytes() const { return px.size() * sizeof(float); }
};

// A noisy render-like image: smooth gradients plus per-pixel noise, values in [lo, hi], each a
// multiple of 1/1024 (exact in half precision, so that Half and Float inputs are equal).
Image noisy_color(int w, int h, uint64_t seed, float lo = 0.0f, float hi = 1.0f);
Image plain_albedo(int w, int h);   // in [0.2, 0.8], smooth
Image plain_normal(int w, int h);   // unit vectors in [-1, 1], smooth
// The first `c` channels of `img` (c <= img.channels), or channel `src[i]` for output channel i.
Image select_channels(const Image& img, const std::vector<int>& src);

// max |a - b| / max(1, |a|): absolute for small values, relative for large ones; infinity when a
// NaN appears or the sizes differ.
double max_rel_diff(const std::vector<float>& a, const std::vector<float>& b);
double max_rel_diff(const Image& a, const Image& b);
bool all_finite(const std::vector<float>& v);

// IEEE binary16 conversions (round to nearest even).
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);

// Tolerances of the suite. The same network on the same inputs through two API paths on one
// device: bitwise on the CPU; on Vulkan within 1e-5 (max_rel_diff), since another dispatch shape
// may order a GPU's sums differently.
double same_device_tolerance(Backend b);
// A half output against the float output: one rounding to half (2^-11 relative) plus the path's
// own tolerance.
inline double half_tolerance(Backend b) { return 1.0 / 1024 + same_device_tolerance(b); }

}  // namespace oidn_test

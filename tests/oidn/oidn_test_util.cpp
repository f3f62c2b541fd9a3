#include "oidn_test_util.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

namespace oidn {

namespace {
const char* error_name(Error e) {
  switch (e) {
    case Error::None: return "None";
    case Error::Unknown: return "Unknown";
    case Error::InvalidArgument: return "InvalidArgument";
    case Error::InvalidOperation: return "InvalidOperation";
    case Error::OutOfMemory: return "OutOfMemory";
    case Error::UnsupportedHardware: return "UnsupportedHardware";
    case Error::Cancelled: return "Cancelled";
  }
  return nullptr;
}
}  // namespace

void PrintTo(Error e, std::ostream* os) {
  if (const char* n = error_name(e))
    *os << "Error::" << n;
  else
    *os << "Error(" << int(e) << ")";
}

void PrintTo(DeviceType t, std::ostream* os) {
  switch (t) {
    case DeviceType::Default: *os << "DeviceType::Default"; return;
    case DeviceType::CPU: *os << "DeviceType::CPU"; return;
    case DeviceType::SYCL: *os << "DeviceType::SYCL"; return;
    case DeviceType::CUDA: *os << "DeviceType::CUDA"; return;
    case DeviceType::HIP: *os << "DeviceType::HIP"; return;
    case DeviceType::Metal: *os << "DeviceType::Metal"; return;
    case DeviceType::Vulkan: *os << "DeviceType::Vulkan"; return;
  }
  *os << "DeviceType(" << int(t) << ")";
}

void PrintTo(Storage s, std::ostream* os) {
  switch (s) {
    case Storage::Undefined: *os << "Storage::Undefined"; return;
    case Storage::Host: *os << "Storage::Host"; return;
    case Storage::Device: *os << "Storage::Device"; return;
    case Storage::Managed: *os << "Storage::Managed"; return;
  }
  *os << "Storage(" << int(s) << ")";
}

void PrintTo(Quality q, std::ostream* os) {
  switch (q) {
    case Quality::Default: *os << "Quality::Default"; return;
    case Quality::Fast: *os << "Quality::Fast"; return;
    case Quality::Balanced: *os << "Quality::Balanced"; return;
    case Quality::High: *os << "Quality::High"; return;
  }
  *os << "Quality(" << int(q) << ")";
}

void PrintTo(Format f, std::ostream* os) { *os << "Format(" << int(f) << ")"; }

}  // namespace oidn

namespace oidn_test {

namespace fs = std::filesystem;

// ---- Weights ----------------------------------------------------------------------------------

namespace {

fs::path shared_weights_dir() {
  if (const char* env = std::getenv("VOLVOX_SHARED"); env && *env) return fs::path(env) / "weights";
  return fs::path(OIDN_TEST_SOURCE_DIR) / ".." / "shared" / "weights";
}

// Before main (and before any test creates a filter): the libraries look for weights in
// $VOLVOX_WEIGHTS, so point it at the suite's folder when the user has not.
const fs::path g_weights_dir = [] {
  if (const char* env = std::getenv("VOLVOX_WEIGHTS"); env && *env) return fs::path(env);
  fs::path dir = shared_weights_dir();
  std::error_code ec;
  if (fs::is_directory(dir, ec)) {
    dir = fs::canonical(dir, ec);
    setenv("VOLVOX_WEIGHTS", dir.c_str(), 0);
  }
  return dir;
}();

}  // namespace

fs::path weights_dir() { return g_weights_dir; }

bool have_weights(const std::string& name) {
  std::error_code ec;
  return fs::is_regular_file(g_weights_dir / (name + ".tza"), ec);
}

std::vector<char> read_weights(const std::string& name) {
  std::ifstream in(g_weights_dir / (name + ".tza"), std::ios::binary);
  if (!in) return {};
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<TzaTensor> tza_tensors(const std::vector<char>& blob) {
  // Version 2: magic 0x41D7 (u16), major, minor (u8), table offset (u64); the table: count (u32),
  // then per tensor name length (u16), name, ndims (u8), dims (u32 each), layout (ndims chars),
  // type ('f' / 'h'), data offset (u64).
  std::vector<TzaTensor> out;
  size_t pos = 0;
  auto take = [&](void* dst, size_t n) {
    if (pos + n > blob.size()) throw std::runtime_error("truncated TZA");
    std::memcpy(dst, blob.data() + pos, n);
    pos += n;
  };
  uint16_t magic = 0;
  uint8_t major = 0, minor = 0;
  uint64_t table = 0;
  take(&magic, 2);
  take(&major, 1);
  take(&minor, 1);
  take(&table, 8);
  if (magic != 0x41D7 || major != 2) throw std::runtime_error("not a version-2 TZA");
  pos = table;
  uint32_t count = 0;
  take(&count, 4);
  for (uint32_t i = 0; i < count; ++i) {
    uint16_t len = 0;
    take(&len, 2);
    TzaTensor t;
    t.name.resize(len);
    take(t.name.data(), len);
    uint8_t ndims = 0;
    take(&ndims, 1);
    size_t elements = 1;
    for (int d = 0; d < ndims; ++d) {
      uint32_t dim = 0;
      take(&dim, 4);
      elements *= dim;
    }
    pos += ndims;  // layout
    char type = 0;
    take(&type, 1);
    uint64_t offset = 0;
    take(&offset, 8);
    t.offset = offset;
    t.bytes = elements * (type == 'h' ? 2 : 4);
    out.push_back(t);
  }
  return out;
}

// ---- Devices ----------------------------------------------------------------------------------

std::string backend_name(Backend b) { return b == Backend::cpu ? "Cpu" : "Vulkan"; }
void PrintTo(Backend b, std::ostream* os) { *os << backend_name(b); }

int vulkan_physical_device_id() {
  const int n = oidn::getNumPhysicalDevices();
  for (int i = 0; i < n; ++i)
    if (oidn::PhysicalDeviceRef(i).get<int>("type") == OIDN_DEVICE_TYPE_VULKAN) return i;
  return -1;
}

std::string no_vulkan_reason() {
  std::ostringstream s;
  const int n = oidn::getNumPhysicalDevices();
  s << "no physical device of type OIDN_DEVICE_TYPE_VULKAN (" << n << " physical device" << (n == 1 ? "" : "s")
    << ":";
  for (int i = 0; i < n; ++i) {
    oidn::PhysicalDeviceRef p(i);
    s << " " << i << " type " << p.get<int>("type") << " '" << p.get<std::string>("name") << "'";
  }
  s << "): the Vulkan half of the suite is skipped";
  return s.str();
}

oidn::DeviceRef new_device(Backend b, std::string* why) {
  if (b == Backend::cpu) {
    oidn::DeviceRef d = oidn::newDevice(oidn::DeviceType::CPU);
    if (!d) {
      const char* msg = nullptr;
      oidn::getError(msg);
      *why = std::string("the CPU device cannot be created: ") + (msg ? msg : "(no message)");
    }
    return d;
  }
  const int id = vulkan_physical_device_id();
  if (id < 0) {
    *why = no_vulkan_reason();
    return {};
  }
  oidn::DeviceRef d = oidn::newDevice(id);
  if (!d) {
    const char* msg = nullptr;
    oidn::getError(msg);
    *why = "physical device " + std::to_string(id) + " (Vulkan) cannot be opened: " + (msg ? msg : "(no message)");
  }
  return d;
}

namespace {

struct SharedDevices : ::testing::Environment {
  std::map<Backend, oidn::DeviceRef> devices;
  std::map<Backend, std::string> reasons;
  void TearDown() override { devices.clear(); }
};

SharedDevices* shared_devices() {
  static SharedDevices* env = static_cast<SharedDevices*>(::testing::AddGlobalTestEnvironment(new SharedDevices));
  return env;
}
// Registered before main so that gtest tears the devices down before the libraries unload.
[[maybe_unused]] SharedDevices* const g_shared_devices = shared_devices();

}  // namespace

oidn::DeviceRef shared_device(Backend b, std::string* why) {
  SharedDevices* env = shared_devices();
  if (!env->devices.count(b) && !env->reasons.count(b)) {
    std::string reason;
    oidn::DeviceRef d = new_device(b, &reason);
    if (d) {
      d.commit();
      const char* msg = nullptr;
      if (d.getError(msg) != oidn::Error::None) {
        reason = std::string("committing the device failed: ") + (msg ? msg : "(no message)");
        d.release();
      }
    }
    if (d)
      env->devices[b] = d;
    else
      env->reasons[b] = reason;
  }
  if (auto it = env->reasons.find(b); it != env->reasons.end()) {
    *why = it->second;
    return {};
  }
  oidn::DeviceRef d = env->devices[b];
  d.setErrorFunction(nullptr, nullptr);
  d.getError();
  return d;
}

::testing::AssertionResult has_error(oidn::DeviceRef& device, oidn::Error expected) {
  const char* msg = nullptr;
  const oidn::Error got = device.getError(msg);
  if (got == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << (device ? "device" : "global") << " error is "
                                       << ::testing::PrintToString(got) << " ("
                                       << (msg ? msg : "no message") << "), expected "
                                       << ::testing::PrintToString(expected);
}

::testing::AssertionResult has_global_error(oidn::Error expected) {
  oidn::DeviceRef none;
  return has_error(none, expected);
}

void ErrorLog::callback(void* user, oidn::Error code, const char* message) {
  static_cast<ErrorLog*>(user)->entries.push_back({code, message ? message : "", message == nullptr});
}

// ---- Images -----------------------------------------------------------------------------------

namespace {
uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}
float unit(uint64_t seed, uint64_t i) { return float(mix(seed * 0x9E3779B97F4A7C15ull + i) >> 40) / float(1 << 24); }
float quantize(float v) { return std::round(v * 1024.0f) / 1024.0f; }
}  // namespace

Image noisy_color(int w, int h, uint64_t seed, float lo, float hi) {
  Image img(w, h, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) {
        const float base = 0.5f + 0.35f * std::sin(0.21f * x + 1.3f * c) * std::cos(0.17f * y - 0.7f * c);
        const float noise = (unit(seed, (size_t(y) * w + x) * 3 + c) - 0.5f) * 0.6f;
        const float v = lo + (hi - lo) * std::clamp(base + noise, 0.0f, 1.0f);
        img.at(x, y, c) = quantize(v);
      }
  return img;
}

Image plain_albedo(int w, int h) {
  Image img(w, h, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c)
        img.at(x, y, c) = quantize(0.5f + 0.3f * std::sin(0.13f * x + 0.11f * y + c));
  return img;
}

Image plain_normal(int w, int h) {
  Image img(w, h, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float a = 0.1f * x, b = 0.08f * y;
      const float n[3] = {std::sin(a) * std::cos(b), std::sin(b), std::cos(a) * std::cos(b)};
      for (int c = 0; c < 3; ++c) img.at(x, y, c) = quantize(n[c]);
    }
  return img;
}

Image select_channels(const Image& img, const std::vector<int>& src) {
  Image out(img.width, img.height, int(src.size()));
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x)
      for (size_t c = 0; c < src.size(); ++c) out.at(x, y, int(c)) = img.at(x, y, src[c]);
  return out;
}

double max_rel_diff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = std::abs(double(a[i]) - double(b[i])) / std::max(1.0, std::abs(double(a[i])));
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, d);
  }
  return worst;
}

double max_rel_diff(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height || a.channels != b.channels)
    return std::numeric_limits<double>::infinity();
  return max_rel_diff(a.px, b.px);
}

bool all_finite(const std::vector<float>& v) {
  return std::all_of(v.begin(), v.end(), [](float f) { return std::isfinite(f); });
}

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) return uint16_t(sign | 0x7C00u | (abs > 0x7F800000u ? 0x200u : 0u));  // inf / NaN
  if (abs >= 0x477FF000u) return uint16_t(sign | 0x7C00u);  // rounds to >= 65520: inf
  if (abs < 0x38800000u) {  // below 2^-14: subnormal half (or zero)
    if (abs < 0x33000000u) return uint16_t(sign);  // below half the smallest subnormal
    const uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
    const int shift = 126 - int(abs >> 23);  // 14..24
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (h & 1))) ++h;
    return uint16_t(sign | h);
  }
  uint32_t h = ((abs >> 13) - (112u << 10));
  const uint32_t rem = abs & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;
  return uint16_t(sign | h);
}

float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  float f;
  if (exp == 0) {
    f = std::ldexp(float(mant), -24);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits |= sign;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  uint32_t bits = exp == 31 ? (sign | 0x7F800000u | (mant << 13)) : (sign | ((exp + 112u) << 23) | (mant << 13));
  std::memcpy(&f, &bits, 4);
  return f;
}

double same_device_tolerance(Backend b) { return b == Backend::cpu ? 0.0 : 1e-5; }

}  // namespace oidn_test

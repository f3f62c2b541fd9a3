// OIDN buffers on the CPU and on Vulkan: each storage, shared buffers over host memory, reads and
// writes (blocking and asynchronous), their bounds, external memory and reference counting.
#include <cstring>
#include <numeric>

#include "oidn_test_util.h"

namespace oidn_test {
namespace {

using oidn::Error;
using oidn::Storage;

class OidnBuffer : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    std::string why;
    device = shared_device(GetParam(), &why);
    if (!device) GTEST_SKIP() << why;
  }
  oidn::DeviceRef device;
};

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(i * 7 + seed);
  return v;
}

// Writes then reads back through the blocking and the asynchronous calls.
void round_trip(oidn::DeviceRef& device, oidn::BufferRef& b) {
  const size_t n = b.getSize();
  const auto src = pattern(n, 3);
  b.write(0, n, src.data());
  std::vector<uint8_t> dst(n, 0);
  b.read(0, n, dst.data());
  EXPECT_OIDN_OK(device);
  EXPECT_EQ(dst, src) << "blocking write then read";

  const auto src2 = pattern(n, 11);
  b.writeAsync(0, n, src2.data());
  std::vector<uint8_t> dst2(n, 0);
  b.readAsync(0, n, dst2.data());
  device.sync();
  EXPECT_OIDN_OK(device);
  EXPECT_EQ(dst2, src2) << "writeAsync, readAsync, then sync (in order on the device)";

  // A sub-range.
  const uint8_t mid[5] = {1, 2, 3, 4, 5};
  b.write(17, 5, mid);
  uint8_t back[7] = {};
  b.read(16, 7, back);
  EXPECT_OIDN_OK(device);
  EXPECT_EQ(back[0], src2[16]);
  EXPECT_EQ(std::memcmp(back + 1, mid, 5), 0);
  EXPECT_EQ(back[6], src2[22]);
}

TEST_P(OidnBuffer, DefaultStorage) {
  oidn::BufferRef b = device.newBuffer(1000);
  ASSERT_TRUE(bool(b));
  EXPECT_OIDN_OK(device);
  EXPECT_EQ(b.getSize(), 1000u);
  const Storage s = b.getStorage();
  EXPECT_TRUE(s == Storage::Host || s == Storage::Device || s == Storage::Managed) << ::testing::PrintToString(s);
  if (GetParam() == Backend::cpu) {
    // OIDN's rule for its CPU (core/buffer.cpp): managed memory where supported, else host.
    EXPECT_EQ(s, device.get<bool>("managedMemorySupported") ? Storage::Managed : Storage::Host);
    EXPECT_NE(b.getData(), nullptr);
  }
  if (s == Storage::Device) {
    EXPECT_EQ(b.getData(), nullptr);
  } else {
    EXPECT_NE(b.getData(), nullptr);
  }
  round_trip(device, b);
  // Undefined storage means the default.
  oidn::BufferRef u = device.newBuffer(64, Storage::Undefined);
  ASSERT_TRUE(bool(u));
  EXPECT_EQ(u.getStorage(), s);
  EXPECT_OIDN_OK(device);
}

TEST_P(OidnBuffer, HostStorage) {
  oidn::BufferRef b = device.newBuffer(333, Storage::Host);
  ASSERT_TRUE(bool(b)) << ::testing::PrintToString(device.getError());
  EXPECT_EQ(b.getStorage(), Storage::Host);
  EXPECT_EQ(b.getSize(), 333u);
  auto* p = static_cast<uint8_t*>(b.getData());
  ASSERT_NE(p, nullptr) << "host storage is addressable by the host";
  // The pointer and read/write see the same bytes.
  const auto src = pattern(333, 5);
  std::memcpy(p, src.data(), src.size());
  std::vector<uint8_t> dst(333);
  b.read(0, 333, dst.data());
  EXPECT_EQ(dst, src);
  const uint8_t v = 0xA5;
  b.write(100, 1, &v);
  EXPECT_EQ(p[100], 0xA5);
  round_trip(device, b);
}

TEST_P(OidnBuffer, DeviceStorage) {
  oidn::BufferRef b = device.newBuffer(4096 + 3, Storage::Device);
  ASSERT_TRUE(bool(b)) << ::testing::PrintToString(device.getError());
  EXPECT_EQ(b.getStorage(), Storage::Device);
  EXPECT_EQ(b.getSize(), 4099u);
  EXPECT_EQ(b.getData(), nullptr) << "device storage has no host address (oidn.h)";
  EXPECT_OIDN_OK(device);
  round_trip(device, b);
}

TEST_P(OidnBuffer, ManagedStorageWhereSupported) {
  const bool supported = device.get<bool>("managedMemorySupported");
  oidn::BufferRef b = device.newBuffer(512, Storage::Managed);
  if (supported) {
    ASSERT_TRUE(bool(b)) << ::testing::PrintToString(device.getError());
    EXPECT_EQ(b.getStorage(), Storage::Managed);
    EXPECT_NE(b.getData(), nullptr);
    round_trip(device, b);
  } else {
    // A clean error: no buffer, an error code, no crash.
    EXPECT_FALSE(bool(b));
    EXPECT_FALSE(has_error(device, Error::None)) << "managed storage without managedMemorySupported";
  }
}

// OIDN allows empty buffers of every kind (its own test suite, apps/oidnTest.cpp, requires it).
TEST_P(OidnBuffer, ZeroSizedBuffers) {
  oidn::BufferRef d = device.newBuffer(0);
  EXPECT_OIDN_OK(device) << "newBuffer(0)";
  EXPECT_EQ(d.getSize(), 0u);
  oidn::BufferRef dev = device.newBuffer(0, Storage::Device);
  EXPECT_OIDN_OK(device) << "newBuffer(0, Device)";
  std::vector<uint8_t> mem(16);
  oidn::BufferRef shared = device.newBuffer(mem.data(), 0);
  EXPECT_OIDN_OK(device) << "a shared buffer of 0 bytes";
  EXPECT_EQ(shared.getSize(), 0u);
  d.read(0, 0, mem.data());
  EXPECT_OIDN_OK(device) << "an empty read";
}

TEST_P(OidnBuffer, InvalidStorageValue) {
  EXPECT_FALSE(bool(device.newBuffer(64, Storage(42))));
  EXPECT_FALSE(has_error(device, Error::None));
}

TEST_P(OidnBuffer, SharedBufferOverHostMemory) {
  std::vector<float> mem(300, 1.5f);
  oidn::BufferRef b = device.newBuffer(mem.data(), mem.size() * sizeof(float));
  ASSERT_TRUE(bool(b)) << ::testing::PrintToString(device.getError());
  EXPECT_EQ(b.getSize(), mem.size() * sizeof(float));
  EXPECT_EQ(b.getData(), mem.data()) << "a shared buffer's data is the caller's memory";
  EXPECT_NE(b.getStorage(), Storage::Undefined);
  // Writes through the buffer land in the caller's memory, and the other way round.
  const float v[2] = {-7.0f, 42.0f};
  b.write(10 * sizeof(float), sizeof(v), v);
  EXPECT_EQ(mem[10], -7.0f);
  EXPECT_EQ(mem[11], 42.0f);
  mem[20] = 9.25f;
  float back = 0;
  b.read(20 * sizeof(float), sizeof(float), &back);
  EXPECT_EQ(back, 9.25f);
  b.writeAsync(0, sizeof(float), v + 1);
  device.sync();
  EXPECT_EQ(mem[0], 42.0f);
  EXPECT_OIDN_OK(device);
  // A null pointer is refused.
  EXPECT_FALSE(bool(device.newBuffer(static_cast<void*>(nullptr), 64)));
  EXPECT_OIDN_ERROR(device, InvalidArgument);
}

TEST_P(OidnBuffer, OutOfRangeAndNullPointersAreRefused) {
  oidn::BufferRef b = device.newBuffer(1000);
  ASSERT_TRUE(bool(b));
  std::vector<uint8_t> dst(64, 0xCD);
  b.read(990, 20, dst.data());
  EXPECT_OIDN_ERROR(device, InvalidArgument);
  EXPECT_EQ(dst[0], 0xCD) << "a refused read writes nothing";
  b.readAsync(1000, 1, dst.data());  // the *Async calls check at the call, as OIDN's do (no sync)
  EXPECT_OIDN_ERROR(device, InvalidArgument);
  b.write(999, 2, dst.data());
  EXPECT_OIDN_ERROR(device, InvalidArgument);
  b.writeAsync(SIZE_MAX - 4, 8, dst.data());  // offset + size wraps around
  EXPECT_OIDN_ERROR(device, InvalidArgument);
  device.sync();
  b.read(0, 8, nullptr);
  EXPECT_OIDN_ERROR(device, InvalidArgument);
  b.write(0, 8, nullptr);
  EXPECT_OIDN_ERROR(device, InvalidArgument);
  // The edges themselves are fine, as are empty ranges.
  b.read(999, 1, dst.data());
  b.write(1000, 0, dst.data());
  EXPECT_OIDN_OK(device);
}

TEST_P(OidnBuffer, ExternalMemoryOfUnsupportedTypesIsRefused) {
  const oidn::ExternalMemoryTypeFlags types = device.get<oidn::ExternalMemoryTypeFlags>("externalMemoryTypes");
  // Types the device does not list: InvalidArgument (OIDN's check), and the descriptor stays ours.
  for (oidn::ExternalMemoryTypeFlag t : {oidn::ExternalMemoryTypeFlag::OpaqueFD, oidn::ExternalMemoryTypeFlag::DMABuf}) {
    if (types & t) continue;
    EXPECT_FALSE(bool(device.newBuffer(t, -1, 4096)));
    EXPECT_OIDN_ERROR(device, InvalidArgument);
  }
  EXPECT_FALSE(bool(device.newBuffer(oidn::ExternalMemoryTypeFlag::D3D12Heap, -1, 4096)));
  EXPECT_OIDN_ERROR(device, InvalidArgument);
  // A descriptor that is not exported memory, of a listed type: an error, no crash.
  if (types & oidn::ExternalMemoryTypeFlag::OpaqueFD) {
    EXPECT_FALSE(bool(device.newBuffer(oidn::ExternalMemoryTypeFlag::OpaqueFD, -1, 4096)));
    EXPECT_FALSE(has_error(device, Error::None));
  }
  // Win32 handles and Metal buffers do not exist here.
  int dummy = 0;
  EXPECT_FALSE(bool(device.newBuffer(oidn::ExternalMemoryTypeFlag::OpaqueWin32, &dummy, nullptr, 4096)));
  EXPECT_FALSE(has_error(device, Error::None));
  EXPECT_EQ(oidnNewSharedBufferFromMetal(device.getHandle(), nullptr), nullptr);
  EXPECT_FALSE(has_error(device, Error::None));
}

TEST_P(OidnBuffer, ReferenceCounting) {
  oidn::BufferRef b = device.newBuffer(128);
  ASSERT_TRUE(bool(b));
  const OIDNBuffer h = b.getHandle();
  {
    oidn::BufferRef copy(b);
    oidn::BufferRef other = device.newBuffer(8);
    other = copy;  // releases the 8-byte buffer, retains b's
    EXPECT_EQ(other.getSize(), 128u);
    oidn::BufferRef moved(std::move(other));
    EXPECT_FALSE(bool(other));
    moved = std::move(copy);  // both hold b: they trade references
    EXPECT_EQ(moved.getHandle(), h);
  }
  oidnRetainBuffer(h);
  oidnReleaseBuffer(h);
  EXPECT_EQ(b.getSize(), 128u);
  EXPECT_OIDN_OK(device);

  // A filter keeps the buffers of its images.
  const int W = 7, H = 5;
  oidn::BufferRef color = device.newBuffer(size_t(W) * H * 12);
  oidn::FilterRef f = device.newFilter("RT");
  f.setImage("color", color, oidn::Format::Float3, W, H);
  color.release();
  EXPECT_OIDN_OK(device);
  f.release();
  EXPECT_OIDN_OK(device);
}

// A buffer of another device cannot be used by a filter.
TEST_P(OidnBuffer, BufferOfAnotherDeviceIsRefused) {
  oidn::DeviceRef other = oidn::newDevice(oidn::DeviceType::CPU);
  other.commit();
  oidn::BufferRef foreign = other.newBuffer(7 * 5 * 12);
  ASSERT_TRUE(bool(foreign));
  oidn::FilterRef f = device.newFilter("RT");
  f.setImage("color", foreign, oidn::Format::Float3, 7, 5);
  EXPECT_OIDN_ERROR(device, InvalidArgument);
  EXPECT_OIDN_OK(other);
}

INSTANTIATE_TEST_SUITE_P(, OidnBuffer, kBackends, backend_param_name);

}  // namespace
}  // namespace oidn_test

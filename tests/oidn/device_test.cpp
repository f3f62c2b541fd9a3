// OIDN devices on the CPU and on Vulkan: parameters, commit, errors (codes, callback, clearing,
// per-thread errors of calls without a device) and reference counting.
#include <atomic>
#include <cmath>
#include <thread>

#include "oidn_test_util.h"

namespace oidn_test {
namespace {

using oidn::DeviceType;
using oidn::Error;

class OidnDevice : public ::testing::TestWithParam<Backend> {
 protected:
  // A fresh, uncommitted device of the backend.
  oidn::DeviceRef fresh() {
    oidn::getError();  // nothing pending from earlier tests on this thread
    std::string why;
    oidn::DeviceRef d = new_device(GetParam(), &why);
    if (!d) skip_reason = why;
    return d;
  }
  DeviceType expected_type() const { return GetParam() == Backend::cpu ? DeviceType::CPU : DeviceType::Vulkan; }
  std::string skip_reason;
};

#define FRESH_DEVICE_OR_SKIP(d)             \
  oidn::DeviceRef d = fresh();              \
  if (!d) GTEST_SKIP() << skip_reason

TEST_P(OidnDevice, ReadOnlyParameters) {
  FRESH_DEVICE_OR_SKIP(d);
  // Readable before commit too.
  EXPECT_EQ(d.get<DeviceType>("type"), expected_type());
  EXPECT_EQ(d.get<int>("version"), OIDN_VERSION);
  d.commit();
  EXPECT_OIDN_OK(d);
  EXPECT_EQ(d.get<DeviceType>("type"), expected_type());
  EXPECT_EQ(d.get<int>("type"), GetParam() == Backend::cpu ? OIDN_DEVICE_TYPE_CPU : OIDN_DEVICE_TYPE_VULKAN);
  EXPECT_EQ(d.get<int>("version"), OIDN_VERSION);
  EXPECT_EQ(d.get<int>("version"), 20401);
  EXPECT_EQ(d.get<int>("versionMajor"), OIDN_VERSION_MAJOR);
  EXPECT_EQ(d.get<int>("versionMinor"), OIDN_VERSION_MINOR);
  EXPECT_EQ(d.get<int>("versionPatch"), OIDN_VERSION_PATCH);
  EXPECT_EQ(d.get<unsigned int>("versionMajor"), 2u);
  const bool system_memory = d.get<bool>("systemMemorySupported");
  const bool managed_memory = d.get<bool>("managedMemorySupported");
  const oidn::ExternalMemoryTypeFlags ext = d.get<oidn::ExternalMemoryTypeFlags>("externalMemoryTypes");
  EXPECT_EQ(int(ext), d.get<int>("externalMemoryTypes"));
  EXPECT_OIDN_OK(d);
  // Only the bits OIDN defines.
  EXPECT_EQ(int(ext) & ~0x3FF, 0) << int(ext);
  if (GetParam() == Backend::cpu) {
    EXPECT_TRUE(system_memory) << "the CPU reaches malloc'd memory";
    EXPECT_FALSE(bool(ext)) << "the CPU imports no external memory";
  } else {
    // Volvox's Vulkan device imports only POSIX descriptors (oidn.h).
    const oidn::ExternalMemoryTypeFlags posix =
        oidn::ExternalMemoryTypeFlag::OpaqueFD | oidn::ExternalMemoryTypeFlag::DMABuf;
    EXPECT_EQ(int(ext) & ~int(posix), 0) << int(ext);
  }
  (void)managed_memory;
  // Read-only parameters cannot be set: OIDN warns and ignores the value.
  d.set("version", 5);
  EXPECT_EQ(d.get<int>("version"), OIDN_VERSION);
  d.getError();
}

TEST_P(OidnDevice, SettableParametersBeforeCommit) {
  FRESH_DEVICE_OR_SKIP(d);
  d.set("verbose", 0);
  d.set("numThreads", 1);
  d.set("setAffinity", false);
  EXPECT_OIDN_OK(d) << "numThreads / setAffinity are accepted (ignored by devices without them)";
  EXPECT_EQ(d.get<int>("verbose"), 0);
  if (GetParam() == Backend::cpu) {
    if (!std::getenv("OIDN_NUM_THREADS")) {
      EXPECT_EQ(d.get<int>("numThreads"), 1);
    }
    if (!std::getenv("OIDN_SET_AFFINITY")) {
      EXPECT_FALSE(d.get<bool>("setAffinity"));
    }
    d.set("numThreads", 2u);  // the unsigned overload
    if (!std::getenv("OIDN_NUM_THREADS")) {
      EXPECT_EQ(d.get<unsigned int>("numThreads"), 2u);
    }
    d.set("setAffinity", true);
    if (!std::getenv("OIDN_SET_AFFINITY")) {
      EXPECT_TRUE(d.get<bool>("setAffinity"));
    }
  } else {
    // OIDN's GPU devices have no numThreads: reading it there is an unknown parameter
    // (InvalidArgument). oidn.h leaves Vulkan open, so the value that was set is accepted too.
    const int threads = d.get<int>("numThreads");
    const Error e = d.getError();
    EXPECT_TRUE(e == Error::InvalidArgument || (e == Error::None && threads == 1))
        << ::testing::PrintToString(e) << ", numThreads " << threads;
  }
  // The deprecated C names.
#if defined(__GNUC__)
  #pragma GCC diagnostic push
  #pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
  oidnSetDevice1i(d.getHandle(), "verbose", 0);
  EXPECT_EQ(oidnGetDevice1i(d.getHandle(), "verbose"), 0);
  oidnSetDevice1b(d.getHandle(), "setAffinity", false);
  if (GetParam() == Backend::cpu && !std::getenv("OIDN_SET_AFFINITY")) {
    EXPECT_FALSE(oidnGetDevice1b(d.getHandle(), "setAffinity"));
  }
#if defined(__GNUC__)
  #pragma GCC diagnostic pop
#endif
  EXPECT_OIDN_OK(d);
  d.commit();
  EXPECT_OIDN_OK(d);
  // The device works with those settings.
  oidn::BufferRef b = d.newBuffer(64);
  EXPECT_TRUE(bool(b));
  EXPECT_OIDN_OK(d);
}

TEST_P(OidnDevice, VerbosePrintsWarningsForUnknownParameters) {
  FRESH_DEVICE_OR_SKIP(d);
  if (std::getenv("OIDN_VERBOSE")) GTEST_SKIP() << "OIDN_VERBOSE overrides the device's verbose parameter";
  d.set("verbose", 1);
  d.commit();
  EXPECT_EQ(d.get<int>("verbose"), 1);
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  d.set("noSuchDeviceParameter", 3);
  const std::string printed = ::testing::internal::GetCapturedStdout() + ::testing::internal::GetCapturedStderr();
  EXPECT_OIDN_OK(d) << "an unknown parameter is a warning, not an error";
  EXPECT_NE(printed.find("noSuchDeviceParameter"), std::string::npos) << "verbose 1 prints warnings: " << printed;
}

TEST_P(OidnDevice, CommitRules) {
  FRESH_DEVICE_OR_SKIP(d);
  // Nothing can be created on an uncommitted device.
  EXPECT_FALSE(bool(d.newBuffer(64)));
  EXPECT_OIDN_ERROR(d, InvalidOperation);
  EXPECT_FALSE(bool(d.newFilter("RT")));
  EXPECT_OIDN_ERROR(d, InvalidOperation);
  d.commit();
  EXPECT_OIDN_OK(d);
  EXPECT_TRUE(bool(d.newBuffer(64)));
  EXPECT_OIDN_OK(d);
  // A device is committed once (OIDN: "device can be committed only once").
  d.commit();
  EXPECT_OIDN_ERROR(d, InvalidOperation);
  d.sync();
  EXPECT_OIDN_OK(d);
}

TEST_P(OidnDevice, ErrorsCallbackFirstErrorKeptAndClearing) {
  FRESH_DEVICE_OR_SKIP(d);
  d.commit();
  ErrorLog log;
  d.setErrorFunction(ErrorLog::callback, &log);  // needs no commit
  EXPECT_OIDN_OK(d);

  (void)d.get<int>("noSuchParameter");  // InvalidArgument
  ASSERT_EQ(log.entries.size(), 1u);
  EXPECT_EQ(log.entries[0].code, Error::InvalidArgument);
  EXPECT_FALSE(log.entries[0].message_was_null);
  EXPECT_FALSE(log.entries[0].message.empty());
  oidn::FilterRef f = d.newFilter("RT");
  f.execute();  // InvalidOperation (never committed): the second error
  ASSERT_EQ(log.entries.size(), 2u);
  EXPECT_EQ(log.entries[1].code, Error::InvalidOperation);

  // getError gives the first unqueried error with its message, then clears.
  const char* msg = nullptr;
  EXPECT_EQ(d.getError(msg), Error::InvalidArgument);
  ASSERT_NE(msg, nullptr);
  EXPECT_EQ(std::string(msg), log.entries[0].message);
  EXPECT_EQ(d.getError(msg), Error::None);
  EXPECT_EQ(d.getError(), Error::None);
  // The C call with a null message pointer.
  (void)d.get<int>("noSuchParameter");
  EXPECT_EQ(oidnGetDeviceError(d.getHandle(), nullptr), OIDN_ERROR_INVALID_ARGUMENT);

  // A null callback turns it off; the code is still kept.
  d.setErrorFunction(nullptr);
  (void)d.get<int>("noSuchParameter");
  EXPECT_EQ(log.entries.size(), 3u);
  EXPECT_OIDN_ERROR(d, InvalidArgument);

  // The C callback type with the user pointer.
  struct Seen {
    int calls = 0;
    OIDNError code = OIDN_ERROR_NONE;
  } seen;
  oidnSetDeviceErrorFunction(
      d.getHandle(),
      [](void* user, OIDNError code, const char*) {
        auto* s = static_cast<Seen*>(user);
        ++s->calls;
        s->code = code;
      },
      &seen);
  (void)d.newBuffer(16, oidn::Storage(99));
  EXPECT_EQ(seen.calls, 1);
  EXPECT_NE(seen.code, OIDN_ERROR_NONE);
  d.getError();
}

// Calls that have no device record their errors for the calling thread only.
TEST(OidnErrors, WithoutADeviceArePerThread) {
  oidn::getError();  // nothing pending from earlier tests
  oidnCommitDevice(nullptr);  // InvalidArgument for this thread
  std::atomic<int> other_thread_error{-1};
  std::atomic<int> other_thread_own_error{-1};
  std::thread t([&] {
    other_thread_error = int(oidn::getError());  // sees nothing of the main thread's error
    oidnRetainBuffer(nullptr);                    // its own error
    const char* msg = nullptr;
    other_thread_own_error = int(oidn::getError(msg));
  });
  t.join();
  EXPECT_EQ(other_thread_error.load(), int(Error::None));
  EXPECT_EQ(other_thread_own_error.load(), int(Error::InvalidArgument));
  const char* msg = nullptr;
  EXPECT_EQ(oidn::getError(msg), Error::InvalidArgument) << "the main thread's error is still there";
  ASSERT_NE(msg, nullptr);
  EXPECT_EQ(oidn::getError(), Error::None);

  // Every object kind's calls on null handles: an error, no crash.
  oidnRetainDevice(nullptr);
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "oidnRetainDevice(NULL)";
  oidnReleaseDevice(nullptr);
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "oidnReleaseDevice(NULL)";
  oidnSetDeviceInt(nullptr, "verbose", 1);
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "oidnSetDeviceInt(NULL)";
  EXPECT_EQ(oidnGetDeviceInt(nullptr, "type"), 0);
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "oidnGetDeviceInt(NULL)";
  oidnSyncDevice(nullptr);
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "oidnSyncDevice(NULL)";
  EXPECT_EQ(oidnNewBuffer(nullptr, 16), nullptr);
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "oidnNewBuffer(NULL)";
  EXPECT_EQ(oidnNewFilter(nullptr, "RT"), nullptr);
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "oidnNewFilter(NULL)";
  EXPECT_EQ(oidnGetBufferSize(nullptr), 0u);
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "oidnGetBufferSize(NULL)";
  oidnReleaseBuffer(nullptr);
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "oidnReleaseBuffer(NULL)";
  oidnSetFilterInt(nullptr, "quality", 0);
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "oidnSetFilterInt(NULL)";
  oidnExecuteFilter(nullptr);
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "oidnExecuteFilter(NULL)";
  oidnReleaseFilter(nullptr);
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "oidnReleaseFilter(NULL)";
  // The C++ wrappers on empty references call the same functions.
  oidn::FilterRef empty_filter;
  empty_filter.commit();
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "FilterRef().commit()";
  oidn::BufferRef empty_buffer;
  EXPECT_EQ(empty_buffer.getData(), nullptr);
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "BufferRef().getData()";
  // The first error is kept until queried.
  oidnSyncDevice(nullptr);
  EXPECT_EQ(oidnNewDevice(OIDN_DEVICE_TYPE_CUDA), nullptr);  // UnsupportedHardware, not kept
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "the first of two errors";
  EXPECT_TRUE(has_global_error(Error::None));
}

// A device's errors are kept per thread too (OIDN: "each user thread has its own error code per
// device").
TEST_P(OidnDevice, DeviceErrorsArePerThread) {
  FRESH_DEVICE_OR_SKIP(d);
  d.commit();
  (void)d.get<int>("noSuchParameter");
  std::atomic<int> seen{-1};
  std::thread t([&] { seen = int(oidnGetDeviceError(d.getHandle(), nullptr)); });
  t.join();
  EXPECT_EQ(seen.load(), int(Error::None));
  EXPECT_OIDN_ERROR(d, InvalidArgument);
}

TEST_P(OidnDevice, ReferenceCounting) {
  FRESH_DEVICE_OR_SKIP(d);
  d.commit();
  const OIDNDevice h = d.getHandle();
  {
    oidn::DeviceRef copy = d;  // retains
    EXPECT_EQ(copy.getHandle(), h);
    oidn::DeviceRef moved = std::move(copy);  // no count change
    EXPECT_FALSE(bool(copy));
    EXPECT_EQ(moved.getHandle(), h);
    oidn::DeviceRef assigned;
    assigned = moved;  // retains
    assigned = h;      // retains h again, releases the old reference (the same object)
    EXPECT_EQ(assigned.getHandle(), h);
    moved.release();
    EXPECT_FALSE(bool(moved));
    moved.release();  // a no-op on an empty reference
  }
  // The original reference still works.
  EXPECT_EQ(d.get<DeviceType>("type"), expected_type());
  EXPECT_OIDN_OK(d);

  // C retain / release pairs.
  oidnRetainDevice(h);
  oidnRetainDevice(h);
  oidnReleaseDevice(h);
  oidnReleaseDevice(h);
  EXPECT_EQ(d.get<DeviceType>("type"), expected_type());
  EXPECT_OIDN_OK(d);

  // Buffers and filters keep their device alive after the application's last reference goes.
  oidn::BufferRef buffer = d.newBuffer(256);
  oidn::FilterRef filter = d.newFilter("RT");
  ASSERT_TRUE(buffer && filter);
  d.release();
  EXPECT_FALSE(bool(d));
  EXPECT_EQ(buffer.getSize(), 256u);
  filter.set("hdr", true);
  EXPECT_TRUE(filter.get<bool>("hdr"));
  EXPECT_EQ(oidnGetDeviceError(h, nullptr), OIDN_ERROR_NONE) << "the device lives on";
  filter.release();
  buffer.release();  // the device goes with its last buffer
  EXPECT_TRUE(has_global_error(Error::None));
}

INSTANTIATE_TEST_SUITE_P(, OidnDevice, kBackends, backend_param_name);

}  // namespace
}  // namespace oidn_test

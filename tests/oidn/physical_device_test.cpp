// OIDN's physical devices and device creation: the list, each entry's parameters, new devices by
// type / ID / UUID / LUID / PCI address, and the vendor APIs Volvox lacks (CUDA, HIP, SYCL, Metal).
#include <cstdlib>
#include <cstring>
#include <set>

#include "oidn_test_util.h"

namespace oidn_test {
namespace {

using oidn::DeviceType;
using oidn::Error;

bool known_type(int type) {
  return type == OIDN_DEVICE_TYPE_CPU || type == OIDN_DEVICE_TYPE_SYCL || type == OIDN_DEVICE_TYPE_CUDA ||
         type == OIDN_DEVICE_TYPE_HIP || type == OIDN_DEVICE_TYPE_METAL || type == OIDN_DEVICE_TYPE_VULKAN;
}

// Each test starts with no pending error of calls without a device on this thread.
class OidnPhysicalDevices : public ::testing::Test {
 protected:
  void SetUp() override { oidn::getError(); }
};

// A new device's "type" after commit.
DeviceType committed_type(oidn::DeviceRef& d) {
  d.commit();
  return d.get<DeviceType>("type");
}

TEST_F(OidnPhysicalDevices, CountTypesAndNames) {
  const int n = oidn::getNumPhysicalDevices();
  ASSERT_GE(n, 1);
  EXPECT_TRUE(has_global_error(Error::None));
  int cpus = 0;
  for (int i = 0; i < n; ++i) {
    oidn::PhysicalDeviceRef p(i);
    EXPECT_TRUE(bool(p));
    EXPECT_EQ(p.getID(), i);
    const int type = p.get<int>("type");
    EXPECT_TRUE(known_type(type)) << "physical device " << i << " type " << type;
    EXPECT_EQ(int(p.get<DeviceType>("type")), type);
    EXPECT_EQ(int(p.get<unsigned int>("type")), type);
    EXPECT_EQ(oidnGetPhysicalDeviceUInt(i, "type"), unsigned(type));
    const char* name = p.get<const char*>("name");
    ASSERT_NE(name, nullptr) << i;
    EXPECT_GT(std::strlen(name), 0u) << i;
    EXPECT_EQ(p.get<std::string>("name"), name);
    // The string stays valid: a second query gives the same text.
    EXPECT_STREQ(oidnGetPhysicalDeviceString(i, "name"), name);
    EXPECT_TRUE(has_global_error(Error::None)) << "physical device " << i;
    if (type == OIDN_DEVICE_TYPE_CPU) ++cpus;
  }
  EXPECT_EQ(cpus, 1) << "the CPU is listed once";
  // OIDN's order puts the CPU last when GPUs are present (Volvox: GPUs best first, then the CPU).
  EXPECT_EQ(oidn::PhysicalDeviceRef(n - 1).get<DeviceType>("type"), DeviceType::CPU);
  EXPECT_FALSE(bool(oidn::PhysicalDeviceRef()));
  oidn::PhysicalDeviceRef p;
  p = 0;
  EXPECT_EQ(p.getID(), 0);
}

// Each identifier is readable exactly when its *Supported flag says so; otherwise the query fails
// with InvalidArgument (OIDN: "check ...Supported first").
TEST_F(OidnPhysicalDevices, IdentifiersMatchTheirSupportedFlags) {
  const int n = oidn::getNumPhysicalDevices();
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE("physical device " + std::to_string(i));
    oidn::PhysicalDeviceRef p(i);
    const bool uuid = p.get<bool>("uuidSupported");
    const bool luid = p.get<bool>("luidSupported");
    const bool pci = p.get<bool>("pciAddressSupported");
    EXPECT_TRUE(has_global_error(Error::None));

    auto [uptr, usize] = p.getData("uuid");
    if (uuid) {
      EXPECT_TRUE(has_global_error(Error::None));
      ASSERT_NE(uptr, nullptr);
      EXPECT_EQ(usize, size_t(OIDN_UUID_SIZE));
      const oidn::UUID u = p.get<oidn::UUID>("uuid");
      EXPECT_EQ(std::memcmp(u.bytes, uptr, OIDN_UUID_SIZE), 0);
      size_t size = 0;
      EXPECT_EQ(oidnGetPhysicalDeviceData(i, "uuid", &size), uptr) << "the data stays where it is";
      EXPECT_EQ(oidnGetPhysicalDeviceData(i, "uuid", nullptr), uptr) << "a null size pointer is allowed";
    } else {
      EXPECT_EQ(uptr, nullptr);
      EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "uuid without uuidSupported";
    }

    auto [lptr, lsize] = p.getData("luid");
    if (luid) {
      EXPECT_TRUE(has_global_error(Error::None));
      ASSERT_NE(lptr, nullptr);
      EXPECT_EQ(lsize, size_t(OIDN_LUID_SIZE));
      const oidn::LUID l = p.get<oidn::LUID>("luid");
      EXPECT_EQ(std::memcmp(l.bytes, lptr, OIDN_LUID_SIZE), 0);
      (void)p.get<unsigned int>("nodeMask");
      EXPECT_TRUE(has_global_error(Error::None));
    } else {
      EXPECT_EQ(lptr, nullptr);
      EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "luid without luidSupported";
      (void)p.get<unsigned int>("nodeMask");
      EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "nodeMask without luidSupported";
    }

    for (const char* field : {"pciDomain", "pciBus", "pciDevice", "pciFunction"}) {
      const int v = p.get<int>(field);
      if (pci) {
        EXPECT_TRUE(has_global_error(Error::None)) << field;
        EXPECT_GE(v, 0) << field;
      } else {
        EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << field << " without pciAddressSupported";
      }
    }
  }
}

TEST_F(OidnPhysicalDevices, BadQueriesAreInvalidArguments) {
  const int n = oidn::getNumPhysicalDevices();
  for (int id : {-1, n, n + 100}) {
    SCOPED_TRACE("id " + std::to_string(id));
    EXPECT_EQ(oidn::PhysicalDeviceRef(id).get<int>("type"), 0);
    EXPECT_TRUE(has_global_error(Error::InvalidArgument));
    EXPECT_EQ(oidn::PhysicalDeviceRef(id).get<const char*>("name"), nullptr);
    EXPECT_TRUE(has_global_error(Error::InvalidArgument));
    EXPECT_EQ(oidn::PhysicalDeviceRef(id).get<std::string>("name"), "");
    EXPECT_TRUE(has_global_error(Error::InvalidArgument));
    EXPECT_EQ(oidn::PhysicalDeviceRef(id).getData("uuid").first, nullptr);
    EXPECT_TRUE(has_global_error(Error::InvalidArgument));
  }
  oidn::PhysicalDeviceRef p(0);
  EXPECT_FALSE(p.get<bool>("noSuchParameter"));
  EXPECT_TRUE(has_global_error(Error::InvalidArgument));
  EXPECT_EQ(p.get<const char*>("type"), nullptr) << "an int parameter read as a string";
  EXPECT_TRUE(has_global_error(Error::InvalidArgument));
  EXPECT_EQ(p.getData("name").first, nullptr) << "a string parameter read as data";
  EXPECT_TRUE(has_global_error(Error::InvalidArgument));
  EXPECT_EQ(oidnGetPhysicalDeviceInt(0, nullptr), 0);
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "null name";
}

TEST_F(OidnPhysicalDevices, NewDeviceByEachIdentifier) {
  const int n = oidn::getNumPhysicalDevices();
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE("physical device " + std::to_string(i));
    oidn::PhysicalDeviceRef p(i);
    const DeviceType type = p.get<DeviceType>("type");

    oidn::DeviceRef by_id = oidn::newDevice(i);
    ASSERT_TRUE(bool(by_id)) << ::testing::PrintToString(oidn::getError());
    EXPECT_EQ(committed_type(by_id), type);
    EXPECT_OIDN_OK(by_id);

    oidn::DeviceRef by_ref = p.newDevice();
    ASSERT_TRUE(bool(by_ref));
    EXPECT_EQ(committed_type(by_ref), type);

    if (p.get<bool>("uuidSupported")) {
      oidn::DeviceRef d = oidn::newDevice(p.get<oidn::UUID>("uuid"));
      ASSERT_TRUE(bool(d)) << ::testing::PrintToString(oidn::getError());
      EXPECT_EQ(committed_type(d), type);
    }
    if (p.get<bool>("luidSupported")) {
      oidn::DeviceRef d = oidn::newDevice(p.get<oidn::LUID>("luid"));
      ASSERT_TRUE(bool(d)) << ::testing::PrintToString(oidn::getError());
      EXPECT_EQ(committed_type(d), type);
    }
    if (p.get<bool>("pciAddressSupported")) {
      oidn::DeviceRef d = oidn::newDevice(p.get<int>("pciDomain"), p.get<int>("pciBus"), p.get<int>("pciDevice"),
                                          p.get<int>("pciFunction"));
      ASSERT_TRUE(bool(d)) << ::testing::PrintToString(oidn::getError());
      EXPECT_EQ(committed_type(d), type);
    }
    EXPECT_TRUE(has_global_error(Error::None));
  }
}

TEST_F(OidnPhysicalDevices, NewDeviceByType) {
  oidn::DeviceRef cpu = oidn::newDevice(DeviceType::CPU);
  ASSERT_TRUE(bool(cpu));
  EXPECT_EQ(committed_type(cpu), DeviceType::CPU);
  EXPECT_OIDN_OK(cpu);

  // Default: OIDN takes the first physical device; Volvox (oidn.h) a discrete Vulkan GPU when
  // there is one, else the CPU: never a software renderer such as lavapipe. The API does not say
  // which GPUs are discrete, so: a type of this machine's devices, and the CPU when the first
  // physical device is the CPU (unless OIDN_DEFAULT_DEVICE overrides the choice).
  oidn::DeviceRef def = oidn::newDevice();
  ASSERT_TRUE(bool(def)) << ::testing::PrintToString(oidn::getError());
  const DeviceType def_type = committed_type(def);
  EXPECT_TRUE(def_type == DeviceType::CPU || def_type == DeviceType::Vulkan) << ::testing::PrintToString(def_type);
  if (!std::getenv("OIDN_DEFAULT_DEVICE") && oidn::PhysicalDeviceRef(0).get<DeviceType>("type") == DeviceType::CPU) {
    EXPECT_EQ(def_type, DeviceType::CPU);
  }
  if (vulkan_physical_device_id() < 0) {
    EXPECT_EQ(def_type, DeviceType::CPU);
  }

  oidn::DeviceRef vk = oidn::newDevice(DeviceType::Vulkan);
  if (vulkan_physical_device_id() >= 0) {
    ASSERT_TRUE(bool(vk)) << ::testing::PrintToString(oidn::getError());
    EXPECT_EQ(committed_type(vk), DeviceType::Vulkan);
  } else {
    EXPECT_FALSE(bool(vk));
    EXPECT_TRUE(has_global_error(Error::UnsupportedHardware)) << "no Vulkan GPU";
  }
  EXPECT_TRUE(has_global_error(Error::None));
}

TEST_F(OidnPhysicalDevices, UnknownIdentifiersGiveNoDevice) {
  const int n = oidn::getNumPhysicalDevices();
  for (int id : {-1, n, 1 << 20}) {
    EXPECT_FALSE(bool(oidn::newDevice(id))) << id;
    EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "id " << id;
  }
  // Identifiers no device has: all 0xEE (a UUID/LUID collision would be astronomically unlikely).
  oidn::UUID uuid;
  std::memset(uuid.bytes, 0xEE, sizeof(uuid.bytes));
  EXPECT_FALSE(bool(oidn::newDevice(uuid)));
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "unknown UUID";
  oidn::LUID luid;
  std::memset(luid.bytes, 0xEE, sizeof(luid.bytes));
  EXPECT_FALSE(bool(oidn::newDevice(luid)));
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "unknown LUID";
  EXPECT_FALSE(bool(oidn::newDevice(0x7777, 0xEE, 0x1F, 7)));
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "unknown PCI address";
  EXPECT_EQ(oidnNewDeviceByUUID(nullptr), nullptr);
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "null UUID";
  EXPECT_EQ(oidnNewDeviceByLUID(nullptr), nullptr);
  EXPECT_TRUE(has_global_error(Error::InvalidArgument)) << "null LUID";
  // A type value no device has.
  EXPECT_EQ(oidnNewDevice(OIDNDeviceType(77)), nullptr);
  EXPECT_FALSE(has_global_error(Error::None)) << "type 77";
}

// Volvox has no CUDA, HIP, SYCL or Metal device: every way to ask for one fails cleanly.
TEST_F(OidnPhysicalDevices, VendorDevicesAreUnsupportedHardware) {
  EXPECT_TRUE(oidn::isCPUDeviceSupported());
  EXPECT_FALSE(oidn::isCUDADeviceSupported(0));
  EXPECT_FALSE(oidn::isHIPDeviceSupported(0));
  EXPECT_FALSE(oidn::isMetalDeviceSupported(nullptr));
  EXPECT_FALSE(oidnIsSYCLDeviceSupported(nullptr));
  oidn::getError();  // the queries may record why; only their answers matter here

  for (DeviceType t : {DeviceType::SYCL, DeviceType::CUDA, DeviceType::HIP, DeviceType::Metal}) {
    EXPECT_FALSE(bool(oidn::newDevice(t))) << ::testing::PrintToString(t);
    EXPECT_TRUE(has_global_error(Error::UnsupportedHardware)) << ::testing::PrintToString(t);
  }
  EXPECT_FALSE(bool(oidn::newCUDADevice(0, nullptr)));
  EXPECT_TRUE(has_global_error(Error::UnsupportedHardware)) << "newCUDADevice";
  EXPECT_FALSE(bool(oidn::newCUDADevice(std::vector<int>{0, 1}, std::vector<cudaStream_t>{nullptr, nullptr})));
  EXPECT_TRUE(has_global_error(Error::UnsupportedHardware)) << "newCUDADevice (two)";
  EXPECT_FALSE(bool(oidn::newHIPDevice(0, nullptr)));
  EXPECT_TRUE(has_global_error(Error::UnsupportedHardware)) << "newHIPDevice";
  EXPECT_FALSE(bool(oidn::newHIPDevice(std::vector<int>{0}, std::vector<hipStream_t>{nullptr})));
  EXPECT_TRUE(has_global_error(Error::UnsupportedHardware)) << "newHIPDevice (vector)";
  EXPECT_FALSE(bool(oidn::newMetalDevice(nullptr)));
  EXPECT_TRUE(has_global_error(Error::UnsupportedHardware)) << "newMetalDevice";
  EXPECT_FALSE(bool(oidn::newMetalDevice(std::vector<MTLCommandQueue_id>{nullptr})));
  EXPECT_TRUE(has_global_error(Error::UnsupportedHardware)) << "newMetalDevice (vector)";
  EXPECT_EQ(oidnNewSYCLDevice(nullptr, 0), nullptr);
  EXPECT_TRUE(has_global_error(Error::UnsupportedHardware)) << "oidnNewSYCLDevice";
  EXPECT_EQ(oidnNewCUDADevice(nullptr, nullptr, 0), nullptr);
  EXPECT_TRUE(has_global_error(Error::UnsupportedHardware)) << "oidnNewCUDADevice with no pairs";
}

}  // namespace
}  // namespace oidn_test

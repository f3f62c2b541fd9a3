// The RT filter through OIDN's API gives the numbers of Volvox's own C API (volvox.h, libvolvox.so)
// on the same inputs and device: bitwise on the CPU, within 1e-5 (max_rel_diff) on Vulkan, where
// the two libraries build their own pipelines and a GPU may order its sums differently.
//
// The Vulkan side pairs newDevice(physical device of type OIDN_DEVICE_TYPE_VULKAN) with
// vxNewDevice("vulkan"): both take the best Vulkan GPU (the first of OIDN's physical devices);
// with several GPUs that pairing is skipped unless they are the same (by name).
#include <volvox/volvox.h>

#include <cmath>

#include "oidn_test_util.h"

namespace oidn_test {
namespace {

constexpr int NW = 37, NH = 29;

struct Inputs {
  Image color, albedo, normal;
  bool hdr = false;
  bool aux = false;
  std::vector<char> weights;  // empty: the built-in choice
};

Image through_oidn(oidn::DeviceRef& device, Inputs in) {
  Image out(NW, NH, 3, -1.0f);
  oidn::FilterRef f = device.newFilter("RT");
  f.setImage("color", in.color.px.data(), oidn::Format::Float3, NW, NH);
  if (in.aux) {
    f.setImage("albedo", in.albedo.px.data(), oidn::Format::Float3, NW, NH);
    f.setImage("normal", in.normal.px.data(), oidn::Format::Float3, NW, NH);
  }
  f.setImage("output", out.px.data(), oidn::Format::Float3, NW, NH);
  f.set("hdr", in.hdr);
  if (!in.weights.empty()) f.setData("weights", in.weights.data(), in.weights.size());
  f.commit();
  f.execute();
  EXPECT_OIDN_OK(device);
  return out;
}

Image through_volvox(const char* kind, Inputs in) {
  Image out(NW, NH, 3, -2.0f);
  VXDevice dev = vxNewDevice(kind, 0);
  if (!dev) {
    const char* msg = nullptr;
    vxGetDeviceError(nullptr, &msg);
    ADD_FAILURE() << "vxNewDevice(\"" << kind << "\"): " << (msg ? msg : "(no message)");
    return out;
  }
  VXFilter f = vxNewFilter(dev, "RT");
  vxSetFilterImage(f, "color", in.color.px.data(), VX_FORMAT_FLOAT3, NW, NH, 0, 0);
  if (in.aux) {
    vxSetFilterImage(f, "albedo", in.albedo.px.data(), VX_FORMAT_FLOAT3, NW, NH, 0, 0);
    vxSetFilterImage(f, "normal", in.normal.px.data(), VX_FORMAT_FLOAT3, NW, NH, 0, 0);
  }
  vxSetFilterImage(f, "output", out.px.data(), VX_FORMAT_FLOAT3, NW, NH, 0, 0);
  vxSetFilterBool(f, "hdr", in.hdr);
  vxSetFilterInt(f, "quality", 2);  // high: OIDN's default
  if (!in.weights.empty()) vxSetFilterWeights(f, in.weights.data(), in.weights.size());
  vxCommitFilter(f);
  vxExecuteFilter(f);
  const char* msg = nullptr;
  EXPECT_EQ(vxGetDeviceError(dev, &msg), VX_ERROR_NONE) << (msg ? msg : "");
  vxReleaseFilter(f);
  vxReleaseDevice(dev);
  return out;
}

class OidnNumbers : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    std::string why;
    device = shared_device(GetParam(), &why);
    if (!device) GTEST_SKIP() << why;
    if (GetParam() == Backend::vulkan) {
      int vulkan_devices = 0;
      for (int i = 0; i < oidn::getNumPhysicalDevices(); ++i)
        vulkan_devices += oidn::PhysicalDeviceRef(i).get<int>("type") == OIDN_DEVICE_TYPE_VULKAN;
      if (vulkan_devices > 1)
        GTEST_SKIP() << vulkan_devices << " Vulkan GPUs: vxNewDevice(\"vulkan\") may pick another than OIDN's first";
    }
  }
  const char* kind() const { return GetParam() == Backend::cpu ? "cpu" : "vulkan"; }
  void compare(const Inputs& in) {
    const Image a = through_oidn(device, in);
    const Image b = through_volvox(kind(), in);
    EXPECT_TRUE(all_finite(a.px));
    EXPECT_LE(max_rel_diff(b, a), same_device_tolerance(GetParam()));
  }
  oidn::DeviceRef device;
};

TEST_P(OidnNumbers, LdrColorBuiltInWeights) {
  OIDN_TEST_REQUIRE_WEIGHTS("rt_ldr");
  Inputs in;
  in.color = noisy_color(NW, NH, 31);
  compare(in);
}

TEST_P(OidnNumbers, LdrColorUserWeights) {
  OIDN_TEST_REQUIRE_WEIGHTS("rt_ldr");
  Inputs in;
  in.color = noisy_color(NW, NH, 32);
  in.weights = read_weights("rt_ldr");
  compare(in);
}

TEST_P(OidnNumbers, LdrWithAuxiliaryImages) {
  OIDN_TEST_REQUIRE_WEIGHTS("rt_ldr_alb_nrm");
  Inputs in;
  in.color = noisy_color(NW, NH, 33);
  in.albedo = plain_albedo(NW, NH);
  in.normal = plain_normal(NW, NH);
  in.aux = true;
  compare(in);
}

TEST_P(OidnNumbers, HdrWithAuxiliaryImages) {
  OIDN_TEST_REQUIRE_WEIGHTS("rt_hdr_alb_nrm");
  Inputs in;
  in.color = noisy_color(NW, NH, 34, 0.0f, 20.0f);
  in.albedo = plain_albedo(NW, NH);
  in.normal = plain_normal(NW, NH);
  in.aux = true;
  in.hdr = true;
  compare(in);  // automatic input scale (autoexposure) on both sides
  in.weights = read_weights("rt_hdr_alb_nrm");
  compare(in);
}

INSTANTIATE_TEST_SUITE_P(, OidnNumbers, kBackends, backend_param_name);

}  // namespace
}  // namespace oidn_test

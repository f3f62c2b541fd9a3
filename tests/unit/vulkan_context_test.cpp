// Vulkan context and kernel-side helpers: device selection strings, device discovery (lavapipe in
// CI), the error when no driver is present, the `volvox devices` command, and the weight layouts
// the conv shaders read (checked element by element on a tiny conv with concat padding).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "backends/vulkan/context.h"
#include "backends/vulkan/kernels/conv3x3.h"
#include "common/test_util.h"
#include "core/half.h"

namespace vx::vk {
namespace {

TEST(VulkanDeviceSpec, Parses) {
  EXPECT_EQ(parse_vulkan_device("vulkan"), -1);
  EXPECT_EQ(parse_vulkan_device("vulkan:0"), 0);
  EXPECT_EQ(parse_vulkan_device("vulkan:12"), 12);
  for (const char* bad : {"", "cuda:0", "vulkan:", "vulkan:-1", "vulkan:x", "vulkan:99999999999"}) {
    try {
      parse_vulkan_device(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << bad;
    }
  }
}

// NVIDIA's families (universal, transfer, compute-only: the last taken unless the universal one is
// asked for), lavapipe's single family, and lists without a compute family.
TEST(VulkanQueueFamily, PrefersComputeWithoutGraphics) {
  auto family = [](VkQueueFlags flags) {
    VkQueueFamilyProperties f{};
    f.queueFlags = flags;
    f.queueCount = 1;
    return f;
  };
  const VkQueueFlags universal = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT;
  const std::vector<VkQueueFamilyProperties> nvidia = {family(universal), family(VK_QUEUE_TRANSFER_BIT),
                                                       family(VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT)};
  EXPECT_EQ(choose_queue_family(nvidia, true), 2);
  EXPECT_EQ(choose_queue_family(nvidia, false), 0);
  EXPECT_EQ(choose_queue_family({family(universal)}, true), 0);  // lavapipe: one family
  EXPECT_EQ(choose_queue_family({family(VK_QUEUE_TRANSFER_BIT), family(universal)}, true), 1);
  EXPECT_EQ(choose_queue_family({family(VK_QUEUE_TRANSFER_BIT)}, true), -1);
  EXPECT_EQ(choose_queue_family({}, false), -1);
}

TEST(VulkanContext, ListsDevicesWithFeatures) {
  std::vector<DeviceInfo> list;
  try {
    list = VulkanContext::list_devices();
  } catch (const Error& e) {
    GTEST_SKIP() << "no Vulkan: " << e.what();
  }
  if (list.empty()) GTEST_SKIP() << "no Vulkan device";
  for (size_t i = 0; i < list.size(); ++i) {
    EXPECT_EQ(list[i].index, int(i));
    EXPECT_FALSE(list[i].name.empty());
    EXPECT_GT(list[i].subgroup_size, 0u);
    EXPECT_FALSE(list[i].heaps.empty());
    EXPECT_NE(list[i].describe().find("vulkan:" + std::to_string(i)), std::string::npos);
    if (list[i].name.find("llvmpipe") != std::string::npos) {  // what CI's lavapipe offers
      EXPECT_TRUE(list[i].fp16_arithmetic);
      EXPECT_TRUE(list[i].storage_16bit);
      EXPECT_TRUE(list[i].timestamps);
      EXPECT_FALSE(list[i].has_fp16_coopmat_16x16x16());
    }
  }
  // A device index past the end is a clear error.
  ContextOptions o;
  o.device_index = int(list.size());
  try {
    VulkanContext ctx(o);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
}

using test::ScopedEnv;

TEST(VulkanContext, NoDriverIsAClearUnsupportedError) {
  ScopedEnv files("VK_DRIVER_FILES", "/nonexistent/volvox_icd.json");
  ScopedEnv legacy("VK_ICD_FILENAMES", "/nonexistent/volvox_icd.json");
  const int before = live_objects();
  try {
    VulkanContext ctx;
    ADD_FAILURE() << "expected an error without a driver";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported) << e.what();
    const std::string m = e.what();
    EXPECT_TRUE(m.find("no Vulkan") != std::string::npos) << m;
  }
  EXPECT_EQ(live_objects(), before);  // nothing leaked on the failure path
}

TEST(VolvoxDevices, ListsVulkanDevicesOrSaysWhyNot) {
  std::string cmd = test::cli_path() + " devices 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[512];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  int status = pclose(pipe);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("cpu"), std::string::npos) << out;
  EXPECT_TRUE(out.find("vulkan:0") != std::string::npos || out.find("vulkan: ") != std::string::npos) << out;

  // Without a driver it still lists the CPU and says why Vulkan is unavailable.
  std::string none = "VK_DRIVER_FILES=/nonexistent/icd.json VK_ICD_FILENAMES=/nonexistent/icd.json " + cmd;
  pipe = popen(none.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  out.clear();
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  EXPECT_EQ(pclose(pipe), 0) << out;
  EXPECT_NE(out.find("vulkan: unavailable"), std::string::npos) << out;
}

// ---- weight layouts ----

// weight(o, c, tap) = o * 1000 + c * 10 + tap (exact in fp16 below 2048: keep o small).
Tensor coded_weights(int cout, int cin) {
  Tensor w(DType::f32, Shape{cout, cin, 3, 3});
  float* p = w.data<float>();
  for (int o = 0; o < cout; ++o)
    for (int c = 0; c < cin; ++c)
      for (int t = 0; t < 9; ++t) p[(o * cin + c) * 9 + t] = float(o * 100 + c * 10 + t);
  return w;
}

TEST(VulkanConvPacking, DirectLayoutPadsEachConcatSource) {
  ConvDesc d;
  d.height = d.width = 4;
  d.cin_a = 5;  // low-resolution source: padded to 8
  d.cin_b = 3;  // skip source: padded to 4
  d.cout = 6;   // padded to 8
  d.upsample_concat = true;
  auto packed = pack_weights(ConvVariant::direct, d, Precision::fp32, coded_weights(6, 8));
  ASSERT_EQ(packed.size(), size_t(2 * 9 * 3 * 16 * 4));  // cout4 x taps x cin4 x (4 x vec4) floats
  auto at = [&](int o, int k, int t) {
    float v;
    std::memcpy(&v, packed.data() + ((((o / 4) * 9 + t) * 3 * 4 + k) * 4 + o % 4) * 4, 4);
    return v;
  };
  EXPECT_EQ(at(0, 0, 0), 0.0f);
  EXPECT_EQ(at(5, 4, 8), 5 * 100 + 4 * 10 + 8);  // low channel 4
  EXPECT_EQ(at(5, 5, 8), 0.0f);                   // padding of the low source
  EXPECT_EQ(at(5, 8, 3), 5 * 100 + 5 * 10 + 3);  // skip channel 0 = concat channel 5
  EXPECT_EQ(at(2, 10, 1), 2 * 100 + 7 * 10 + 1); // skip channel 2 = concat channel 7
  EXPECT_EQ(at(2, 11, 1), 0.0f);                  // padding of the skip source
  EXPECT_EQ(at(6, 0, 0), 0.0f);                   // padded output channel
}

TEST(VulkanConvPacking, CoopMatLayoutIsTapMajorFp16) {
  ConvDesc d;
  d.height = d.width = 4;
  d.cin_a = 9;   // cin4 3 -> one 16-channel chunk per tap
  d.cout = 20;   // two 16-wide fragments: n_pad 32
  auto packed = pack_weights(ConvVariant::coopmat, d, Precision::fp16, coded_weights(20, 9));
  ASSERT_EQ(packed.size(), size_t(9 * 16 * 32 * 2));
  auto at = [&](int t, int k, int n) {
    uint16_t h;
    std::memcpy(&h, packed.data() + ((t * 16 + k) * 32 + n) * 2, 2);
    return half_to_float(h);
  };
  EXPECT_EQ(at(0, 0, 0), 0.0f);
  EXPECT_EQ(at(4, 8, 19), 19 * 100 + 8 * 10 + 4);
  EXPECT_EQ(at(4, 9, 19), 0.0f);   // channels past 9 are padding
  EXPECT_EQ(at(8, 3, 20), 0.0f);   // outputs past 20 are padding
  auto pc = push_constants(ConvVariant::coopmat, d);
  EXPECT_EQ(pc[10], 1);   // k_chunks
  EXPECT_EQ(pc[11], 32);  // n_pad
}

TEST(VulkanConvPacking, ThreeFp16PlanesSumToTheWeights) {
  ConvDesc d;
  d.height = d.width = 4;
  d.cin_a = 9;
  d.cout = 20;  // 2 fragments: one workgroup of 32 outputs (x3cw) or two of 16 (x3c)
  Tensor w = coded_weights(20, 9);
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = 1e-3f * w.data<float>()[i] + 1.0f / 3.0f;
  for (ConvVariant v : {ConvVariant::coopmat_x3sw, ConvVariant::coopmat_x3cw}) {
    auto packed = pack_weights(v, d, Precision::fp32, w);
    const size_t plane = size_t(9) * 16 * 32;
    ASSERT_EQ(packed.size(), 2 * plane * 2);
    auto half_at = [&](size_t i) {
      uint16_t h;
      std::memcpy(&h, packed.data() + i * 2, 2);
      return double(half_to_float(h));
    };
    // (hi + lo) / 256 recovers the fp32 weight to ~2^-22 relative
    for (int t : {0, 4, 8})
      for (int k : {0, 5, 8})
        for (int o : {0, 7, 19}) {
          size_t at = size_t(t * 16 + k) * 32 + o;
          double x = (half_at(at) + half_at(plane + at)) / 256.0;
          double ref = w.data<float>()[(o * 9 + k) * 9 + t];
          EXPECT_NEAR(x, ref, 1e-6 * std::abs(ref)) << variant_name(v) << " t" << t << " k" << k << " o" << o;
        }
  }
  w.data<float>()[0] = 1000.0f;  // 256 x 1000 does not fit fp16
  EXPECT_THROW(pack_weights(ConvVariant::coopmat_x3cw, d, Precision::fp32, w), Error);
}

// Every variant, wherever it says it can run, has its shader (the fragment counts of its
// conv_coopmat*.comp VARIANT lines); a missing one would fail only at pipeline creation.
TEST(VulkanConvPacking, EverySupportedShapeHasItsShader) {
  int checked = 0;
  for (int v = 0; v <= int(ConvVariant::coopmat_tqvr); ++v)
    for (Precision p : {Precision::fp32, Precision::fp16})
      for (bool upcat : {false, true})
        for (int cout : {3, 8, 16, 20, 32, 48, 64, 80, 96, 112, 128, 200})
          for (bool fast_math : {false, true}) {
          ConvDesc d;
          d.fast_math = fast_math;
          d.height = 32;
          d.width = 48;
          d.cin_a = 24;
          d.cin_b = upcat ? 9 : 0;
          d.upsample_concat = upcat;
          d.relu = true;
          d.cout = cout;
          if (!variant_supports(ConvVariant(v), d, p, true)) continue;
          const std::string shader = shader_name(ConvVariant(v), d, p);
          EXPECT_FALSE(embedded_shader(shader).empty()) << variant_name(ConvVariant(v)) << " " << precision_name(p)
                                                        << " cout " << cout << ": no shader " << shader;
          ++checked;
        }
  EXPECT_GT(checked, 600);
}

// OIDN's fastMath picks the fp16-accumulator twin of an fp16 tensor-core variant, and nothing else.
TEST(VulkanConvPacking, FastMathPicksFp16AccumulatorsOnlyForFp16TensorCoreKernels) {
  ConvDesc d;
  d.height = 32;
  d.width = 48;
  d.cin_a = 24;
  d.cout = 32;
  d.fast_math = true;
  EXPECT_EQ(shader_name(ConvVariant::coopmat_tvr, d, Precision::fp16), "conv_coopmat.tvr2h");
  EXPECT_EQ(shader_name(ConvVariant::coopmat_x3cw, d, Precision::fp32), "conv_coopmat.c2");  // 3xFP16 needs fp32 sums
  EXPECT_EQ(shader_name(ConvVariant::tiled, d, Precision::fp16), "conv_tiled.f16");
  d.cin_b = 16;
  d.upsample_concat = true;
  EXPECT_EQ(shader_name(ConvVariant::coopmat_up, d, Precision::fp16), "conv_coopmat_up.n2h");
  d.fast_math = false;
  EXPECT_EQ(shader_name(ConvVariant::coopmat_up, d, Precision::fp16), "conv_coopmat_up.n2");
}

TEST(VulkanConvPacking, VariantChoice) {
  ConvDesc d;
  d.height = d.width = 8;
  d.cin_a = 32;
  d.cout = 112;
  EXPECT_EQ(choose_variant(d, Precision::fp32, true), ConvVariant::coopmat_x3cw);  // 3xFP16 on tensor cores
  EXPECT_EQ(choose_variant(d, Precision::fp32, false), ConvVariant::tiled);
  EXPECT_EQ(choose_variant(d, Precision::fp16, false), ConvVariant::tiled);
  EXPECT_EQ(choose_variant(d, Precision::fp16, true), ConvVariant::coopmat_psv);  // 7 fragments: split over 2 workgroups
  EXPECT_EQ(dispatch_size(ConvVariant::coopmat_ps, d)[2], 2u);
  EXPECT_EQ(shader_name(ConvVariant::coopmat_ps, d, Precision::fp16), "conv_coopmat.p4");
  EXPECT_EQ(push_constants(ConvVariant::coopmat_ps, d)[11], 128);  // n_pad: 2 x 4 fragments
  d.cout = 64;  // 2 K chunks: register prefetch
  EXPECT_EQ(choose_variant(d, Precision::fp16, true), ConvVariant::coopmat_pv);
  d.cin_a = 64;  // 4 K chunks: 16 subgroups of 2 rows
  EXPECT_EQ(choose_variant(d, Precision::fp16, true), ConvVariant::coopmat_uv);
  d.cin_a = 128;  // 8 K chunks: tall tiles
  EXPECT_EQ(choose_variant(d, Precision::fp16, true), ConvVariant::coopmat_tvr);
  d.cout = 32;
  EXPECT_EQ(choose_variant(d, Precision::fp16, true), ConvVariant::coopmat_tvr);
  d.cin_a = 9;  // one K chunk (enc_conv0)
  EXPECT_EQ(choose_variant(d, Precision::fp16, true), ConvVariant::coopmat_uv);
  {  // at 1920x1088 (4080 tiles of 32 x 16): runs of 4 tiles per workgroup
    ConvDesc big = d;
    big.height = 1088;
    big.width = 1920;
    EXPECT_EQ(choose_variant(big, Precision::fp16, true), ConvVariant::coopmat_uqv);
    EXPECT_EQ(shader_name(ConvVariant::coopmat_uqv, big, Precision::fp16), "conv_coopmat.uqv2");
    EXPECT_EQ(dispatch_size(ConvVariant::coopmat_uqv, big)[0], 30u);  // 120 tile columns / 4
    EXPECT_EQ(dispatch_size(ConvVariant::coopmat_uqv, big)[1], 34u);
    big.cin_a = 128;  // 8 chunks: one tile per workgroup
    EXPECT_EQ(choose_variant(big, Precision::fp16, true), ConvVariant::coopmat_tvr);
    big.cin_a = 32;
    big.cout = 3;  // 16x8x16 fragments in runs of 4 tiles
    EXPECT_EQ(choose_variant(big, Precision::fp16, true), ConvVariant::coopmat_em);
  }
  d.cout = 48;
  EXPECT_EQ(choose_variant(d, Precision::fp16, true), ConvVariant::coopmat_uv);
  d.cin_a = 128;
  d.cout = 96;  // 6 fragments, 8 chunks: prefetch; with 2 chunks the 8-subgroup kernel without it
  EXPECT_EQ(choose_variant(d, Precision::fp16, true), ConvVariant::coopmat_pv);
  d.cin_a = 32;  // 2 chunks: split over 2 workgroups of 16 subgroups
  EXPECT_EQ(choose_variant(d, Precision::fp16, true), ConvVariant::coopmat_usv);
  EXPECT_EQ(shader_name(ConvVariant::coopmat_us, d, Precision::fp16), "conv_coopmat.u3");
  EXPECT_FALSE(variant_supports(ConvVariant::coopmat_t, d, Precision::fp16, true));  // 96 outputs: over 48 KiB
  EXPECT_EQ(dispatch_size(ConvVariant::coopmat_t, d)[1], 1u);  // 32-row tiles
  EXPECT_EQ(parse_variant("coopmat_x3sw"), ConvVariant::coopmat_x3sw);  // opt-in
  d.cout = 3;  // 16x8x16 fragments
  EXPECT_EQ(choose_variant(d, Precision::fp16, true), ConvVariant::coopmat_e);
  EXPECT_EQ(push_constants(ConvVariant::coopmat_e, d)[11], 8);
  d.cout = 200;
  EXPECT_FALSE(variant_supports(ConvVariant::coopmat, d, Precision::fp16, true));
  EXPECT_TRUE(variant_supports(ConvVariant::coopmat_x3cw, d, Precision::fp32, true));  // any count: 32 per workgroup
  EXPECT_EQ(dispatch_size(ConvVariant::coopmat_x3cw, d)[2], 7u);
  EXPECT_FALSE(variant_supports(ConvVariant::coopmat_x3cw, d, Precision::fp16, true));
  EXPECT_THROW(parse_variant("winograd"), Error);
}

}  // namespace
}  // namespace vx::vk

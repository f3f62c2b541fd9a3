// The denoiser's image shaders (input processing, output processing, autoexposure) against the CPU
// functions of src/denoise at odd sizes, 1-3 channels, f32 and f16 pixels, byte strides, NaN/Inf and
// out-of-range pixels, every transfer curve, under the Khronos validation layer.
// Tolerances: fp32 storage |gpu - cpu| <= 2e-5 * max(1, |cpu|) (the shaders' pow/log/exp against
// libm's, in float); fp16 activations: 2e-3 * max(1, |cpu|) (one half-precision rounding);
// autoexposure: relative 1e-5 (float sums per bin on the device, double on the CPU).
#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>

#include "backends/vulkan/command_context.h"
#include "backends/vulkan/context.h"
#include "backends/vulkan/kernels/denoise_io.h"
#include "backends/vulkan/memory.h"
#include "backends/vulkan/pipeline.h"
#include "common/test_util.h"
#include "core/half.h"
#include "denoise/autoexposure.h"
#include "denoise/processing.h"

namespace vx {
namespace {

using denoise::ImageView;
using denoise::PixelType;

// A host image with explicit byte layout, filled with a mix of ordinary and hostile values.
struct RawImage {
  std::vector<uint8_t> bytes;
  ImageView view;
  RawImage(int w, int h, int channels, PixelType type, int extra_pixel_elems, int extra_row_bytes, uint64_t seed,
           float lo = -0.5f, float hi = 3.0f, bool hostile = true) {
    view.type = type;
    view.channels = channels;
    view.width = w;
    view.height = h;
    const size_t e = type == PixelType::f32 ? 4 : 2;
    view.pixel_stride = (size_t(channels) + size_t(extra_pixel_elems)) * e;
    view.row_stride = size_t(w) * view.pixel_stride + size_t(extra_row_bytes);
    bytes.assign(view.row_stride * size_t(h) + 16, 0xAB);
    view.data = bytes.data();
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    const float specials[] = {NAN, INFINITY, -INFINITY, -1.0f, 1e30f, 0.0f, 65504.0f, 1e-9f};
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < channels; ++c) {
          float v = dist(rng);
          if (hostile && rng() % 23 == 0) v = specials[rng() % 8];
          view.store(x, y, c, v);
        }
  }
};

class VulkanDenoiseIo : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (ctx_ || !skip_.empty()) return;
    try {
      vk::ContextOptions o;
      o.validation = true;
      o.pipeline_cache_dir = "none";
      ctx_ = std::make_unique<vk::VulkanContext>(o);
      layout_ = std::make_unique<vk::KernelLayout>(*ctx_);
      k32_ = std::make_unique<vk::DenoiseIoKernels>(*ctx_, *layout_, Precision::fp32);
      if (ctx_->fp16_enabled()) k16_ = std::make_unique<vk::DenoiseIoKernels>(*ctx_, *layout_, Precision::fp16);
    } catch (const Error& e) {
      skip_ = e.what();
    }
  }
  static void TearDownTestSuite() {
    k16_.reset();
    k32_.reset();
    layout_.reset();
    ctx_.reset();
  }
  void SetUp() override {
    if (!ctx_) GTEST_SKIP() << "no Vulkan device: " << skip_;
    seen_ = ctx_->validation_messages().size();
  }
  void TearDown() override {
    if (!ctx_) return;
    auto m = ctx_->validation_messages();
    for (size_t i = seen_; i < m.size(); ++i) ADD_FAILURE() << "validation: " << m[i];
  }

  // A host-visible buffer holding `bytes` (bound as a storage buffer).
  static vk::DeviceBuffer upload(const void* bytes, size_t size, const char* what) {
    vk::DeviceBuffer b(*ctx_, (size + 3) / 4 * 4 + 16, vk::MemoryUse::Staging, what);
    std::memset(b.mapped(), 0, b.size());
    if (size) std::memcpy(b.mapped(), bytes, size);
    b.flush();
    return b;
  }

  static vk::DenoiseImageDesc desc_of(const ImageView& v) {
    vk::DenoiseImageDesc d;
    d.pixel_stride = uint32_t(v.pixel_bytes());
    d.row_stride = uint32_t(v.row_bytes());
    d.channels = v.channels;
    d.half_type = v.type == PixelType::f16;
    return d;
  }

  // Runs `record` on a fresh descriptor set over `bindings` and waits.
  template <class Record>
  static void run(const std::array<vk::BufferRange, vk::kKernelBindings>& bindings, const vk::DenoiseIoKernels& k,
                  Record&& record) {
    VkDevice dev = ctx_->device();
    VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, vk::kKernelBindings};
    VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpci.maxSets = 1;
    dpci.poolSizeCount = 1;
    dpci.pPoolSizes = &ps;
    VkDescriptorPool pool;
    VX_VK_CHECK(vkCreateDescriptorPool(dev, &dpci, nullptr, &pool));
    VkDescriptorSetLayout sl = layout_->set_layout();
    VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dsai.descriptorPool = pool;
    dsai.descriptorSetCount = 1;
    dsai.pSetLayouts = &sl;
    VkDescriptorSet set;
    VX_VK_CHECK(vkAllocateDescriptorSets(dev, &dsai, &set));
    k.write_set(set, bindings);
    vk::CommandContext(*ctx_).run_once([&](VkCommandBuffer cmd) {
      record(cmd, set);
      vk::barrier(cmd, vk::kComputeWrite, vk::kHostRead);
    });
    vkDestroyDescriptorPool(dev, pool, nullptr);
  }

  static vk::DenoiseJobParams job_params(denoise::TransferKind transfer, bool hdr, float scale, int ic, int w, int h) {
    vk::DenoiseJobParams p;
    p.input_scale = scale;
    p.transfer = transfer == denoise::TransferKind::srgb ? 1 : transfer == denoise::TransferKind::pu ? 2 : 0;
    p.hdr = hdr;
    p.input_channels = ic;
    p.width = w;
    p.height = h;
    p.bins_h = vk::exposure_bins(h);
    p.bins_w = vk::exposure_bins(w);
    p.pu_norm = 1.0f / denoise::pu_forward(65504.0f);
    return p;
  }

  static std::unique_ptr<vk::VulkanContext> ctx_;
  static std::unique_ptr<vk::KernelLayout> layout_;
  static std::unique_ptr<vk::DenoiseIoKernels> k32_, k16_;
  static std::string skip_;
  size_t seen_ = 0;
};
std::unique_ptr<vk::VulkanContext> VulkanDenoiseIo::ctx_;
std::unique_ptr<vk::KernelLayout> VulkanDenoiseIo::layout_;
std::unique_ptr<vk::DenoiseIoKernels> VulkanDenoiseIo::k32_, VulkanDenoiseIo::k16_;
std::string VulkanDenoiseIo::skip_;

struct InputCase {
  int ic;
  denoise::TransferKind transfer;
  bool hdr;
  float scale;
  int color_channels;
  PixelType type;
  int extra_elems, extra_row;
};

TEST_F(VulkanDenoiseIo, InputProcessingMatchesCpu) {
  using denoise::TransferKind;
  const int W = 37, H = 23;
  const InputCase cases[] = {
      {9, TransferKind::pu, true, 0.7f, 3, PixelType::f32, 0, 0},
      {9, TransferKind::pu, true, 3.5f, 3, PixelType::f16, 1, 6},  // RGBA halves, padded rows
      {6, TransferKind::srgb, false, 1.0f, 2, PixelType::f32, 1, 4},
      {3, TransferKind::linear, false, 1.3f, 1, PixelType::f16, 0, 2},
      {3, TransferKind::pu, true, 1.0f, 3, PixelType::f32, 2, 12},
  };
  int n = 0;
  for (const InputCase& c : cases) {
    for (const bool fp16 : {false, true}) {
      if (fp16 && !k16_) continue;
      SCOPED_TRACE(cat("case ", n, " ic ", c.ic, fp16 ? " fp16" : " fp32"));
      RawImage color(W, H, c.color_channels, c.type, c.extra_elems, c.extra_row, 100 + n, -0.5f, c.hdr ? 40.0f : 1.5f);
      RawImage albedo(W, H, 3, PixelType::f32, 0, 0, 200 + n, -0.3f, 1.4f);
      RawImage normal(W, H, 3, PixelType::f16, 1, 0, 300 + n, -1.5f, 1.5f);
      // A tile that reads part of the image into the middle of a larger buffer (zeros elsewhere).
      denoise::Tile tile;
      tile.in_x = 5, tile.in_y = 3, tile.in_w = 30, tile.in_h = 19, tile.buffer_x = 16, tile.buffer_y = 0;
      const int BW = 48, BH = 32;
      denoise::ProcessingParams pp{c.transfer, c.hdr, c.scale, c.ic};
      Tensor cpu(DType::f32, {1, c.ic, BH, BW});
      denoise::process_input_tile(color.view, &albedo.view, &normal.view, tile, pp, cpu);

      auto params = job_params(c.transfer, c.hdr, c.scale, c.ic, W, H);
      params.images[0] = desc_of(color.view);
      params.images[1] = desc_of(albedo.view);
      params.images[2] = desc_of(normal.view);
      auto bc = upload(color.bytes.data(), color.bytes.size(), "color");
      auto ba = upload(albedo.bytes.data(), albedo.bytes.size(), "albedo");
      auto bn = upload(normal.bytes.data(), normal.bytes.size(), "normal");
      auto bp = upload(&params, sizeof params, "params");
      const int c4 = (c.ic + 3) / 4;
      const size_t elem = fp16 ? 2 : 4;
      std::vector<uint8_t> sentinel(size_t(BW) * BH * c4 * 4 * elem, 0x7f);
      auto bd = upload(sentinel.data(), sentinel.size(), "dst");
      const auto& k = fp16 ? *k16_ : *k32_;
      run({bc.range(0, bc.size()), ba.range(0, ba.size()), bn.range(0, bn.size()), bp.range(0, sizeof params),
           bd.range(0, bd.size())},
          k, [&](VkCommandBuffer cmd, VkDescriptorSet set) {
            k.record_input(cmd, set, {tile.in_x, tile.in_y, tile.in_w, tile.in_h, tile.buffer_x, tile.buffer_y, BW, BH},
                           c4);
          });
      bd.invalidate();
      double worst = 0;
      for (int y = 0; y < BH; ++y)
        for (int x = 0; x < BW; ++x)
          for (int ch = 0; ch < c4 * 4; ++ch) {
            const size_t i = (size_t(y) * BW + x) * size_t(c4) * 4 + size_t(ch);
            float g;
            if (fp16) {
              uint16_t h;
              std::memcpy(&h, bd.mapped() + i * 2, 2);
              g = half_to_float(h);
            } else {
              std::memcpy(&g, bd.mapped() + i * 4, 4);
            }
            const float r = ch < c.ic ? cpu.data<float>()[(size_t(ch) * BH + y) * BW + x] : 0.0f;  // padding is zero
            ASSERT_TRUE(std::isfinite(g)) << "x " << x << " y " << y << " c " << ch;
            const double err = std::abs(double(g) - r) / std::max(1.0, std::abs(double(r)));
            worst = std::max(worst, err);
            ASSERT_LE(err, fp16 ? 2e-3 : 2e-5) << "x " << x << " y " << y << " c " << ch << " gpu " << g << " cpu " << r;
          }
      std::printf("input case %d %s: worst error %.3g\n", n, fp16 ? "fp16" : "fp32", worst);
    }
    ++n;
  }
}

struct OutputCase {
  denoise::TransferKind transfer;
  bool hdr;
  float scale;
  int channels;
  PixelType type;
  int extra_elems, extra_row;
};

TEST_F(VulkanDenoiseIo, OutputProcessingMatchesCpuAndKeepsOtherBytes) {
  using denoise::TransferKind;
  const int W = 37, H = 23, BW = 64, BH = 48;
  const OutputCase cases[] = {
      {TransferKind::pu, true, 0.25f, 3, PixelType::f32, 1, 8},  // RGBA output: alpha untouched
      {TransferKind::pu, true, 4.0f, 3, PixelType::f16, 0, 2},   // packed halves: shared 32-bit words
      {TransferKind::srgb, false, 1.0f, 1, PixelType::f32, 0, 0},
      {TransferKind::linear, false, 1.0f, 2, PixelType::f16, 1, 6},
  };
  int n = 0;
  for (const OutputCase& c : cases) {
    for (const bool fp16 : {false, true}) {
      if (fp16 && !k16_) continue;
      SCOPED_TRACE(cat("case ", n, fp16 ? " fp16" : " fp32"));
      // The network output: [1, 3, BH, BW] with NaN, negative and large values (as fp16 when the
      // activations are fp16, so that both sides see the same numbers).
      Tensor net = test::random_tensor({1, 3, BH, BW}, 400 + n, -0.2f, 1.1f);
      float* nd = net.data<float>();
      for (size_t i = 0; i < size_t(net.numel()); i += 17) nd[i] = i % 3 == 0 ? NAN : (i % 3 == 1 ? -2.0f : 0.9999f);
      if (fp16)
        for (size_t i = 0; i < size_t(net.numel()); ++i) nd[i] = half_to_float(float_to_half(nd[i]));
      denoise::Tile tile;  // owned region: image (4..34, 2..22) from buffer (16 + 4, 8 + 2)
      tile.buffer_x = 16, tile.buffer_y = 8, tile.out_offset_x = 4, tile.out_offset_y = 2;
      tile.out_x = 4, tile.out_y = 2, tile.out_w = 31, tile.out_h = 21;
      RawImage cpu_out(W, H, c.channels, c.type, c.extra_elems, c.extra_row, 500 + n, 5.0f, 6.0f, false);
      RawImage gpu_out = cpu_out;
      gpu_out.view.data = gpu_out.bytes.data();
      denoise::process_output_tile(net, tile, {c.transfer, c.hdr, c.scale, 9}, cpu_out.view);

      std::vector<uint8_t> src(size_t(BW) * BH * 4 * (fp16 ? 2 : 4), 0);
      for (int y = 0; y < BH; ++y)
        for (int x = 0; x < BW; ++x)
          for (int ch = 0; ch < 4; ++ch) {
            const float v = ch < 3 ? nd[(size_t(ch) * BH + y) * BW + x] : 0.0f;
            const size_t i = (size_t(y) * BW + x) * 4 + size_t(ch);
            if (fp16) {
              const uint16_t h = float_to_half(v);
              std::memcpy(&src[i * 2], &h, 2);
            } else {
              std::memcpy(&src[i * 4], &v, 4);
            }
          }
      auto params = job_params(c.transfer, c.hdr, c.scale, 9, W, H);
      params.images[3] = desc_of(gpu_out.view);
      auto bs = upload(src.data(), src.size(), "net out");
      auto bp = upload(&params, sizeof params, "params");
      auto bo = upload(gpu_out.bytes.data(), gpu_out.bytes.size(), "output");
      const auto& k = fp16 ? *k16_ : *k32_;
      const auto pr = bp.range(0, sizeof params);
      run({bs.range(0, bs.size()), pr, pr, pr, bo.range(0, bo.size())}, k, [&](VkCommandBuffer cmd, VkDescriptorSet set) {
        k.record_output(cmd, set,
                        {tile.buffer_x + tile.out_offset_x, tile.buffer_y + tile.out_offset_y, tile.out_x, tile.out_y,
                         tile.out_w, tile.out_h, BW},
                        1);
      });
      bo.invalidate();
      std::memcpy(gpu_out.bytes.data(), bo.mapped(), gpu_out.bytes.size());
      double worst = 0;
      const size_t e = c.type == PixelType::f32 ? 4 : 2;
      for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
          for (int ch = 0; ch < c.channels; ++ch) {
            const float r = cpu_out.view.load(x, y, ch), g = gpu_out.view.load(x, y, ch);
            if (std::isinf(r) && r == g) continue;  // beyond the half range on both sides
            const double tol = (c.type == PixelType::f16 ? 1e-3 : 2e-5) * std::max(1.0, std::abs(double(r)));
            const double err = std::abs(double(g) - r);
            worst = std::max(worst, err / std::max(1.0, std::abs(double(r))));
            ASSERT_LE(err, tol) << "x " << x << " y " << y << " c " << ch << " gpu " << g << " cpu " << r;
          }
          // Bytes between the channels and the next pixel (alpha) are untouched.
          const size_t at = size_t(y) * gpu_out.view.row_bytes() + size_t(x) * gpu_out.view.pixel_bytes();
          for (size_t b = size_t(c.channels) * e; b < gpu_out.view.pixel_bytes(); ++b)
            ASSERT_EQ(gpu_out.bytes[at + b], cpu_out.bytes[at + b]) << "x " << x << " y " << y << " byte " << b;
        }
      std::printf("output case %d %s: worst error %.3g\n", n, fp16 ? "fp16" : "fp32", worst);
    }
    ++n;
  }
}

TEST_F(VulkanDenoiseIo, AutoexposureMatchesCpu) {
  struct Case {
    int w, h, channels;
    PixelType type;
    float lo, hi;
    bool hostile;
  };
  const Case cases[] = {{37, 23, 3, PixelType::f32, 0.0f, 20.0f, true},  {300, 170, 3, PixelType::f16, 0.0f, 2.0f, false},
                        {16, 16, 1, PixelType::f32, 1e-3f, 1e4f, false}, {45, 61, 2, PixelType::f32, 0.0f, 1.0f, true},
                        {33, 17, 3, PixelType::f32, 0.0f, 1e-9f, false},  // all bins too dark: scale 1
                        {40, 40, 3, PixelType::f32, 3e38f, 3.4e38f, false}};  // near FLT_MAX: scale FLT_MIN
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(cat("case ", n, " ", c.w, "x", c.h));
    RawImage color(c.w, c.h, c.channels, c.type, 1, 4, 600 + n, c.lo, c.hi, c.hostile);
    const float cpu = denoise::compute_autoexposure(color.view);
    auto params = job_params(denoise::TransferKind::pu, true, -1.0f, 3, c.w, c.h);
    params.images[0] = desc_of(color.view);
    auto bc = upload(color.bytes.data(), color.bytes.size(), "color");
    auto bp = upload(&params, sizeof params, "params");
    vk::DeviceBuffer bins(*ctx_, VkDeviceSize(params.bins_h) * params.bins_w * 8, vk::MemoryUse::DeviceLocal, "bins");
    const auto pr = bp.range(0, sizeof params);
    const auto br = bins.range(0, bins.size());
    run({bc.range(0, bc.size()), pr, pr, pr, br}, *k32_, [&](VkCommandBuffer cmd, VkDescriptorSet set) {
      k32_->record_exposure_bins(cmd, set, params.bins_h, params.bins_w);
    });
    run({br, pr, pr, pr, br}, *k32_, [&](VkCommandBuffer cmd, VkDescriptorSet set) { k32_->record_exposure_reduce(cmd, set); });
    bp.invalidate();
    float gpu;
    std::memcpy(&gpu, bp.mapped(), 4);
    std::printf("autoexposure case %d: cpu %.9g gpu %.9g\n", n, cpu, gpu);
    EXPECT_NEAR(gpu, cpu, 1e-5 * std::abs(cpu));
    ++n;
  }
}

}  // namespace
}  // namespace vx

// Every Vulkan conv kernel and variant against the CPU reference kernels (NCHW, double accumulation), on lavapipe in CI, with the Khronos validation layer on when installed (any
// warning or error message fails the test). Shapes are odd on purpose (1x1, 17x5, 31x33, channel
// counts 3/5/9/17) and small because lavapipe is slow.
//
// Tolerances: fp32 storage: max |gpu - ref| <= 1e-4 * max(1, max |ref|).
//             fp16 storage (fp32 accumulation): <= 2e-2 * max(1, max |ref|).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <tuple>

#include "backends/vulkan/context.h"
#include "backends/vulkan/graph_executable.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "common/test_util.h"
#include "ops/fused_ops.h"
#include "session/device_model_runner.h"
#include "session/model_runner.h"

namespace vx::vk {
namespace {

// ---------------- CPU reference ----------------

// The same graph on the CPU reference kernels (the oracle: NCHW, double accumulation), unoptimised.
Tensor cpu_reference(const Graph& g, const Tensor& input) {
  ModelRunnerOptions options;
  options.optimize = false;
  options.reference_only = true;
  ModelRunner runner(g, options);
  return runner.run({input}).at(0);
}

// ---------------- graph building (fused form, as the fusion passes produce it) ----------------

struct ConvSpec {
  std::string name;
  int cin, cout;
  bool relu, pool;
  Tensor w, b;
};

ConvSpec make_conv(const std::string& name, int cin, int cout, bool relu, bool pool, uint64_t seed) {
  float scale = 1.0f / std::sqrt(9.0f * float(cin));
  return {name, cin, cout, relu, pool, test::random_tensor(Shape{cout, cin, 3, 3}, seed, -scale, scale),
          test::random_tensor(Shape{cout}, seed + 1, -0.1f, 0.1f)};
}

ValueId add_conv(Graph& g, const ConvSpec& s, std::vector<ValueId> inputs) {
  const bool upcat = inputs.size() == 2;
  ValueId w = g.add_constant(s.name + ".w", s.w), b = g.add_constant(s.name + ".b", s.b);
  ValueId y = g.add_value(s.name + ".y", DType::f32, Shape{1, s.cout, -1, -1});
  inputs.push_back(w);
  inputs.push_back(b);
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{3, 3});
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  a.set("strides", std::vector<int64_t>{1, 1});
  a.set("relu", int64_t(s.relu));
  a.set("pool", int64_t(s.pool));
  a.set("upsample_concat", int64_t(upcat));
  g.add_node(kFusedConv, s.name, inputs, {y}, a);
  return y;
}

// ---------------- fixture: one validated lavapipe context for the suite ----------------

class VulkanParity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      ContextOptions o;
      o.validation = true;
      ctx_ = new VulkanContext(o);
    } catch (const Error& e) {
      skip_reason_ = e.what();
    }
  }
  static void TearDownTestSuite() {
    delete ctx_;
    ctx_ = nullptr;
  }
  void SetUp() override {
    if (!ctx_) GTEST_SKIP() << "no Vulkan device: " << skip_reason_;
    seen_messages_ = ctx_->validation_messages().size();
  }
  void TearDown() override {
    if (!ctx_) return;
    auto messages = ctx_->validation_messages();
    for (size_t i = seen_messages_; i < messages.size(); ++i) ADD_FAILURE() << "validation: " << messages[i];
  }
  static VulkanContext* ctx_;
  static std::string skip_reason_;
  size_t seen_messages_ = 0;
};
VulkanContext* VulkanParity::ctx_ = nullptr;
std::string VulkanParity::skip_reason_;

// fast_math: fp16 accumulators round every partial sum to 11 bits (hundreds of products per output
// here), so they get twice the fp16 storage tolerance.
double tolerance(Precision p, const Tensor& ref, bool fast_math = false) {
  double peak = 1.0;
  for (int64_t i = 0; i < ref.numel(); ++i) peak = std::max(peak, std::abs(ref.get(i)));
  return (p == Precision::fp16 ? (fast_math ? 4e-2 : 2e-2) : 1e-4) * peak;
}

void expect_close(const Tensor& got, const Tensor& ref, Precision p, const std::string& what, bool fast_math = false) {
  ASSERT_EQ(got.shape(), ref.shape()) << what;
  double err = test::max_abs_diff(got, ref), tol = tolerance(p, ref, fast_math);
  EXPECT_LE(err, tol) << what << ": max abs error " << err;
}

struct UNetConvCase {
  int cin, cout, h, w;
  bool relu, pool;
};

ConvDesc desc_of(const UNetConvCase& c) {
  ConvDesc d;
  d.height = c.h;
  d.width = c.w;
  d.cin_a = c.cin;
  d.cout = c.cout;
  d.relu = c.relu;
  d.pool = c.pool;
  return d;
}

const UNetConvCase kCases[] = {
    {3, 5, 1, 1, true, false},   {5, 9, 17, 5, true, true},  {9, 17, 31, 33, false, false},
    {17, 3, 5, 17, true, true},  {17, 9, 31, 33, true, true}, {4, 8, 2, 3, true, false},
};

using Param = std::tuple<std::string, Precision>;

class VulkanConvKernels : public VulkanParity, public ::testing::WithParamInterface<Param> {};

// One fused conv with `kernel` against the CPU reference.
void check_single_conv(VulkanContext& ctx, const std::string& kernel, Precision precision, const UNetConvCase& c,
                       uint64_t seed, bool fast_math = false) {
  ConvSpec conv = make_conv("conv", c.cin, c.cout, c.relu, c.pool, seed);
  Graph g;
  ValueId x = g.add_value("x", DType::f32, Shape{1, c.cin, -1, -1});
  g.inputs = {x};
  g.outputs = {add_conv(g, conv, {x})};
  Tensor input = test::random_tensor(Shape{1, c.cin, c.h, c.w}, seed + 3);
  ExecutableOptions o;
  o.precision = precision;
  o.kernels = kernel;
  o.fast_math = fast_math;
  VulkanGraphExecutable exe(ctx, g, input.shape(), o);
  ASSERT_EQ(exe.layers()[0].kernel, kernel);
  Tensor ref = cpu_reference(g, input);
  const std::string& shader = exe.layers()[0].shader;
  expect_close(exe.run(input), ref, precision,
               cat(shader, " ", precision_name(precision), " cin ", c.cin, " cout ", c.cout, " ", c.h, "x", c.w,
                   c.relu ? " relu" : "", c.pool ? " pool" : ""),
               fast_math);
}

TEST_P(VulkanConvKernels, SingleConvMatchesCpu) {
  auto [kernel, precision] = GetParam();
  uint64_t seed = 100;
  for (const UNetConvCase& c : kCases) check_single_conv(*ctx_, kernel, precision, c, seed += 7);
}

// upsample_concat needs two activations: a pool conv makes the low-resolution one from the input,
// then the fused conv ("up") reads concat(upsample(low), input).
struct UpCase {
  int c_skip, c_low, cout, h, w;
};

ConvDesc desc_of(const UpCase& c) {
  ConvDesc d;
  d.height = c.h;
  d.width = c.w;
  d.cin_a = c.c_low;
  d.cin_b = c.c_skip;
  d.cout = c.cout;
  d.relu = d.upsample_concat = true;
  return d;
}

void check_upsample_concat(VulkanContext& ctx, const std::string& kernels, Precision precision, const UpCase& c,
                           uint64_t seed, bool fast_math = false) {
  ConvSpec down = make_conv("down", c.c_skip, c.c_low, true, true, seed);
  ConvSpec up = make_conv("up", c.c_low + c.c_skip, c.cout, true, false, seed + 5);
  Graph g;
  ValueId x = g.add_value("x", DType::f32, Shape{1, c.c_skip, -1, -1});
  g.inputs = {x};
  ValueId low = add_conv(g, down, {x});
  g.outputs = {add_conv(g, up, {low, x})};
  Tensor input = test::random_tensor(Shape{1, c.c_skip, c.h, c.w}, seed + 9);
  ExecutableOptions o;
  o.precision = precision;
  o.kernels = kernels;
  o.fast_math = fast_math;
  VulkanGraphExecutable exe(ctx, g, input.shape(), o);
  Tensor ref = cpu_reference(g, input);
  expect_close(exe.run(input), ref, precision,
               cat(exe.layers()[1].shader, " ", precision_name(precision), " upcat low ", c.c_low, " skip ", c.c_skip,
                   " -> ", c.cout, " at ", c.h, "x", c.w),
               fast_math);
}

TEST_P(VulkanConvKernels, UpsampleConcatMatchesCpu) {
  auto [kernel, precision] = GetParam();
  const UpCase cases[] = {{9, 5, 17, 10, 14}, {3, 17, 5, 2, 2}, {5, 3, 9, 6, 34}};
  uint64_t seed = 500;
  for (const UpCase& c : cases) check_upsample_concat(*ctx_, kernel, precision, c, seed += 11);
}

// Every cooperative-matrix variant (conv_coopmat.comp, conv_coopmat_up.comp) wherever it says it can
// run at the given precisions: single convs (one or several K chunks and N fragments, with and
// without ReLU and pool, 3 outputs for the 16x8x16 shapes, outputs split over workgroups) and
// upsample + concat, at odd sizes and channel counts, against the CPU reference. Returns the cases run.
int check_every_coopmat_variant(VulkanContext& ctx, std::initializer_list<Precision> precisions, bool fast_math,
                                uint64_t seed) {
  const UNetConvCase singles[] = {{9, 17, 31, 33, false, false}, {17, 9, 30, 34, true, true}, {40, 50, 18, 46, true, false},
                                  {33, 3, 20, 36, false, false}, {48, 100, 10, 18, true, false}};
  const UpCase upcats[] = {{9, 35, 40, 34, 66}, {19, 17, 100, 18, 30}};
  int ran = 0;
  for (int v = 0; std::string(variant_name(ConvVariant(v))) != "?"; ++v) {
    const ConvVariant variant = ConvVariant(v);
    const std::string name = variant_name(variant);
    if (name.rfind("coopmat", 0) != 0) continue;  // direct and tiled: VulkanConvKernels
    for (Precision precision : precisions) {
      for (const UNetConvCase& c : singles) {
        if (!variant_supports(variant, desc_of(c), precision, true)) continue;
        check_single_conv(ctx, name, precision, c, seed += 7, fast_math);
        ++ran;
      }
      for (const UpCase& c : upcats) {
        if (!variant_supports(variant, desc_of(c), precision, true)) continue;
        check_upsample_concat(ctx, cat("auto,up=", name), precision, c, seed += 11, fast_math);
        ++ran;
      }
    }
  }
  return ran;
}

TEST_F(VulkanParity, EveryCoopmatVariantMatchesCpu) {
  if (!ctx_->coopmat_enabled()) GTEST_SKIP() << "the device has no fp16 cooperative matrices (lavapipe has none)";
  EXPECT_GT(check_every_coopmat_variant(*ctx_, {Precision::fp16, Precision::fp32}, false, 1300), 40);
}

// OIDN's fastMath: every fp16 cooperative-matrix variant with fp16 accumulators (its h twin) on the
// same cases, against the CPU reference at the fast-math tolerance.
TEST_F(VulkanParity, EveryCoopmatVariantWithFp16AccumulatorsMatchesCpu) {
  if (!ctx_->coopmat_enabled()) GTEST_SKIP() << "the device has no fp16 cooperative matrices (lavapipe has none)";
  EXPECT_GT(check_every_coopmat_variant(*ctx_, {Precision::fp16}, true, 2300), 20);
}

// The phase-decomposed upsample + concat kernels (conv_coopmat_up.comp) at odd channel counts, with
// several tiles, several chunks of each source and partial tiles at the borders.
TEST_F(VulkanParity, CoopmatUpsampleConcatVariantsMatchCpu) {
  if (!ctx_->coopmat_enabled()) GTEST_SKIP() << "the device has no fp16 cooperative matrices (lavapipe has none)";
  const UpCase cases[] = {{9, 5, 17, 10, 14}, {3, 17, 5, 2, 2}, {19, 35, 40, 34, 66}, {9, 64, 64, 36, 98},
                          {48, 112, 100, 18, 30}};
  uint64_t seed = 900;
  const std::pair<const char*, Precision> variants[] = {{"coopmat_up", Precision::fp16},
                                                        {"coopmat_ups", Precision::fp16},
                                                        {"coopmat_upn", Precision::fp16},
                                                        {"coopmat_x3up", Precision::fp32}};
  for (const auto& [variant, precision] : variants)
    for (const UpCase& c : cases) {
      if (!variant_supports(parse_variant(variant), desc_of(c), precision, true)) continue;  // too many outputs
      check_upsample_concat(*ctx_, cat("auto,up=", variant), precision, c, seed += 11);
    }
}

INSTANTIATE_TEST_SUITE_P(All, VulkanConvKernels,
                         ::testing::Combine(::testing::Values("direct", "tiled"),
                                            ::testing::Values(Precision::fp32, Precision::fp16)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + precision_name(std::get<1>(info.param));
                         });

// ---------------- a small U-Net-shaped network ----------------

struct MiniUNet {
  Graph graph;
  std::vector<ConvSpec> convs;
  int ic;
};

// enc0, enc1+pool, enc2+pool, mid, dec0 (upcat enc1-pooled), dec1 (upcat input), out (no ReLU).
MiniUNet make_mini_unet(int ic, uint64_t seed) {
  MiniUNet net;
  net.ic = ic;
  net.convs = {make_conv("enc0", ic, 8, true, false, seed),        make_conv("enc1", 8, 8, true, true, seed + 10),
               make_conv("enc2", 8, 12, true, true, seed + 20),     make_conv("mid", 12, 12, true, false, seed + 30),
               make_conv("dec0", 12 + 8, 12, true, false, seed + 40), make_conv("dec1", 12 + ic, 8, true, false, seed + 50),
               make_conv("out", 8, 3, false, false, seed + 60)};
  Graph& g = net.graph;
  ValueId x = g.add_value("input", DType::f32, Shape{1, ic, -1, -1});
  g.inputs = {x};
  ValueId e0 = add_conv(g, net.convs[0], {x});
  ValueId e1 = add_conv(g, net.convs[1], {e0});
  ValueId e2 = add_conv(g, net.convs[2], {e1});
  ValueId m = add_conv(g, net.convs[3], {e2});
  ValueId d0 = add_conv(g, net.convs[4], {m, e1});
  ValueId d1 = add_conv(g, net.convs[5], {d0, x});
  g.outputs = {add_conv(g, net.convs[6], {d1})};
  return net;
}


class VulkanUNet : public VulkanParity, public ::testing::WithParamInterface<Param> {};

TEST_P(VulkanUNet, MatchesCpu) {
  auto [kernel, precision] = GetParam();
  MiniUNet net = make_mini_unet(5, 42);
  Tensor input = test::random_tensor(Shape{1, 5, 12, 20}, 7, 0.0f, 1.0f);
  ExecutableOptions o;
  o.precision = precision;
  o.kernels = kernel;
  o.timestamps = true;
  VulkanGraphExecutable exe(*ctx_, net.graph, input.shape(), o);
  Tensor ref = cpu_reference(net.graph, input);
  expect_close(exe.run(input), ref, precision, cat("mini U-Net ", kernel, " ", precision_name(precision)));
  // Runs are repeatable (the arena holds stale data from the last run: every output must be rewritten).
  expect_close(exe.run(input), ref, precision, "second run");
  if (ctx_->info().timestamps) {
    ASSERT_EQ(exe.last_timings().size(), net.convs.size());
    for (const auto& t : exe.last_timings()) EXPECT_GE(t.ms, 0.0) << t.name;
    EXPECT_GT(exe.last_gpu_ms(), 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(All, VulkanUNet,
                         ::testing::Combine(::testing::Values("auto", "direct", "tiled",
                                                              "tiled,enc0=direct,dec1=direct,out=direct"),
                                            ::testing::Values(Precision::fp32, Precision::fp16)),
                         [](const auto& info) {
                           std::string k = std::get<0>(info.param);
                           if (k.find(',') != std::string::npos) k = "mixed";
                           return k + "_" + precision_name(std::get<1>(info.param));
                         });

// Through the scheduler (the denoiser's path): the Vulkan backend compiles a fused conv network
// whole, with the variants the kernel choice asks for; "ops" keeps it on the per-op kernels; a
// kernel choice for a graph that is not such a network is refused.
TEST_F(VulkanParity, BackendCompilesAFusedConvNetworkWhole) {
  MiniUNet net = make_mini_unet(5, 3);
  Tensor input = test::random_tensor(Shape{1, 5, 12, 20}, 9, 0.0f, 1.0f);
  const Tensor ref = cpu_reference(net.graph, input);
  const std::map<std::string, Shape> shapes{{"input", input.shape()}};
  auto device = compute_device(*ctx_);
  EXPECT_TRUE(is_fused_conv_network(net.graph));

  runtime::ExecutableOptions o;
  o.kernels = "tiled,enc0=direct";
  auto whole = make_executable(device, net.graph, shapes, o);
  EXPECT_EQ(whole->segment_count(), 1u);
  ASSERT_NE(dynamic_cast<VulkanGraphExecutable*>(whole->compiled(0)), nullptr);
  for (const auto& p : whole->placements())
    EXPECT_EQ(p.variant, p.node == "enc0" ? "direct" : "tiled") << p.node;
  Profile profile;
  expect_close(whole->run({input}, &profile).at(0), ref, Precision::fp32, "fused conv network via the scheduler");
  ASSERT_EQ(profile.entries.size(), net.convs.size());
  EXPECT_GT(whole->memory_needs().sum_activation_bytes, whole->memory_needs().arena_bytes);

  o.kernels = "ops";
  auto ops = make_executable(device, net.graph, shapes, o);
  EXPECT_EQ(dynamic_cast<VulkanGraphExecutable*>(ops->compiled(0)), nullptr);
  EXPECT_EQ(ops->placements()[0].backend_name, "vulkan");
  EXPECT_NE(ops->placements()[0].variant, "tiled") << ops->placement_report();  // an op factory's kernel
  expect_close(ops->run({input}).at(0), ref, Precision::fp32, "the per-op kernels");

  // A user's choice that cannot run is an error, not a quiet switch of engine.
  o.kernels = "tiled,nosuchlayer=direct";
  EXPECT_THROW(make_executable(device, net.graph, shapes, o), Error);
  Graph other = net.graph;
  other.nodes[3].op = "Softmax";
  EXPECT_FALSE(is_fused_conv_network(other));
  o.kernels = "tiled";
  try {
    make_executable(device, other, shapes, o);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("is not one"), std::string::npos) << e.what();
  }
}

TEST_F(VulkanParity, ValidationLayerIsOnWhereInstalled) {
  if (!std::filesystem::exists("/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json"))
    GTEST_SKIP() << "vulkan-validationlayers not installed";
  EXPECT_TRUE(ctx_->validation_enabled());
}

TEST_F(VulkanParity, ArenaReusesMemoryOfDeadValues) {
  MiniUNet net = make_mini_unet(5, 1);
  VulkanGraphExecutable exe(*ctx_, net.graph, Shape{1, 5, 32, 32}, {});
  // Sum of all activations (fp32, channels padded to 4) vs the planned arena.
  uint64_t total = 0;
  for (int c : {8, 5}) total += uint64_t(32 * 32) * ((c + 3) / 4 * 4) * 4;  // enc0, input
  for (int c : {8, 12, 12}) total += uint64_t(c == 8 ? 16 * 16 : 8 * 8) * c * 4;
  total += uint64_t(16 * 16) * 12 * 4 + uint64_t(32 * 32) * (8 + 4) * 4;  // dec0, dec1, out
  EXPECT_LT(exe.arena_bytes(), total);
}

TEST_F(VulkanParity, ErrorsNameTheProblem) {
  MiniUNet net = make_mini_unet(5, 1);
  ExecutableOptions o;
  // Wrong input shape at run time.
  {
    VulkanGraphExecutable exe(*ctx_, net.graph, Shape{1, 5, 8, 8}, o);
    try {
      exe.run(test::random_tensor(Shape{1, 5, 8, 10}, 1));
      ADD_FAILURE() << "expected an error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    }
  }
  // Skip and upsampled shapes that disagree (odd size: 2 * floor(9/2) != 9).
  try {
    VulkanGraphExecutable exe(*ctx_, net.graph, Shape{1, 5, 9, 8}, o);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("dec"), std::string::npos) << e.what();
  }
  // An op the backend lacks.
  Graph g = net.graph;
  g.nodes[3].op = "Softmax";
  try {
    VulkanGraphExecutable exe(*ctx_, g, Shape{1, 5, 8, 8}, o);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    EXPECT_NE(std::string(e.what()).find("mid"), std::string::npos) << e.what();
  }
  // Unknown kernel name.
  o.kernels = "winograd";
  EXPECT_THROW(VulkanGraphExecutable(*ctx_, net.graph, Shape{1, 5, 8, 8}, o), Error);
  // Cooperative matrices where the device lacks them (lavapipe) or in fp32.
  o.kernels = "coopmat";
  if (!ctx_->coopmat_enabled()) {
    o.precision = Precision::fp16;
    try {
      VulkanGraphExecutable exe(*ctx_, net.graph, Shape{1, 5, 8, 8}, o);
      ADD_FAILURE() << "expected an error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    }
  }
  o.precision = Precision::fp32;
  EXPECT_THROW(VulkanGraphExecutable(*ctx_, net.graph, Shape{1, 5, 8, 8}, o), Error);
}

TEST_F(VulkanParity, EveryObjectIsReleased) {
  const int before = live_objects();
  {
    ContextOptions co;
    co.validation = true;
    VulkanContext ctx(co);
    const int with_context = live_objects();
    EXPECT_EQ(live_objects(ObjectKind::Device), live_objects(ObjectKind::Device));
    for (int i = 0; i < 3; ++i) {
      MiniUNet net = make_mini_unet(3, uint64_t(i));
      ExecutableOptions o;
      o.timestamps = true;
      o.precision = i == 1 && ctx.fp16_enabled() ? Precision::fp16 : Precision::fp32;
      VulkanGraphExecutable exe(ctx, net.graph, Shape{1, 3, 4, 8}, o);
      exe.run(test::random_tensor(Shape{1, 3, 4, 8}, 3));
      EXPECT_GT(live_objects(ObjectKind::Pipeline), 0);
      EXPECT_GT(live_objects(ObjectKind::Buffer), 0);
    }
    EXPECT_EQ(live_objects(), with_context);
    EXPECT_EQ(live_objects(ObjectKind::Buffer), live_objects(ObjectKind::Memory));
    for (const auto& m : ctx.validation_messages()) ADD_FAILURE() << "validation: " << m;
  }
  EXPECT_EQ(live_objects(), before);
}

}  // namespace
}  // namespace vx::vk

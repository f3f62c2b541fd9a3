// The oneDNN vx.FusedConv against the reference kernel at odd sizes and channel counts, with every
// combination of relu / pool / upsample_concat, single nodes (NCHW in and out) and chains (NHWC
// inside the CPU backend). Tolerance: 1e-4 of the reference output's largest magnitude. And the
// reference kernel against a value computed by hand.
#include <dlfcn.h>

#include <cmath>
#include <tuple>

#include "backends/cpu/cpu_executable.h"
#include "common/cpu_op_test_util.h"
#include "common/test_util.h"
#include "ops/fused_ops.h"
#include "session/model_runner.h"

namespace vx {
namespace {

struct Case {
  int64_t c_in, c_skip, c_out, h, w;  // h, w: spatial size of X (of X_low when upsample_concat)
  bool relu, pool, upcat;
  int kernel = 3;
  bool odd_geometry = false;  // strides 2, dilations 2, asymmetric pads
};

std::string describe(const Case& c) {
  return cat("c_in ", c.c_in, " c_skip ", c.c_skip, " c_out ", c.c_out, " ", c.h, "x", c.w, " relu ", c.relu,
             " pool ", c.pool, " upcat ", c.upcat, " kernel ", c.kernel, c.odd_geometry ? " odd geometry" : "");
}

Attributes fused_attrs(const Case& c) {
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{c.kernel, c.kernel});
  if (c.odd_geometry) {
    a.set("strides", std::vector<int64_t>{2, 1});
    a.set("dilations", std::vector<int64_t>{2, 2});
    a.set("pads", std::vector<int64_t>{0, 1, 2, 1});
  } else {
    const int64_t p = c.kernel / 2;
    a.set("pads", std::vector<int64_t>{p, p, p, p});
  }
  a.set("relu", int64_t(c.relu));
  a.set("pool", int64_t(c.pool));
  a.set("upsample_concat", int64_t(c.upcat));
  return a;
}

// Set by compare(): how many compared outputs were all (nearly) zero, where a relative error
// says little (a single node whose ReLU clips everything is legitimate, a whole network is not).
int g_degenerate_outputs = 0;

double relative_error(const Tensor& got, const Tensor& ref) {
  double peak = 1e-6;
  for (int64_t i = 0; i < ref.numel(); ++i) peak = std::max(peak, std::abs(ref.get(i)));
  if (peak < 1e-3) ++g_degenerate_outputs;
  return test::max_abs_diff(got, ref) / peak;
}

// Runs `g` with the fast kernels and with the reference kernels; checks the fast path was used for
// `expected_onednn` nodes and returns the largest relative error over the outputs.
double compare(const Graph& g, const std::vector<Tensor>& inputs, int expected_onednn) {
  ModelRunnerOptions fast_options, ref_options;
  fast_options.optimize = ref_options.optimize = false;
  ref_options.reference_only = true;
  ModelRunner fast(g, fast_options), ref(g, ref_options);
  Profile profile;
  auto a = fast.run(inputs, &profile);
  auto b = ref.run(inputs);
  int onednn = 0;
  for (const ProfileEntry& e : profile.entries) onednn += e.variant == "cpu:onednn";
  EXPECT_EQ(onednn, expected_onednn) << profile.str();
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].shape(), b[i].shape());
    worst = std::max(worst, relative_error(a[i], b[i]));
  }
  return worst;
}

Graph single_node(const Case& c, uint64_t seed) {
  Graph g;
  g.name = "fused_conv";
  std::vector<ValueId> ins = {g.add_value("x", DType::f32, {1, c.c_in, c.h, c.w})};
  g.inputs = {ins[0]};
  if (c.upcat) {
    ins.push_back(g.add_value("skip", DType::f32, {1, c.c_skip, 2 * c.h, 2 * c.w}));
    g.inputs.push_back(ins[1]);
  }
  const int64_t c_total = c.c_in + (c.upcat ? c.c_skip : 0);
  const float bound = 1.0f / std::sqrt(float(c_total * c.kernel * c.kernel));
  ins.push_back(g.add_constant("w", test::random_tensor({c.c_out, c_total, c.kernel, c.kernel}, seed, -bound, bound)));
  ins.push_back(g.add_constant("b", test::random_tensor({c.c_out}, seed + 1)));
  ValueId y = g.add_value("y", DType::f32, {});
  g.add_node(kFusedConv, "fused", ins, {y}, fused_attrs(c));
  g.outputs = {y};
  return g;
}

TEST(CpuFusedConv, OneDnnMatchesReferenceOnSingleNodes) {
  struct Size {
    int64_t h, w;
  };
  const std::vector<Size> sizes = {{1, 1}, {17, 5}, {31, 33}};
  const std::vector<std::array<int64_t, 3>> channels = {{3, 5, 9}, {5, 3, 17}, {9, 9, 32}, {17, 32, 3}, {32, 17, 5}};
  uint64_t seed = 100;
  int cases = 0;
  g_degenerate_outputs = 0;
  for (const Size& size : sizes)
    for (const auto& ch : channels)
      for (int flags = 0; flags < 8; ++flags) {
        Case c{ch[0], ch[1], ch[2], size.h, size.w, bool(flags & 1), bool(flags & 2), bool(flags & 4)};
        const int64_t conv_h = c.upcat ? 2 * c.h : c.h, conv_w = c.upcat ? 2 * c.w : c.w;
        if (c.pool && (conv_h < 2 || conv_w < 2)) continue;  // nothing to pool
        Graph g = single_node(c, seed);
        std::vector<Tensor> inputs = {test::random_tensor({1, c.c_in, c.h, c.w}, seed + 2)};
        if (c.upcat) inputs.push_back(test::random_tensor({1, c.c_skip, 2 * c.h, 2 * c.w}, seed + 3));
        EXPECT_LE(compare(g, inputs, 1), 1e-4) << describe(c);
        seed += 10;
        ++cases;
      }
  EXPECT_EQ(cases, 5 * (6 + 8 + 8));  // 1x1 without upsampling cannot pool
  EXPECT_LE(g_degenerate_outputs, cases / 10);
}

TEST(CpuFusedConv, OneDnnMatchesReferenceOnOtherGeometries) {
  const std::vector<Case> cases = {
      {5, 0, 9, 17, 5, true, false, false, 1},          {9, 0, 17, 31, 33, false, true, false, 1},
      {3, 0, 5, 17, 13, true, false, false, 3, true},   {17, 0, 32, 31, 33, true, true, false, 3, true},
      {9, 5, 17, 8, 7, true, false, true, 1},           {5, 3, 9, 7, 9, false, false, true, 3, true},
      {32, 32, 32, 9, 11, true, true, true, 5},
      // Winograd with the packed source padded with zero channels: 64 + 9 -> 80, 16 + 1 -> 32 (no).
      {64, 9, 32, 6, 10, true, false, true},            {16, 1, 16, 5, 7, true, true, true},
  };
  uint64_t seed = 7000;
  for (const Case& c : cases) {
    Graph g = single_node(c, seed);
    std::vector<Tensor> inputs = {test::random_tensor({1, c.c_in, c.h, c.w}, seed + 2)};
    if (c.upcat) inputs.push_back(test::random_tensor({1, c.c_skip, 2 * c.h, 2 * c.w}, seed + 3));
    EXPECT_LE(compare(g, inputs, 1), 1e-4) << describe(c);
    seed += 10;
  }
}

// A U-Net-shaped chain of fused convs: the values between them are NHWC inside the backend, the
// skip of the last decoder is the (NCHW) graph input, and one intermediate is also a graph output.
TEST(CpuFusedConv, ChainsWithInternalNhwcMatchReference) {
  // With skip_enc0 the last decoder reads enc0's output (NHWC: enc0 has 9 input channels, so no
  // Winograd) instead of the graph input, into a Winograd (nChw16c) source.
  for (auto [h, w, skip_enc0] : std::vector<std::tuple<int64_t, int64_t, bool>>{{12, 20, false}, {36, 28, false},
                                                                                 {20, 12, true}}) {
    Graph g;
    g.name = "chain";
    uint64_t seed = 900;
    ValueId x = g.add_value("x", DType::f32, {1, 9, h, w});
    g.inputs = {x};
    auto conv = [&](const std::string& name, std::vector<ValueId> data, int64_t cin, int64_t cout, bool relu, bool pool,
                    bool upcat) {
      const float bound = 1.0f / std::sqrt(float(cin * 9));
      data.push_back(g.add_constant(name + ".w", test::random_tensor({cout, cin, 3, 3}, seed++, -bound, bound)));
      data.push_back(g.add_constant(name + ".b", test::random_tensor({cout}, seed++, -0.1f, 0.1f)));
      ValueId y = g.add_value(name, DType::f32, {});
      Case c{0, 0, 0, 0, 0, relu, pool, upcat};
      g.add_node(kFusedConv, name, data, {y}, fused_attrs(c));
      return y;
    };
    ValueId e0 = conv("enc0", {x}, 9, 32, true, false, false);
    ValueId p1 = conv("enc1", {e0}, 32, 32, true, true, false);
    ValueId p2 = conv("enc2", {p1}, 32, 48, true, true, false);
    ValueId d1 = conv("dec1", {p2, p1}, 48 + 32, 64, true, false, true);
    ValueId d0 = skip_enc0 ? conv("dec0", {d1, e0}, 64 + 32, 32, true, false, true)
                           : conv("dec0", {d1, x}, 64 + 9, 32, true, false, true);
    ValueId out = conv("out", {d0}, 32, 3, false, false, false);
    g.outputs = {out, p2};
    g_degenerate_outputs = 0;
    EXPECT_LE(compare(g, {test::random_tensor({1, 9, h, w}, 5)}, 6), 1e-4) << h << "x" << w;
    EXPECT_EQ(g_degenerate_outputs, 0);
  }
}

}  // namespace
}  // namespace vx

namespace vx {
namespace {

// --threads reaches oneDNN: its OpenMP thread count follows the executor's pool.
TEST(CpuFusedConv, OneDnnThreadsFollowThePool) {
  using MaxThreads = int (*)();
  auto omp_max_threads = reinterpret_cast<MaxThreads>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
  ASSERT_NE(omp_max_threads, nullptr) << "oneDNN is expected to use GNU OpenMP";
  Case c{5, 0, 7, 9, 8, true, false, false};
  Graph g = single_node(c, 3);
  for (int threads : {1, 2, 3}) {
    ModelRunnerOptions options;
    options.threads = threads;
    ModelRunner runner(g, options);
    runner.run({test::random_tensor({1, 5, 9, 8}, 1)});
    EXPECT_EQ(omp_max_threads(), threads);
  }
}

}  // namespace
}  // namespace vx

namespace vx {
namespace {

// The base U-Net's 16 convolutions with their real channel counts (9 in, 73 -> 80 padded, 3 out)
// and fusions, at a small odd-ish size: the fast path end to end against the reference.
TEST(CpuFusedConv, BaseUNetShapedNetworkMatchesReference) {
  Graph g;
  g.name = "base_unet";
  const int64_t h = 48, w = 80;
  uint64_t seed = 4242;
  ValueId x = g.add_value("input", DType::f32, {1, 9, h, w});
  g.inputs = {x};
  auto conv = [&](const std::string& name, std::vector<ValueId> data, int64_t cin, int64_t cout, bool relu, bool pool,
                  bool upcat) {
    const float bound = std::sqrt(6.0f / float(cin * 9));  // He-uniform: activations keep their scale
    data.push_back(g.add_constant(name + ".w", test::random_tensor({cout, cin, 3, 3}, seed++, -bound, bound)));
    data.push_back(g.add_constant(name + ".b", test::random_tensor({cout}, seed++, -0.05f, 0.05f)));
    ValueId y = g.add_value(name, DType::f32, {});
    Case c{0, 0, 0, 0, 0, relu, pool, upcat};
    g.add_node(kFusedConv, name, data, {y}, fused_attrs(c));
    return y;
  };
  ValueId e0 = conv("enc_conv0", {x}, 9, 32, true, false, false);
  ValueId p1 = conv("enc_conv1", {e0}, 32, 32, true, true, false);
  ValueId p2 = conv("enc_conv2", {p1}, 32, 48, true, true, false);
  ValueId p3 = conv("enc_conv3", {p2}, 48, 64, true, true, false);
  ValueId p4 = conv("enc_conv4", {p3}, 64, 80, true, true, false);
  ValueId e5 = conv("enc_conv5b", {conv("enc_conv5a", {p4}, 80, 96, true, false, false)}, 96, 96, true, false, false);
  ValueId d4 = conv("dec_conv4b", {conv("dec_conv4a", {e5, p3}, 96 + 64, 112, true, false, true)}, 112, 112, true,
                    false, false);
  ValueId d3 = conv("dec_conv3b", {conv("dec_conv3a", {d4, p2}, 112 + 48, 96, true, false, true)}, 96, 96, true,
                    false, false);
  ValueId d2 = conv("dec_conv2b", {conv("dec_conv2a", {d3, p1}, 96 + 32, 64, true, false, true)}, 64, 64, true,
                    false, false);
  ValueId d1 = conv("dec_conv1b", {conv("dec_conv1a", {d2, x}, 64 + 9, 64, true, false, true)}, 64, 32, true, false,
                    false);
  g.outputs = {conv("dec_conv0", {d1}, 32, 3, false, false, false)};
  g_degenerate_outputs = 0;
  const double error = compare(g, {test::random_tensor({1, 9, h, w}, 11, 0.0f, 1.0f)}, 16);
  EXPECT_EQ(g_degenerate_outputs, 0);
  EXPECT_LE(error, 1e-4);
  RecordProperty("relative_error", std::to_string(error));
}

}  // namespace
}  // namespace vx

namespace vx::test {
namespace {

// The reference vx.FusedConv against a value computed by hand, through the executor.
TEST(CpuFusedConv, FusedConvUpsampleConcatReluPool) {
  // X_low 1x1x1x1 = [2] upsampled to 2x2, X_skip 1x1x2x2, 1x1 conv with weights [1, -1], bias -1,
  // relu, then 2x2 pool: max(relu(2 - s - 1)).
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{1, 1});
  a.set("relu", int64_t(1));
  a.set("pool", int64_t(1));
  a.set("upsample_concat", int64_t(1));
  auto y = ReferenceNode()
               .input(Tensor::from<float>({1, 1, 1, 1}, {2}))
               .input(Tensor::from<float>({1, 1, 2, 2}, {0.5f, 3, -4, 1}))
               .constant(Tensor::from<float>({1, 2, 1, 1}, {1, -1}))
               .constant(Tensor::from<float>({1}, {-1}))
               .run(kFusedConv, a);
  expect_values(y[0], {1, 1, 1, 1}, {5});  // 2 - (-4) - 1
}

}  // namespace
}  // namespace vx::test

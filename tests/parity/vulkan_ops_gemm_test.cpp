// The GEMM kernels of the Vulkan backend (src/backends/vulkan/kernels/gemm_plan.h) against the CPU
// reference kernels (double accumulation): every SIMT kernel forced through VOLVOX_VK_GEMM (the 64 x 64
// "tiled" one and its 32 x 128 tile, the register-tiled "simt" ones at 128 x 64 and 128 x 128 tiles) at odd shapes (M, N,
// K not multiples of 4 / 16, ragged tiles), batched and broadcast, transposed strides, 16-byte
// loads on and off, split K on and off, im2col (Conv), and the fused epilogue (bias, ReLU, GELU
// with erf and tanh, beta * C) through MatMul, Gemm, vx.FusedMatMul and vx.MatMulInt8W (int8 weights);
// fp32 and fp16 storage.
// The staged tensor-core kernel runs where the device has fp16 cooperative matrices (the H200;
// skipped on lavapipe, which has none).
//
// Tolerances: fp32 storage: max |gpu - ref| <= 1e-4 * max(1, max |ref|) (fp32 accumulation over
// K <= 600 terms of magnitude <= 1); fp16 storage (inputs rounded to fp16 for both sides, fp32
// accumulation, one rounding of the output): <= 1e-2 * max(1, max |ref|).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "ops/fused_ops.h"

namespace vx::vk {
namespace {

using test::NodeInput;

using test::ScopedEnv;


struct GemmCase {
  std::string op;
  std::vector<NodeInput> inputs;
  Attributes attrs;
  std::string domain;
};

GemmCase matmul(Tensor a, Tensor b, bool b_constant = true) {
  return {"MatMul", {test::input(std::move(a)), b_constant ? test::constant(std::move(b)) : test::input(std::move(b))}, {}, ""};
}

GemmCase fused(Tensor a, Tensor b, std::optional<Tensor> bias, const std::string& act, bool bias_constant = true) {
  GemmCase c{kFusedMatMul, {test::input(std::move(a)), test::constant(std::move(b))}, {}, ""};
  if (bias) c.inputs.push_back(bias_constant ? test::constant(*bias) : test::input(*bias));
  c.attrs.set("activation", act);
  return c;
}

// vx.MatMulInt8W: Y = act(A (Wq * scales) + bias), Wq int8 [K, N], scales [N].
GemmCase int8w(Tensor a, Tensor wq, Tensor scales, std::optional<Tensor> bias, const std::string& act) {
  GemmCase c{kMatMulInt8W, {test::input(std::move(a)), test::constant(std::move(wq)), test::constant(std::move(scales))}, {}, ""};
  if (bias) c.inputs.push_back(test::constant(*bias));
  c.attrs.set("activation", act);
  return c;
}

// Random int8 weights in [-127, 127].
Tensor int8_weights(Shape s, uint64_t seed) {
  Tensor t(DType::i8, std::move(s));
  std::mt19937_64 rng(seed);
  int8_t* p = t.data<int8_t>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = int8_t(int(rng() % 255) - 127);
  return t;
}

// A Gemm with both operands transposed (m and k strides 1), alpha and beta.
Attributes transposed_gemm() {
  Attributes t;
  t.set("transA", int64_t(1));
  t.set("transB", int64_t(1));
  t.set("alpha", 0.5f);
  t.set("beta", 2.0f);
  return t;
}

class VulkanGemm : public test::VulkanOpTest, public ::testing::WithParamInterface<Precision> {
 protected:
  // Random inputs, each from the next seed.
  Tensor r(Shape s, float lo = -1.0f, float hi = 1.0f) { return test::random_tensor(std::move(s), seed_++, lo, hi); }
  uint64_t seed_ = 300;

  void SetUp() override {
    test::VulkanOpTest::SetUp();
    if (IsSkipped()) return;
    if (GetParam() == Precision::fp16 && !ctx().fp16_enabled()) GTEST_SKIP() << "the device has no fp16 storage";
  }

  // Runs `c` on the GPU (the node must be placed there, with a variant containing `variant` when
  // given) and compares with the CPU reference; returns the node's variant. With `after_another_run`,
  // the executable first runs on the runtime inputs halved (what a run leaves behind must not change
  // the next one's result).
  std::string check(const GemmCase& c, const std::string& what, const std::string& variant = "",
                    bool after_another_run = false) {
    const Precision precision = GetParam();
    std::vector<NodeInput> inputs = c.inputs;
    if (precision == Precision::fp16)
      for (NodeInput& in : inputs)
        if (in.value.defined() && in.value.dtype() == DType::f32) in.value = in.value.to(DType::f16).to(DType::f32);
    const test::SingleNodeCase sc = test::single_node(c.op, inputs, 1, c.attrs, 17, c.domain);
    const std::vector<Tensor> expected = test::run_cpu_reference(sc.graph, sc.inputs);
    std::vector<Tensor> halved;
    if (after_another_run)
      for (const Tensor& t : sc.inputs) {
        Tensor h = t.clone();
        for (int64_t j = 0; j < h.numel(); ++j) h.set(j, 0.5 * h.get(j));
        halved.push_back(std::move(h));
      }
    const test::VulkanRun run =
        test::run_on_vulkan(ctx(), sc.graph, sc.inputs, precision, after_another_run ? &halved : nullptr);
    std::string placement;
    for (const runtime::NodePlacement& p : run.placements)
      if (p.op == c.op) placement = p.on_host ? "cpu: " + p.reason : p.variant;
    EXPECT_TRUE(run.all_on_gpu) << what << ": " << placement;
    if (!run.all_on_gpu) return placement;
    if (!variant.empty()) {
      EXPECT_NE(placement.find(variant), std::string::npos) << what << ": variant " << placement << ", expected " << variant;
    }
    EXPECT_EQ(run.outputs.size(), 1u) << what;
    if (run.outputs.size() != 1u) return placement;
    EXPECT_EQ(run.outputs[0].shape(), expected[0].shape()) << what;
    if (run.outputs[0].shape() != expected[0].shape()) return placement;
    double peak = 1.0;
    for (int64_t j = 0; j < expected[0].numel(); ++j) peak = std::max(peak, std::abs(expected[0].get(j)));
    const double tol = (precision == Precision::fp16 ? 1e-2 : 1e-4) * peak;
    const double err = test::max_abs_diff(run.outputs[0].to(DType::f32), expected[0].to(DType::f32));
    EXPECT_LE(err, tol) << what << " (" << precision_name(precision) << ", " << placement << "): max abs error " << err;
    return placement;
  }

  // The shapes every SIMT kernel must get right; `kernel` is VOLVOX_VK_GEMM's value, `tag` the
  // variant's kernel part ("@simt128x64", or "tiled" for the 64 x 64 kernel).
  void check_shapes(const std::string& kernel, const std::string& tag) {
    ScopedEnv gemm("VOLVOX_VK_GEMM", kernel.c_str());
    check(matmul(r(Shape{1, 17}), r(Shape{17, 5}), false), kernel + " MatMul 1x17x5", tag);
    check(matmul(r(Shape{70, 33}), r(Shape{33, 65}), false), kernel + " MatMul odd 70x33x65", tag);
    check(matmul(r(Shape{131, 40}), r(Shape{40, 136})), kernel + " MatMul vector loads 131x40x136",
          "+vecA+vecB");
    check(matmul(r(Shape{3, 1, 150, 20}), r(Shape{4, 20, 72})), kernel + " MatMul broadcast batches",
          tag);
    check(matmul(r(Shape{129, 7}), r(Shape{7, 129}), false), kernel + " MatMul K 7", tag);
    // A transposed (m stride 1), B transposed (k stride 1), alpha, beta * C broadcast along rows.
    const Attributes t = transposed_gemm();
    check({"Gemm", {test::input(r(Shape{45, 133})), test::input(r(Shape{99, 45})),
                    test::input(r(Shape{133, 1}))}, t, ""},
          kernel + " Gemm transposed with C", tag);
    // Split K 3, added by a reduce pass and (the FMA 64 x 64 kernel's tiles) by the last split of
    // each tile, after another run of the same executable (the arrival counts back at zero).
    for (const char* max_by_last : {"0", "8"}) {
      ScopedEnv split("VOLVOX_VK_SPLITK", "3"), by_last("VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS", max_by_last);
      const bool adds_in_kernel = std::string(max_by_last) != "0" && kernel != "simt";
      const std::string v = adds_in_kernel ? "_splitk3+reduceByLastSplit" : "_splitk3";
      const std::string how = adds_in_kernel ? " by the last split" : "";
      const std::string placement =
          check(matmul(r(Shape{5, 256}), r(Shape{256, 24})), kernel + " MatMul split K 3" + how, v, true);
      if (!adds_in_kernel) {
        EXPECT_EQ(placement.find("+reduceByLastSplit"), std::string::npos) << placement;
      }
      check(matmul(r(Shape{2, 67, 90}), r(Shape{2, 90, 11}), false), kernel + " batched split K 3" + how, v, true);
      check({"Gemm", {test::input(r(Shape{5, 200})), test::constant(r(Shape{200, 9})),
                      test::constant(r(Shape{5, 9}))}, {}, ""},
            kernel + " Gemm split K 3 with C" + how, v, true);
    }
    {
      // 11 splits over rows that are not quads: 8 invocations an element (gemm_reduce's lanes
      // variant), three of them adding two splits; with the lanes' minimum above 11, one adds all.
      ScopedEnv split("VOLVOX_VK_SPLITK", "11");
      check(matmul(r(Shape{5, 340}), r(Shape{340, 23})), kernel + " MatMul split K 11", "_splitk11+reduceLanes");
      check(matmul(r(Shape{2, 67, 350}), r(Shape{2, 350, 11}), false), kernel + " batched split K 11",
            "_splitk11+reduceLanes");
      check({"Gemm", {test::input(r(Shape{5, 340})), test::constant(r(Shape{340, 9})),
                      test::constant(r(Shape{5, 9}))}, {}, ""},
            kernel + " Gemm split K 11 with C", "_splitk11+reduceLanes");
      ScopedEnv min_splits("VOLVOX_VK_REDUCE_LANES_MIN_SPLITS", "12");
      const std::string placement =
          check(matmul(r(Shape{5, 340}), r(Shape{340, 23})), kernel + " MatMul split K 11, one lane", "_splitk11");
      EXPECT_EQ(placement.find("+reduceLanes"), std::string::npos) << placement;
    }
    {
      ScopedEnv split("VOLVOX_VK_SPLITK", "1");
      check(matmul(r(Shape{1, 600}), r(Shape{600, 40})), kernel + " MatMul long K, no split", tag);
    }
    // Conv through the GEMM's implicit im2col (B_MODE 1), ragged K (5 channels x 9 taps).
    ScopedEnv conv("VOLVOX_VK_CONV", "gemm");
    Attributes ca;
    ca.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    check({"Conv", {test::input(r(Shape{1, 5, 9, 7})), test::constant(r(Shape{13, 5, 3, 3})),
                    test::constant(r(Shape{13}))}, ca, ""},
          kernel + " Conv 3x3 im2col", tag);
  }

  // The epilogue: bias (constant and runtime), every activation, with and without split K (the
  // split sums added by a reduce pass, and where the kernel can, by the last split of each tile).
  void check_epilogues(const std::string& kernel, const std::string& tag) {
    ScopedEnv gemm("VOLVOX_VK_GEMM", kernel.c_str());
    for (const char* splits : {"1", "2", "2 by the last split"}) {
      const bool by_last_split = std::string(splits) == "2 by the last split";
      ScopedEnv split("VOLVOX_VK_SPLITK", splits[0] == '1' ? "1" : "2"),
          by_last("VOLVOX_VK_REDUCE_BY_LAST_SPLIT_MAX_SPLITS", by_last_split ? "8" : "0");
      const std::string s = std::string(" splits ") + splits;
      for (const char* act : {"none", "relu", "gelu_erf", "gelu_tanh"}) {
        check(fused(r(Shape{67, 72}), r(Shape{72, 44}), r(Shape{44}, -2.0f, 2.0f), act),
              kernel + " FusedMatMul bias " + act + s, tag, by_last_split);
        check(fused(r(Shape{2, 3, 33}, -2.0f, 2.0f), r(Shape{33, 19}), std::nullopt, act),
              kernel + " FusedMatMul batched, no bias, " + act + s, tag, by_last_split);
      }
      check(fused(r(Shape{9, 64}), r(Shape{64, 24}), r(Shape{24}), "gelu_erf", false),
            kernel + " FusedMatMul runtime bias" + s, tag, by_last_split);
    }
  }
};

// The rows kernel (products of few rows; never split): forced on row counts up to and past its
// automatic range, strided and broadcast operands, every epilogue; chosen by itself for M <= 4 and
// K <= 1536 where B's rows do not load as 16-byte words (else the gemv kernel).
TEST_P(VulkanGemm, RowsShapesAndEpilogues) {
  {
    ScopedEnv gemm("VOLVOX_VK_GEMM", "rows");
    check(matmul(r(Shape{1, 17}), r(Shape{17, 5}), false), "rows MatMul 1x17x5", "rows");
    check(matmul(r(Shape{3, 600}), r(Shape{600, 41})), "rows MatMul 3x600x41", "rows");
    check(matmul(r(Shape{70, 33}), r(Shape{33, 65}), false), "rows MatMul 70x33x65", "rows");
    check(matmul(r(Shape{3, 1, 2, 20}), r(Shape{4, 20, 72})), "rows MatMul broadcast batches", "rows");
    const Attributes t = transposed_gemm();
    check({"Gemm", {test::input(r(Shape{45, 2})), test::input(r(Shape{99, 45})), test::input(r(Shape{2, 1}))}, t, ""},
          "rows Gemm transposed with C", "rows");
    for (const char* act : {"none", "relu", "gelu_erf", "gelu_tanh"}) {
      check(fused(r(Shape{1, 300}), r(Shape{300, 37}), r(Shape{37}, -2.0f, 2.0f), act),
            std::string("rows FusedMatMul bias ") + act, "rows");
      check(fused(r(Shape{2, 3, 33}, -2.0f, 2.0f), r(Shape{33, 19}), std::nullopt, act),
            std::string("rows FusedMatMul batched, no bias, ") + act, "rows");
    }
  }
  ScopedEnv gemm("VOLVOX_VK_GEMM", nullptr);
  check(matmul(r(Shape{1, 960}), r(Shape{960, 1277})), "auto MatMul 1x960x1277", "rows");
  check(matmul(r(Shape{5, 96}), r(Shape{96, 40})), "auto MatMul 5x96x40", "tiled");
  check(matmul(r(Shape{1, 2048}), r(Shape{2048, 41})), "auto MatMul 1x2048x41", "tiled");
}

// The gemv kernel (few rows, B's rows in 16-byte words; never split): forced where B's rows allow
// it (N a multiple of 8 at fp16, 4 at fp32; constant or runtime B), K of less than one row a thread
// (17) and of more than four (1100: a second pass of the loop), batches, every epilogue; chosen by
// itself for ResNet-50's head (K 2048). Both ways of adding the threads' sums: subgroup reductions
// (the default where the device has them) and the shared-memory tree.
TEST_P(VulkanGemm, GemvShapesAndEpilogues) {
  const int64_t word = GetParam() == Precision::fp16 ? 8 : 4;
  for (const char* subgroup : {"1", "0"}) {
    ScopedEnv sum("VOLVOX_VK_GEMV_SUBGROUP", subgroup);
    const std::string gemv = std::string(subgroup) == "1" ? "gemv+vecB+subgroupSum" : "gemv+vecB";
    {
      ScopedEnv gemm("VOLVOX_VK_GEMM", "gemv");
      check(matmul(r(Shape{1, 17}), r(Shape{17, 8})), "gemv MatMul 1x17x8", gemv);
      check(matmul(r(Shape{3, 1100}), r(Shape{1100, 40})), "gemv MatMul 3x1100x40", gemv);
      check(matmul(r(Shape{2, 300}), r(Shape{300, 3 * word}), false), "gemv MatMul runtime B", gemv);
      check(matmul(r(Shape{3, 1, 2, 20}), r(Shape{4, 20, 72})), "gemv MatMul broadcast batches", gemv);
      // fp32: 12 columns end half-way through a workgroup's 8.
      check(matmul(r(Shape{1, 77}), r(Shape{77, 12})), "gemv MatMul 1x77x12",
            GetParam() == Precision::fp16 ? "rows" : gemv);
      for (const char* act : {"none", "relu", "gelu_erf", "gelu_tanh"}) {
        check(fused(r(Shape{1, 300}), r(Shape{300, 48}), r(Shape{48}, -2.0f, 2.0f), act),
              std::string("gemv FusedMatMul bias ") + act, gemv);
        check(fused(r(Shape{2, 3, 33}, -2.0f, 2.0f), r(Shape{33, 24}), std::nullopt, act),
              std::string("gemv FusedMatMul batched, no bias, ") + act, gemv);
      }
      // B's rows not on words (N 37): the kernel cannot run, the rows kernel does.
      check(matmul(r(Shape{1, 40}), r(Shape{40, 37})), "gemv MatMul N 37", "rows");
    }
    ScopedEnv gemm("VOLVOX_VK_GEMM", nullptr);
    const std::string placed = check(matmul(r(Shape{1, 2048}), r(Shape{2048, 1000})), "auto MatMul 1x2048x1000", gemv);
    if (std::string(subgroup) == "0") {
      EXPECT_EQ(placed.find("subgroupSum"), std::string::npos) << placed;
    }
  }
}

TEST_P(VulkanGemm, Tiled64Shapes) { check_shapes("tiled", "tiled"); }

// B's rows in 8-byte words where 16-byte ones do not divide them (N and every row start a multiple
// of 4 values at fp16 or 2 at fp32, not of 8 / 4): ragged tiles, batches, split K, a 1x1 Conv at
// 14 x 14 pixels (N 196).
TEST_P(VulkanGemm, Tiled64HalfWidthLoadsOfB) {
  ScopedEnv gemm("VOLVOX_VK_GEMM", "tiled");
  const bool fp16 = GetParam() == Precision::fp16;
  const int64_t n = fp16 ? 196 : 98;  // a multiple of 4 / 2, not 8 / 4
  check(matmul(r(Shape{70, 40}), r(Shape{40, n})), "MatMul 70x40xN", "tiled+vecA+halfVecB");
  check(matmul(r(Shape{2, 33, 24}), r(Shape{2, 24, n}), false), "batched MatMul 33x24xN", "+halfVecB");
  {
    ScopedEnv split("VOLVOX_VK_SPLITK", "3");
    check(matmul(r(Shape{5, 256}), r(Shape{256, n})), "MatMul split K 3", "tiled_splitk3+vecA+halfVecB");
  }
  check(matmul(r(Shape{9, 40}), r(Shape{40, fp16 ? 200 : 100})), "MatMul 16-byte loads still", "+vecB");
  const std::string neither = check(matmul(r(Shape{9, 40}), r(Shape{40, fp16 ? 198 : 99})), "MatMul neither", "tiled+vecA");
  EXPECT_EQ(neither.find("VecB"), std::string::npos) << neither;
  ScopedEnv conv("VOLVOX_VK_CONV", "gemm");
  check({"Conv", {test::input(r(Shape{1, 48, 14, fp16 ? 14 : 7})), test::constant(r(Shape{40, 48, 1, 1})),
                  test::constant(r(Shape{40}))}, {}, ""},
        "Conv 1x1", "+halfVecB");
}
TEST_P(VulkanGemm, SimtShapes) { check_shapes("simt", "@simt128x64"); }
TEST_P(VulkanGemm, Tiled64Epilogues) { check_epilogues("tiled", "tiled"); }
TEST_P(VulkanGemm, Tiled32x128Shapes) { check_shapes("tiled_m32", "@m32x128"); }
TEST_P(VulkanGemm, Tiled32x128Epilogues) { check_epilogues("tiled_m32", "@m32x128"); }
TEST_P(VulkanGemm, SimtEpilogues) { check_epilogues("simt", "@simt128x64"); }

// Products with at least 128 tiles of 128 x 128 take the 128 x 128 SIMT tile: large shapes, run on
// a GPU (bench/vulkan/check_h200.sh); on lavapipe AutomaticChoice covers the tile at one shape.
TEST_P(VulkanGemm, SimtLargeTiles) {
  if (ctx().info().type == "cpu")
    GTEST_SKIP() << "large shapes: run on a GPU (bench/vulkan/check_h200.sh); AutomaticChoice covers the tile here";
  ScopedEnv gemm("VOLVOX_VK_GEMM", "simt");
  check(matmul(test::random_tensor(Shape{128, 130, 9}, 500), test::random_tensor(Shape{128, 9, 131}, 501), false), "simt 128 batches of 130x9x131",
        "@simt128x128");
  check(fused(test::random_tensor(Shape{64, 140, 24}, 502), test::random_tensor(Shape{24, 260}, 503), test::random_tensor(Shape{260}, 504), "gelu_tanh"),
        "simt FusedMatMul 64 batches of 140x24x260", "@simt128x128");
}

// The automatic choice without VOLVOX_VK_GEMM: the staged tensor-core kernel, wherever it can run,
// for products of at least 2^22 multiply-adds, on 64 x 64 tiles where they are >= 128, or make
// >= 256 workgroups with K > 512 split, or B's rows of >= 1024 are gathered (33x40x4100), else on
// 32 x 64 ones; else the 64 x 64 kernel (K split over more workgroups for few tiles and K >= 256),
// and the 128 x 128 register-tiled one for large products.
TEST_P(VulkanGemm, AutomaticChoice) {
  ScopedEnv gemm("VOLVOX_VK_GEMM", nullptr);
  ScopedEnv split("VOLVOX_VK_SPLITK", nullptr);
  const bool tensor_cores = GetParam() == Precision::fp16 && ctx().coopmat_enabled();
  const bool big_shared = ctx().info().max_shared_memory >= 32768;
  check(matmul(test::random_tensor(Shape{5, 40}, 510), test::random_tensor(Shape{40, 33}, 511)), "auto 5x40x33", "tiled+vecA");
  // At most 32 rows over >= 4096 columns: the 32 x 128 tile (a detection head's convolution).
  check(matmul(test::random_tensor(Shape{24, 40}, 526), test::random_tensor(Shape{40, 4100}, 527)), "auto 24x40x4100",
        "@m32x128");
  const std::string narrow = check(matmul(test::random_tensor(Shape{33, 40}, 528), test::random_tensor(Shape{40, 4100}, 529)),
                                   "auto 33x40x4100", tensor_cores ? "@staged64x64" : "tiled+vecA");
  EXPECT_EQ(narrow.find("@m32x128"), std::string::npos) << narrow;
  check(matmul(test::random_tensor(Shape{96, 64}, 514), test::random_tensor(Shape{64, 48}, 515)), "auto 96x64x48",
        "tiled+vecA+vecB");
  // One tile, K 640: min(384 workgroups, 640 / 64) = 10 splits of 64; at fp32 rows of 24 values are
  // not quads (Y_QUADS is fp16's), and the reduce pass spreads the splits over its lanes.
  check(matmul(test::random_tensor(Shape{40, 640}, 522), test::random_tensor(Shape{640, 24}, 523)), "auto 40x640x24 (split K)",
        GetParam() == Precision::fp16 ? "tiled_splitk10+vecA+vecB" : "tiled_splitk10+reduceLanes+vecA+vecB");
  check(matmul(test::random_tensor(Shape{512, 64}, 520), test::random_tensor(Shape{64, 513}, 521)), "auto 512x64x513 (many outputs)",
        tensor_cores ? "@staged32x64" : "tiled+vecA");
  check(matmul(test::random_tensor(Shape{1024, 8}, 516), test::random_tensor(Shape{8, 2048}, 517)), "auto 1024x8x2048",
        tensor_cores ? "@staged64x64" : big_shared ? "@simt128x128" : "tiled+vecA+vecB");
  check(matmul(test::random_tensor(Shape{128, 512}, 518), test::random_tensor(Shape{512, 1024}, 519)), "auto 128x512x1024",
        tensor_cores ? "@staged32x64" : "tiled");
  // K > 512 split over 72 tiles of 64 x 64 (DeepLabV3's 3x3 classifier): the cost formula's 8
  // splits, capped at 512 / 72 = 7, make 504 workgroups, so 64 x 64 tiles (from 384). On the FMA
  // kernel elsewhere (on lavapipe it would only repeat the cases above, slowly).
  if (tensor_cores)
    check(matmul(test::random_tensor(Shape{256, 2304}, 530), test::random_tensor(Shape{2304, 1096}, 531)),
          "auto 256x2304x1096 (split over 64 x 64 tiles)", "coopmat_splitk7+vecA+vecB@staged64x64");
}

// The staged tensor-core kernel (fp16 storage, fp16 cooperative matrices: the H200).
TEST_P(VulkanGemm, StagedCooperativeMatrix) {
  if (GetParam() != Precision::fp16 || !ctx().coopmat_enabled())
    GTEST_SKIP() << "needs fp16 storage and fp16 cooperative matrices (" << ctx().info().name << ")";
  // Each tile of the staged kernel (VOLVOX_VK_STAGED_TILE; 128 x 128 is chosen by tile count).
  for (const std::string tile : {"64x128", "64x64", "32x64"}) {
    SCOPED_TRACE(tile);
    ScopedEnv tile_env("VOLVOX_VK_STAGED_TILE", tile.c_str());
    const std::string at = "@staged" + tile;
    ScopedEnv gemm("VOLVOX_VK_GEMM", "staged");
    ScopedEnv nosplit("VOLVOX_VK_SPLITK", "1");
    check(matmul(r(Shape{1, 40}), r(Shape{40, 8})), "staged 1x40x8", at);
    check(matmul(r(Shape{70, 40}), r(Shape{40, 136})), "staged 70x40x136", at);
    check(matmul(r(Shape{130, 264}), r(Shape{264, 200}), false), "staged 130x264x200 B input",
          at);
    check(matmul(r(Shape{3, 1, 65, 48}), r(Shape{4, 48, 24})), "staged broadcast batches",
          at);
    check(matmul(r(Shape{32, 260, 64}), r(Shape{32, 64, 264}), false), "staged 32 batches 260x64x264",
          "@staged128x128");
    // Layouts without 16-byte rows: gathered staging (ragged N, odd batch offsets).
    check(matmul(r(Shape{70, 33}), r(Shape{33, 65}), false), "staged odd 70x33x65", "coopmat" + at);
    check(matmul(r(Shape{128, 64}), r(Shape{64, 1001})), "staged ragged N 128x64x1001", "coopmat+vecA" + at);
    check(matmul(r(Shape{2, 3, 40, 33}), r(Shape{2, 3, 33, 45}), false), "staged ragged batches 2x3 of 40x33x45",
          "coopmat" + at);
    check(matmul(r(Shape{2, 7, 19}), r(Shape{19, 40})), "staged K 19", at);
    // B's rows in 8-byte words only (N 196: a multiple of 4 values, not 8): two words a staged word,
    // the last tile's second word past N.
    check(matmul(r(Shape{70, 40}), r(Shape{40, 196}), false), "staged half-width B 70x40x196", "+halfVecB" + at);
    check(matmul(r(Shape{2, 33, 24}), r(Shape{2, 24, 196}), false), "staged half-width B batched", "+halfVecB" + at);
    {
      ScopedEnv conv("VOLVOX_VK_CONV", "gemm");
      check({"Conv", {test::input(r(Shape{1, 48, 14, 14})), test::constant(r(Shape{40, 48, 1, 1})),
                      test::constant(r(Shape{40}))}, {}, ""},
            "staged Conv 1x1 at 14 x 14", "+halfVecB" + at);
      // 96 pixels: the epilogue stores 4 values at a time, the bias arriving as C broadcast along rows.
      check({"Conv", {test::input(r(Shape{1, 40, 8, 12})), test::constant(r(Shape{24, 40, 1, 1})),
                      test::constant(r(Shape{24}))}, {}, ""},
            "staged Conv 1x1 at 8 x 12", "+vecB" + at);
      // The im2col matrix materialised, K = 5 x 3 x 3 = 45: the constant weights padded to rows of
      // 48 with zeros and loaded in whole words past K; then the same weights as an input (gathered).
      ScopedEnv im2col("VOLVOX_VK_IM2COL_MIN_MACS", "0");
      Attributes ca;
      ca.set("pads", std::vector<int64_t>{1, 1, 1, 1});
      const Tensor x = r(Shape{2, 5, 11, 9}), w = r(Shape{20, 5, 3, 3}), b = r(Shape{20});
      check({"Conv", {test::input(x), test::constant(w), test::constant(b)}, ca, ""}, "staged Conv 3x3 K 45",
            "gemm_im2col_coopmat+vecA+vecB" + at);
      check({"Conv", {test::input(x), test::input(w), test::constant(b)}, ca, ""}, "staged Conv 3x3 K 45 runtime weights",
            "gemm_im2col_coopmat+vecB" + at);
    }
    const Attributes t = transposed_gemm();
    check({"Gemm", {test::input(r(Shape{45, 133})), test::input(r(Shape{99, 45})), test::input(r(Shape{133, 1}))}, t, ""},
          "staged Gemm transposed with C", at);
    for (const char* act : {"none", "relu", "gelu_erf", "gelu_tanh"})
      check(fused(r(Shape{77, 96}), r(Shape{96, 136}), r(Shape{136}), act),
            std::string("staged FusedMatMul ") + act, at);
    Attributes g;
    g.set("beta", 0.5f);
    check({"Gemm", {test::input(r(Shape{50, 72})), test::constant(r(Shape{72, 88})),
                    test::input(r(Shape{50, 88}))}, g, ""},
          "staged Gemm with C", at);
    ScopedEnv split("VOLVOX_VK_SPLITK", "3");
    check(matmul(r(Shape{128, 768}), r(Shape{768, 136})), "staged split K 3", "coopmat_splitk3");
    check(fused(r(Shape{20, 200}), r(Shape{200, 48}), r(Shape{48}), "gelu_erf"),
          "staged FusedMatMul split K 3", "coopmat_splitk3");
    check(matmul(r(Shape{128, 768}), r(Shape{768, 131})), "staged split K 3 ragged N", "coopmat_splitk3+vecA");
    check(matmul(r(Shape{128, 768}), r(Shape{768, 196}), false), "staged split K 3 half-width B",
          "coopmat_splitk3+vecA+halfVecB");
  }
}

// vx.FusedMatMul's residual (input 4, the GEMM's C with beta 1; ops/fused_ops.h): same shape,
// broadcast along rows, columns and batches, runtime and constant, with and without bias, the
// activation after the residual, through every SIMT kernel with and without split K.
TEST_P(VulkanGemm, FusedMatMulResidual) {
  auto with_residual = [](GemmCase c, Tensor residual, bool constant = false) {
    if (c.inputs.size() < 3) c.inputs.push_back(test::omitted());
    c.inputs.push_back(constant ? test::constant(std::move(residual)) : test::input(std::move(residual)));
    return c;
  };
  for (const char* kernel : {"tiled", "simt", "auto"}) {
    ScopedEnv gemm("VOLVOX_VK_GEMM", kernel);
    for (const char* splits : {"1", "3"}) {
      ScopedEnv split("VOLVOX_VK_SPLITK", splits);
      const std::string what = std::string(kernel) + " splits " + splits;
      const std::string variant = std::string(splits) == "3" ? "_splitk3" : "";
      check(with_residual(fused(r(Shape{2, 37, 170}), r(Shape{170, 45}), r(Shape{45}), "none"), r(Shape{2, 37, 45})),
            "residual, bias, " + what, variant);
      check(with_residual(fused(r(Shape{37, 130}), r(Shape{130, 45}), std::nullopt, "none"), r(Shape{37, 45}), true),
            "constant residual, no bias, " + what, variant);
      check(with_residual(fused(r(Shape{3, 5, 133}), r(Shape{133, 19}), r(Shape{19}), "relu"), r(Shape{3, 1, 19})),
            "residual broadcast over rows, relu, " + what, variant);
      check(with_residual(fused(r(Shape{3, 5, 133}), r(Shape{133, 19}), std::nullopt, "gelu_erf"), r(Shape{5, 1})),
            "residual broadcast over columns and batches, gelu, " + what, variant);
      check(with_residual(fused(r(Shape{4, 9, 200}), r(Shape{200, 24}), r(Shape{24}), "none"), r(Shape{24})),
            "residual of one row, " + what, variant);
    }
    // The epilogue in the reduce pass's lanes (11 splits of K 352, rows of 45 and 19 values).
    ScopedEnv split("VOLVOX_VK_SPLITK", "11");
    const std::string what = std::string(kernel) + " splits 11";
    check(with_residual(fused(r(Shape{2, 37, 352}), r(Shape{352, 45}), r(Shape{45}), "relu"), r(Shape{2, 37, 45})),
          "residual, bias, relu, " + what, "_splitk11+reduceLanes");
    check(with_residual(fused(r(Shape{3, 5, 352}), r(Shape{352, 19}), std::nullopt, "gelu_tanh"), r(Shape{5, 1})),
          "residual broadcast over columns and batches, gelu, " + what, "_splitk11+reduceLanes");
  }
}

// Weight-only int8 (B read as bytes, scales in the epilogue) through every kernel, with bias and
// activation, batched A, ragged K and N, split K on and off.
TEST_P(VulkanGemm, MatMulInt8Weights) {
  for (const char* kernel : {"tiled", "simt", "auto"}) {
    ScopedEnv gemm("VOLVOX_VK_GEMM", kernel);
    for (const char* splits : {"1", "3"}) {
      ScopedEnv split("VOLVOX_VK_SPLITK", splits);
      const std::string what = std::string(kernel) + " splits " + splits;
      check(int8w(r(Shape{2, 37, 70}), int8_weights(Shape{70, 45}, seed_++), r(Shape{45}, 0.001f, 0.02f),
                  r(Shape{45}), "gelu_tanh"),
            "MatMulInt8W batched, bias, gelu_tanh, " + what, "+int8B");
      check(int8w(r(Shape{5, 64}), int8_weights(Shape{64, 33}, seed_++), r(Shape{33}, 0.001f, 0.02f), std::nullopt, "relu"),
            "MatMulInt8W no bias, relu, " + what, "+int8B");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, VulkanGemm, ::testing::Values(Precision::fp32, Precision::fp16),
                         [](const ::testing::TestParamInfo<Precision>& i) { return std::string(precision_name(i.param)); });

}  // namespace
}  // namespace vx::vk
